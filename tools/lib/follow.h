/* SPDX-License-Identifier: GPL-2.0 */
/*
 * follow - read the traces of a process tree (a trace started with
 * "inherit") into one output: tracepgfault -f.
 *
 * Every trace is polled at once (no thread per process); each "child"
 * record is followed by claiming that child's trace through its creator's
 * descriptor (PGFAULT_HISTORY_IOC_CHILD), so no process is missed even if
 * it was reaped before it was read. The output is a tree file:
 *
 *	pgfault_history_tree 1 root PID
 *	pid PID
 *	<lines of PID's trace, its header first>
 *	pid CHILD
 *	...
 *
 * a "pid N" line says whose trace the lines after it belong to. The lines
 * read from all traces in one poll round are merged in time order; a round
 * can bring a line older than one already written by an earlier round, so
 * a reader that needs global order sorts (pgfreport does not need to).
 */
#ifndef FOLLOW_H
#define FOLLOW_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#define FOLLOW_TREE_MAGIC	"pgfault_history_tree"
#define FOLLOW_TREE_VERSION	1

struct follow_proc;

struct follow {
	struct follow_proc *p;
	size_t n, cap;
	int out;
	const char *outname;
	struct zwriter *zw;		/* if set, the output goes through it */
	int cur;			/* whose block the output is in; 0: none */
	char *obuf;
	size_t olen;
	bool stopping;			/* stop every trace, read what is left */
	/* What was seen */
	unsigned long long processes;	/* traces read */
	unsigned long long untraced;	/* children the kernel could not trace */
	unsigned long long unrecorded;	/* traces claimed with no child record */
	unsigned long long unfollowed;	/* child traces that could not be claimed */
	/* Called for every record line written (not the "pid" lines). */
	void (*line)(void *ctx, const char *l, size_t n);
	void *ctx;
	/* If set, called after every poll round and every @tick_ms at most. */
	void (*tick)(void *ctx, const struct follow *f);
	int tick_ms;
	char error[256];
};

/* Begin a tree file on @out with the root's trace @fd; 0 or -1 (error). */
int follow_init(struct follow *f, int out, const char *outname, int fd,
		int root);
/*
 * Read until every trace of the tree is at EOF. When *@interrupted is
 * set, every trace still open is stopped ("0" written to its process's
 * file) and read until drained. 0, or -1 with f->error set.
 */
int follow_run(struct follow *f, volatile sig_atomic_t *interrupted);
void follow_free(struct follow *f);

#endif
