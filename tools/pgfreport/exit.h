/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exit - pgfreport's exit statuses (pgfreport(1), EXIT STATUS), as
 * timeout(1) and env(1) keep 125 for their own failure.
 */
#ifndef PGFREPORT_EXIT_H
#define PGFREPORT_EXIT_H

enum {
	/* the trace is bad or incomplete: the reports of what it holds print */
	PGF_EXIT_TRACE = 1,
	/* the command line: a command, option or argument that is not one */
	PGF_EXIT_USAGE = 2,
	/* pgfreport's own failure: memory, a file it cannot open or write */
	PGF_EXIT_FAIL = 125,
};

#endif
