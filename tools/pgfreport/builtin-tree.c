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

int cmd_tree(int argc, char **argv)
{
	struct pass ps = { .cmd = "tree", .usage = usage, .takes = TREE_ONLY };
	int opt, status;

	while ((opt = pass_getopt(&ps, argc, argv, "", NULL)) != -1)
		if (opt == PASS_QUIT)
			return ps.status;
	status = pass_open(&ps, argc - optind, argv + optind);
	if (status)
		return status;
	status = pass_run(&ps);
	ptree_print(&ps.pt, stdout, ps.t0);
	pass_close(&ps);
	return status;
}
