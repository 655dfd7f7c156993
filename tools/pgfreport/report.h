/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report - a command that reports on one pass over the trace, in parts
 * that several commands can share a pass with: pgfreport mrc+reuse+hot
 * reads the trace once for all three (report.c). Each builtin-*.c of
 * such a command defines its struct report; cmd_NAME() is
 * report_main(&NAME_report, argc, argv).
 */
#ifndef PGFREPORT_REPORT_H
#define PGFREPORT_REPORT_H

#include <getopt.h>
#include <stddef.h>
#include "pass.h"

struct report {
	const char *name;		/* the command: "mrc" */
	const char *usage;		/* its --help, as pass.usage */
	unsigned int takes;		/* TAKES_* and ONE_PROCESS */
	const struct option *longopts;	/* its own options, or NULL */
	const char *shorts;		/* and their short forms */
	const char *const *tables;	/* as pass.tables, or NULL */
	/*
	 * Its state: @size bytes, zero, for each run of the report (two
	 * runs on one pass have one each), given to every callback as @st;
	 * @init sets its defaults before the options (optional).
	 */
	size_t size;
	void (*init)(void *st);
	/* Option @opt (its longopts' code) with @arg: 0, or 1 after a message. */
	int (*option)(struct pass *ps, void *st, int opt, const char *arg);
	/* After the trace is open: 0, or 1 after a message. */
	int (*begin)(struct pass *ps, void *st);
	pass_rec_fn rec;		/* optional; every record but faults */
	pass_fault_fn fault;		/* optional */
	pass_prefetch_fn prefetch;	/* optional */
	bool ids;			/* needs ps->id (pass.want_ids) */
	/*
	 * After the pass (@status: the pass's); its exit status. It frees
	 * what its state holds; the state itself is freed after.
	 */
	int (*end)(struct pass *ps, void *st, int status);
};

/* Run one report as its own command. */
int report_main(const struct report *r, int argc, char **argv);

/*
 * Run @n reports on one pass: their options together (each goes to the
 * reports that have it), each report's output in turn under a "# ==== NAME"
 * line. @argv[0] names them ("mrc+hot").
 */
int reports_main(const struct report *const *r, size_t n, int argc,
		 char **argv);

/*
 * The library's way, for a program or a test: reports @r[0 .. @n) with
 * their states @st (each r[i]->size bytes, set up by r[i]->init and
 * r[i]->option as the program chooses; the same report may come twice)
 * on one pass over the trace @ps has open (pass_open()); each one's end
 * in turn. Their exit status, as reports_main()'s.
 */
int reports_run(struct pass *ps, const struct report *const *r, void *const *st,
		size_t n);

#endif
