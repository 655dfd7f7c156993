// SPDX-License-Identifier: GPL-2.0
/*
 * report - one or several reports on one pass over the trace (report.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

#define MAX_REPORTS	16
#define MAX_OPTS	64

/* Several reports on one pass: the pass's @st. */
struct multi {
	const struct report *const *r;
	void *const *st;
	size_t n;
};

/* Faults go to .fault alone (pass.rec_no_faults). */
static int multi_rec(struct pass *ps, void *st, const struct pgft_rec *r)
{
	const struct multi *m = st;
	int ret = 0;

	for (size_t i = 0; i < m->n; i++)
		if (m->r[i]->rec)
			ret = pass_status(ret, m->r[i]->rec(ps, m->st[i], r));
	return ret;
}

static int multi_fault(struct pass *ps, void *st, const struct pgft_rec *r,
		       const struct pgft_region *g, long sp,
		       unsigned long long addr)
{
	const struct multi *m = st;
	int ret = 0;

	for (size_t i = 0; i < m->n; i++)
		if (m->r[i]->fault)
			ret = pass_status(ret, m->r[i]->fault(ps, m->st[i], r, g, sp,
							      addr));
	return ret;
}

static void multi_prefetch(struct pass *ps, void *st, unsigned long long addr)
{
	const struct multi *m = st;

	for (size_t i = 0; i < m->n; i++)
		if (m->r[i]->prefetch)
			m->r[i]->prefetch(ps, m->st[i], addr);
}

/* The usage of a combined run: each report's, in turn. */
static char *combined_usage(const struct report *const *r, size_t n,
			    const char *name)
{
	size_t len = 256;
	char *u, *p;

	for (size_t i = 0; i < n; i++)
		len += strlen(r[i]->usage) + 32;
	u = malloc(len);
	if (!u)
		return NULL;
	p = u + sprintf(u, "Usage: pgfreport %s [OPTION...] [TRACE]\n\n"
			"The reports of each command, from one pass over the\n"
			"trace, each under a \"# ==== COMMAND\" line; an option\n"
			"goes to every command that has it (short forms are each\n"
			"command's own: give the long ones).\n", name);
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "\n==== %s\n%s", r[i]->name, r[i]->usage);
	return u;
}

int reports_run(struct pass *ps, const struct report *const *r, void *const *st,
		size_t n)
{
	struct multi m = { r, st, n };
	int status = 0;

	for (size_t i = 0; i < n; i++)
		ps->want_ids |= r[i]->ids;
	for (size_t i = 0; i < n; i++)
		if (r[i]->begin && (status = r[i]->begin(ps, st[i])))
			return status;
	/*
	 * One report: its own callbacks, without a call through a loop a
	 * record (that costs a tenth of a fast report's pass).
	 */
	ps->rec_no_faults = true;
	if (n == 1) {
		ps->rec = r[0]->rec;
		ps->fault = r[0]->fault;
		ps->prefetch = r[0]->prefetch;
		ps->st = st[0];
	} else {
		ps->rec = multi_rec;
		ps->fault = multi_fault;
		ps->st = &m;
		for (size_t i = 0; i < n; i++)
			if (r[i]->prefetch)
				ps->prefetch = multi_prefetch;
	}
	status = pass_run(ps);
	for (size_t i = 0; i < n; i++) {
		if (n > 1) {
			printf("%s# ==== %s\n", i ? "\n" : "", r[i]->name);
			fflush(stdout);
		}
		status = pass_status(status, r[i]->end(ps, st[i], status));
	}
	ps->st = NULL;
	return status;
}

int reports_main(const struct report *const *r, size_t n, int argc,
		 char **argv)
{
	struct option all[MAX_OPTS] = { { 0 } };
	/* per merged option: the reports that have it (a bit each), their codes */
	unsigned int owners[MAX_OPTS] = { 0 };
	int codes[MAX_OPTS][MAX_REPORTS];
	void *st[MAX_REPORTS] = { NULL };
	struct pass ps = { .cmd = argv[0] };
	size_t nall = 0;
	int opt, status = 0;

	if (n > MAX_REPORTS)
		return pass_usage(&ps, "at most %d reports at once", MAX_REPORTS);
	for (size_t i = 0; i < n; i++) {
		st[i] = calloc(1, r[i]->size ? r[i]->size : 1);
		if (!st[i]) {
			status = pass_oom(&ps);
			goto free;
		}
		if (r[i]->init)
			r[i]->init(st[i]);
	}
	/* the common options all of them take; one process if one needs it */
	ps.takes = TAKES_PID | TAKES_FILTERS | TAKES_FILES | TAKES_PHYS |
		   (n == 1 ? TAKES_FORMAT : 0);
	for (size_t i = 0; i < n; i++)
		ps.takes = (ps.takes & (r[i]->takes | ONE_PROCESS | TREE_ONLY)) |
			   (r[i]->takes & ONE_PROCESS);
	for (size_t i = 0; n > 1 && i < n; i++) {
		for (const struct option *o = r[i]->longopts; o && o->name; o++) {
			size_t k;

			for (k = 0; k < nall && strcmp(all[k].name, o->name); k++)
				;
			if (k == nall) {
				if (nall + 1 == MAX_OPTS) {
					status = pass_usage(&ps, "too many options");
					goto free;
				}
				all[nall] = *o;
				all[nall].flag = NULL;
				all[nall].val = 0x3000 + (int)k;
				nall++;
			}
			owners[k] |= 1u << i;
			codes[k][i] = o->val;
		}
	}
	ps.tables = n == 1 ? r[0]->tables : NULL;
	ps.usage = n == 1 ? r[0]->usage : combined_usage(r, n, argv[0]);
	if (!ps.usage) {
		status = pass_oom(&ps);
		goto free;
	}
	/* one report: its own options and short forms; several: long ones */
	while ((opt = pass_getopt(&ps, argc, argv,
				  n == 1 && r[0]->shorts ? r[0]->shorts : "",
				  n == 1 ? r[0]->longopts : all)) != -1) {
		if (opt == PASS_QUIT) {
			status = ps.status;
			goto out;
		}
		for (size_t i = 0; i < n; i++) {
			int code = n == 1 ? opt : codes[opt - 0x3000][i];

			if ((n == 1 || (owners[opt - 0x3000] >> i & 1)) &&
			    (status = r[i]->option(&ps, st[i], code, optarg)))
				goto out;
		}
	}
	status = pass_open(&ps, argc - optind, argv + optind);
	if (!status)
		status = reports_run(&ps, r, st, n);
	pass_close(&ps);
out:
	if (n > 1)
		free((char *)ps.usage);
free:
	for (size_t i = 0; i < n; i++)
		free(st[i]);
	return status;
}

int report_main(const struct report *r, int argc, char **argv)
{
	return reports_main(&r, 1, argc, argv);
}
