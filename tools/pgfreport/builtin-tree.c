// SPDX-License-Identifier: GPL-2.0
/*
 * pgfreport tree - the processes of a tree file, indented under their
 * creators, with their faults, pages, losses and ends.
 */
#include <stdio.h>
#include "builtin.h"
#include "pass.h"

static const char usage[] =
"Usage: pgfreport tree [TRACE]\n"
"\n"
"For a tree file (tracepgfault -f): the process tree, one line per\n"
"process, indented under its creator: pid, creator, when it was created\n"
"and when its last record came (ms after the root's start), faults\n"
"(counted ones), distinct pages faulted, lost faults, children, how it\n"
"ended, the program it ran (its last exec, else its creator's); then\n"
"totals. Every other command takes --pid PID to report on one of them.\n";

/* --format csv|json: a row per process, in the order first seen */
static void tree_table(const struct pass *ps)
{
	static const char *const cols[] = {
		"pid", "parent", "start_ms", "end_ms", "faults", "major", "rerefs",
		"pages", "lost", "children", "status", "command",
	};
	struct table t;
	char status[32];

	table_begin(&t, stdout, ps->format, cols, 12);
	for (size_t i = 0; i < ps->replay.pt.nr; i++) {
		const struct ptree_proc *p = &ps->replay.pt.v[i];
		unsigned long long start = p->parent ? p->created : p->start;

		ptree_status(p, status, sizeof(status), "-");
		table_u64(&t, p->pid);
		table_u64(&t, p->parent);
		table_num(&t, start > ps->replay.t0 ? (start - ps->replay.t0) / 1e6 : 0.0);
		table_num(&t, p->end > ps->replay.t0 ? (p->end - ps->replay.t0) / 1e6 : 0.0);
		table_u64(&t, p->faults);
		table_u64(&t, p->major);
		table_u64(&t, p->reref);
		table_u64(&t, p->pages);
		table_u64(&t, p->lost);
		table_u64(&t, p->children);
		table_str(&t, status);
		table_str(&t, p->cmd);
	}
	table_end(&t);
}

int cmd_tree(int argc, char **argv)
{
	struct pass ps = { .cmd = "tree", .usage = usage,
			   .takes = TREE_ONLY | TAKES_FORMAT };
	int opt, status;

	while ((opt = pass_getopt(&ps, argc, argv, "", NULL)) != -1)
		if (opt == PASS_QUIT)
			return ps.status;
	status = pass_open(&ps, argc - optind, argv + optind);
	if (status)
		return status;
	status = pass_run(&ps);
	if (ps.format == TABLE_TEXT)
		ptree_print(&ps.replay.pt, stdout, ps.replay.t0);
	else
		tree_table(&ps);
	pass_close(&ps);
	return status;
}
