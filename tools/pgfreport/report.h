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
	/* Option @opt (its longopts' code) with @arg: 0, or 1 after a message. */
	int (*option)(struct pass *ps, int opt, const char *arg);
	/* After the trace is open: 0, or 1 after a message. */
	int (*begin)(struct pass *ps);
	pass_rec_fn rec;		/* optional; every record but faults */
	pass_fault_fn fault;		/* optional */
	pass_prefetch_fn prefetch;	/* optional */
	bool ids;			/* needs ps->id (pass.want_ids) */
	/* After the pass (@ok: the trace was read whole); its exit status. */
	int (*end)(struct pass *ps, int status);
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

#endif
