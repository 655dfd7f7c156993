/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pass - what every pgfreport command shares, as perf's util/ under its
 * builtin-*.c: the options common to the commands (--pid, the filters of
 * tools/lib/filter.h, --help), the trace they read (struct pass_trace),
 * and one pass over its records, which replays the address spaces
 * (struct pass_replay) and hands each record to the command's callbacks,
 * a fault with the region that held its address then. A command's state
 * is its own: the callbacks get it as @st.
 *
 *	struct my_state st = { ... };
 *	struct pass ps = { .cmd = "mrc", .usage = usage,
 *			   .takes = TAKES_PID | TAKES_FILTERS };
 *
 *	while ((opt = pass_getopt(&ps, argc, argv, "", longopts)) != -1)
 *		switch (opt) {
 *		case PASS_QUIT: return ps.status;	(--help, a bad option)
 *		...
 *		}
 *	if ((status = pass_open(&ps, argc - optind, argv + optind)))
 *		return status;
 *	ps.fault = my_fault;		(called as my_fault(&ps, &st, ...))
 *	ps.st = &st;
 *	status = pass_run(&ps);		(0, or PGF_EXIT_TRACE: a bad trace)
 *	... report ...
 *	pass_close(&ps);
 *
 * A report of report.h needs none of this: reports_main() or
 * reports_run() do it. Messages go to standard error as "pgfreport CMD:
 * ...". Every function that says something is wrong returns the exit
 * status it calls for (PGF_EXIT_*), which its callers pass on; none
 * exits.
 */
#ifndef PGFREPORT_PASS_H
#define PGFREPORT_PASS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include "../lib/filter.h"
#include "../lib/pageid.h"
#include "../lib/pgftrace.h"
#include "../lib/progress.h"
#include "../lib/ptree.h"
#include "exit.h"
#include "kind.h"
#include "../lib/rows.h"

/* What a command takes: pass.takes */
#define TAKES_PID	0x1	/* --pid: one process of a tree file */
#define TAKES_FILTERS	0x2	/* --tid, --time, --addr, --region */
#define ONE_PROCESS	0x4	/* a tree file needs --pid */
#define TREE_ONLY	0x8	/* reads tree files only (tree) */
#define TAKES_FORMAT	0x10	/* --format text|csv|json (table.h) */
#define TAKES_FILES	0x20	/* --files: file references are references */
#define TAKES_PHYS	0x40	/* --phys: the frames are the pages */

/*
 * --files: a page of a file, as the address handed to pass.fault: bit 63
 * set, the file's number (from 0, by device and inode, in the order the
 * pass meets them) from bit 44, its index from bit 12. pass_page() of it
 * is PASS_FILE_PAGE | number << 32 | index.
 */
#define PASS_FILE_PAGE		(1ULL << 51)
#define PASS_FILE_MAX		((1ULL << 19) - 1)	/* numbers */
#define PASS_FILE_INDEX_MAX	((1ULL << 32) - 1)

/*
 * --phys: the frame a fault mapped (format version 8), as the address
 * handed to pass.fault: bit 62 set, the frame number from bit 12. Frames
 * are one physical memory: a frame of two processes of a tree, or of two
 * address spaces, is one page. pass_page() of it is PASS_PHYS_PAGE | pfn.
 */
#define PASS_PHYS_PAGE		(1ULL << 50)

/* pass_getopt(): --help was printed, or a bad option was told */
#define PASS_QUIT	(-2)

/* Of two statuses, the first that is not 0: the first thing wrong. */
static inline int pass_status(int a, int b)
{
	return a ? a : b;
}

struct pass;

/*
 * The callbacks get the pass and @st, the command's state (pass.st; a
 * report's own, report.h).
 *
 * Every record of the process(es) reported on, before it is applied (to
 * ps->as, or in a whole tree to ps->P's address space: pass_region() and
 * pass_space_key() are still of the layout before it); faults too,
 * unless pass.rec_no_faults (a report's: report.h).
 */
typedef int (*pass_rec_fn)(struct pass *ps, void *st, const struct pgft_rec *r);
/*
 * A fault the filters took (ps->kind has counted it): @g is the region
 * that held its address then
 * (NULL if none), @sp the key of its address space (a process's index
 * in bits 20 and up in a whole tree, then its execs), @addr its address
 * (in a whole tree, the process's index in bits 56 and up). With --files,
 * also a page of a file (a page of a cache record, @r; or a fault in a
 * mapped file), @g NULL, @sp -1 and @addr the file's page
 * (PASS_FILE_PAGE).
 */
typedef int (*pass_fault_fn)(struct pass *ps, void *st,
			     const struct pgft_rec *r,
			     const struct pgft_region *g, long sp,
			     unsigned long long addr);
/*
 * A hint, before a fault: @addr will fault a few records on (binary
 * traces, one process): prefetch what the command will look up for it.
 */
typedef void (*pass_prefetch_fn)(struct pass *ps, void *st,
				 unsigned long long addr);

/* The trace a pass reads: its file, its reader, what its header says. */
struct pass_trace {
	const char *fname;		/* its path, or "standard input" */
	FILE *f;
	int raw_fd;			/* the file read (compressed or not) */
	struct pgft_reader rd;
	unsigned long page_size;
	int page_shift;			/* log2(page_size), -1 if not a power of 2 */
	struct progress progress;	/* on a terminal: how far the pass is */
};

/*
 * The replay: the address spaces as the records change them, and what
 * the pass has seen of the trace so far.
 */
struct pass_replay {
	bool whole;			/* a tree file read whole (no --pid) */
	struct pgft_space as;		/* the process's regions (!whole) */
	struct ptree pt;		/* a tree file's processes */
	struct ptree_proc *P;		/* the record's process (tree file) */
	long index;			/* its address space: execs so far */
	unsigned long long t0;		/* the first record (of --pid's), ns */
	unsigned long long lost;	/* lost records */
	struct pgft_tally tally;	/* a single process's trace's end */
	struct kind kind;		/* the start records' modes, the rerefs */
	bool pid_seen;			/* --pid's process was in the trace */
	bool cut;			/* pass_run(): read whole, but its end is not */
	/*
	 * --files: the files' numbers by (device, inode), and by (pid, file
	 * id) + 1 in val; the pages the kernel's page cache hit and missed
	 * (the file references taken), what it gave the program, and read
	 * ahead
	 */
	struct pgid_map fileno, file_ids;
	unsigned long long file_hits, file_misses, file_readahead;
	char **file_paths;		/* by number: a file's path, or NULL */
	size_t nfile_paths;
	/* --phys: the counted faults taken, and those without a frame */
	unsigned long long phys_faults, phys_none;
};

/*
 * A pass: the command line's common options, the trace (pass_trace), the
 * replay (pass_replay), the filters, and the command's callbacks with
 * their state; the reports (report.h) keep theirs apart, one each.
 */
struct pass {
	const char *cmd;		/* "mrc": messages say "pgfreport mrc: " */
	const char *usage;		/* the command's own --help */
	unsigned int takes;		/* TAKES_* */
	int status;			/* after PASS_QUIT: the exit status */
	long pid;			/* --pid, or 0 */
	bool files;			/* --files */
	bool phys;			/* --phys */
	struct pgft_filter filt;
	enum table_format format;	/* --format */
	/*
	 * A report of several tables: their names, NULL-terminated, the
	 * default first; --table's index in them, and whether it was given
	 */
	const char *const *tables;
	size_t table;
	bool table_set;
	struct pass_trace trace;
	struct pass_replay replay;
	/* the command's */
	pgft_tap_fn tap;		/* every record as read (pgft_open_tap()) */
	void *tap_arg;
	pass_rec_fn rec;
	bool rec_no_faults;		/* rec is not called for faults */
	pass_fault_fn fault;
	pass_prefetch_fn prefetch;	/* optional */
	/*
	 * With pages_on, the pass looks up the page of every fault it hands
	 * to .fault that pgft_counted() takes, pass_page() of its @addr, in
	 * a table whose slot for the page holds what the commands keep of
	 * it (pass_reserve()): the reports of one pass find all their state
	 * for a fault with one lookup, in one cache line. With want_ids
	 * (set before pass_reserve()), the slot also numbers the pages
	 * densely in the order first seen (pageid.h), in ps->id.
	 */
	bool pages_on;
	bool want_ids;
	struct pgid_map pages;		/* the table */
	size_t data;			/* the bytes pass_reserve() gave */
	uint32_t id;			/* in .fault, with want_ids: the page's id */
	struct pgid_slot *slot;		/* and its slot, until the next fault */
	bool streams;			/* writes standard output as it reads */
	void *st;			/* the callbacks' @st: the command's state */
	/* pass_getopt()'s: the options it takes, their short forms */
	struct option opts[64];
	char shorts[64];
};

/*
 * getopt_long() over @longs and the common options, which it handles
 * itself; returns an option of @shorts/@longs, -1 after the last, or
 * PASS_QUIT with ps->status set (0 after --help, PGF_EXIT_USAGE after a
 * message).
 */
int pass_getopt(struct pass *ps, int argc, char **argv, const char *shorts,
		const struct option *longs);

/*
 * Say "pgfreport CMD: MESSAGE" on standard error; returns PGF_EXIT_FAIL:
 * pgfreport could not do its work (memory, a file).
 */
int pass_error(const struct pass *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same for a command line that is wrong; returns PGF_EXIT_USAGE. */
int pass_usage(const struct pass *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same for a trace that is; returns PGF_EXIT_TRACE. */
int pass_bad_trace(const struct pass *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Out of memory: say so; returns PGF_EXIT_FAIL. */
int pass_oom(const struct pass *ps);

/*
 * Say that option @opt (with its argument @arg) is not @what; returns
 * PGF_EXIT_USAGE.
 */
int pass_bad_arg(const struct pass *ps, const char *opt, const char *arg,
		 const char *what);

/*
 * A positive number (or, with @zero, non-negative) into @v; 0 or
 * PGF_EXIT_USAGE.
 */
int pass_number(const struct pass *ps, const char *opt, const char *arg,
		bool zero, long *v);

/*
 * Open the trace @argv[0] (@argc 0 or 1; none or "-": standard input,
 * unless it is a terminal) and check it suits the command and --pid;
 * 0, or an exit status after saying why.
 */
int pass_open(struct pass *ps, int argc, char **argv);

/*
 * Read every record, calling ps->rec and ps->fault; 0, or an exit status
 * after saying what was wrong: the trace (the records before the bad one
 * were passed on), its end (no exit or stop record, or totals that
 * differ from what it holds: a warning, every record passed on), no
 * --pid process in it, or what a callback returned.
 */
int pass_run(struct pass *ps);

void pass_close(struct pass *ps);

/*
 * Before pass_run(): @bytes of the command's in every page's slot (from
 * a 4-byte boundary, zero for a new page), which turns pages_on; *@off is
 * where, from the slot's start, for pass_state() and pgid_data(). 0, or 1
 * after saying the slot is full.
 */
int pass_reserve(struct pass *ps, size_t bytes, size_t *off);

/* In .fault, of a fault pgft_counted() takes: its page's bytes at @off. */
static inline void *pass_state(const struct pass *ps, size_t off)
{
	return pgid_data(ps->slot, off);
}

/*
 * After the pass: every page's slot, in no order, as
 *	size_t i = 0;
 *	while ((s = pass_next_page(ps, &i)))
 *		... pgid_data(s, off) ...
 */
static inline struct pgid_slot *pass_next_page(const struct pass *ps, size_t *i)
{
	while (*i < ps->pages.cap) {
		struct pgid_slot *s = pgid_at(&ps->pages, (*i)++);

		if (s->key)
			return s;
	}
	return NULL;
}

/* In a callback: the region that holds @addr in the record's process now. */
static inline const struct pgft_region *pass_region(struct pass *ps,
						    unsigned long long addr)
{
	return pgft_find(ps->replay.whole ? &ps->replay.P->as : &ps->replay.as, addr);
}

/*
 * In a callback: the key of the record's process's address space, as
 * pass_fault_fn's @sp (a tree's process index in bits 20 and up, then its
 * execs before the record).
 */
static inline long pass_space_key(const struct pass *ps)
{
	return ps->replay.whole ? (long)ps->replay.P->index << 20 | ps->replay.P->space : ps->replay.index;
}

/* --phys: whether @page (pass_page()'s) is a frame, and then its number. */
static inline bool pass_phys_page(const struct pass *ps, uint64_t page,
				  unsigned long long *pfn)
{
	if (!ps->phys || !(page & PASS_PHYS_PAGE))
		return false;
	*pfn = page & (PASS_PHYS_PAGE - 1);
	return true;
}

/*
 * --files: whether @page (pass_page()'s) is a page of a file, and then its
 * file's path ("" if none came: a file mapped without a name) and index
 */
static inline bool pass_file_page(const struct pass *ps, uint64_t page,
				  const char **path, unsigned long long *index)
{
	uint64_t n = (page >> 32) & PASS_FILE_MAX;

	if (!ps->files || !(page & PASS_FILE_PAGE))
		return false;
	*path = n < ps->replay.nfile_paths && ps->replay.file_paths[n] ?
		ps->replay.file_paths[n] : "";
	*index = page & PASS_FILE_INDEX_MAX;
	return true;
}

/* "mode" of a start record: what kind of references a trace holds */
static inline const char *pass_mode(const struct pgft_rec *r)
{
	return *r->text ? r->text : "first";
}

/*
 * The page of @addr: a shift where the page size is a power of two (the
 * kernel's always is), a division (tens of cycles) otherwise.
 */
static inline unsigned long long pass_page(const struct pass *ps,
					   unsigned long long addr)
{
	return ps->trace.page_shift >= 0 ? addr >> ps->trace.page_shift : addr / ps->trace.page_size;
}

#endif
