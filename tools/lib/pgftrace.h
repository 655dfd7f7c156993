/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pgftrace - read /proc/<pid>/pgfault_history traces and replay their
 * region records into the address space they describe.
 *
 * Shared by the tools and the tests, so the tests check the real reader
 * of the format. The format is described in
 * include/uapi/linux/pgfault_history.h. A tree file (tracepgfault -f,
 * tools/lib/follow.h) holds the traces of several processes, in blocks
 * each headed "pid N"; every record read from it carries its process's
 * pid, and the reader checks each process's own header. Either may be
 * in the binary form (pgfbin.h), where the line number of a message is
 * the record's number.
 *
 *	struct pgft_reader rd;
 *	struct pgft_rec r;
 *	struct pgft_space as = { 0 };
 *
 *	pgft_open(&rd, stdin, "trace.txt");
 *	while ((ret = pgft_next(&rd, &r)) > 0) {
 *		pgft_apply(&as, &r);
 *		if (r.type == PGFT_FAULT)
 *			region = pgft_find(&as, r.addr);
 *	}
 *	if (ret < 0)
 *		fprintf(stderr, "%s\n", rd.error);
 */
#ifndef PGFTRACE_H
#define PGFTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * What messages of the tools' library begin with: "pgfreport" by default,
 * "pgfreport mrc" while that command runs.
 */
extern const char *pgft_prog;

/* The newest format version this code reads. */
#define PGFT_VERSION 9

enum pgft_type {
	PGFT_START, PGFT_FAULT, PGFT_LOST, PGFT_EXEC, PGFT_STOP, PGFT_EXIT,
	PGFT_LAYOUT, PGFT_MAP, PGFT_CHANGE, PGFT_UNMAP, PGFT_REMOTE,
	PGFT_REARM, PGFT_CHILD, PGFT_REFS, PGFT_SAMPLE, PGFT_FILE, PGFT_CACHE,
	PGFT_PAGES,
};

/*
 * What a change record (version 9: PGFT_PAGES) says the kernel did to
 * the frames under a run of pages: "move", "evict", "split", "collapse",
 * "mapped"
 */
enum pgft_change {
	PGFT_MOVE, PGFT_EVICT, PGFT_SPLIT, PGFT_COLLAPSE, PGFT_MAPPED, PGFT_NCHANGE
};

/* Its name in the trace. */
extern const char * const pgft_change_names[PGFT_NCHANGE];

/* pgft_rec.pfn or new_pfn of a change record without that frame ("-") */
#define PGFT_NO_PFN	(~0ULL)

/* How a "cache" record's pages fared (version 7) */
enum pgft_cache {
	PGFT_HIT, PGFT_MISS, PGFT_READAHEAD, PGFT_HOLE, PGFT_DIRECT,
	PGFT_NCACHE
};

/* Its name in the trace: "hit", "miss", "readahead", "hole", "direct". */
extern const char * const pgft_cache_names[PGFT_NCACHE];

/* pgft_rec.flags of an exit: it ends with "cache KEPT LOST" (version 7) */
#define PGFT_EXIT_CACHE		0x01

/* pgft_rec.flags of a sample (version 6) */
#define PGFT_SAMPLE_BASELINE	0x01	/* the start's scan, no refs */
#define PGFT_SAMPLE_INCOMPLETE	0x02	/* some of its refs were lost */
#define PGFT_SAMPLE_STOPPED	0x04	/* a fatal signal cut it short */

enum pgft_result {
	PGFT_MINOR, PGFT_MAJOR, PGFT_REREF, PGFT_SIGSEGV, PGFT_SIGBUS, PGFT_OOM,
};

/*
 * The results /proc/<pid>/stat counts (minor, major, and reref: a minor
 * fault on a re-armed page, version 3).
 */
static inline bool pgft_counted(enum pgft_result result)
{
	return result <= PGFT_REREF;
}

/* The page table level a fault's frame is mapped at (version 8) */
enum pgft_level { PGFT_PTE, PGFT_PMD, PGFT_PUD, PGFT_NLEVEL };

/* Its name in the trace: "pte", "pmd", "pud". */
extern const char * const pgft_level_names[PGFT_NLEVEL];

/* pgft_rec.node of a frame without a struct page ("-" in the trace) */
#define PGFT_NO_NODE	(-1)

struct pgft_rec {
	enum pgft_type type;
	int pid;			/* the process whose record it is */
	unsigned long long time;
	int tid;
	/* fault (remote: access and result only) */
	unsigned long long addr, ip;
	char access;			/* 'r', 'w', 'x' */
	bool kernel;
	enum pgft_result result;
	/*
	 * fault (version 8): the frame it mapped, if has_frame: its number,
	 * node (or PGFT_NO_NODE), folio order, page table level
	 */
	bool has_frame;
	unsigned char order;
	unsigned char level;		/* enum pgft_level */
	int node;
	unsigned long long pfn;
	/*
	 * change (version 9): change, addr, n[0] pages, text the cause; node
	 * and new_node (PGFT_NO_NODE: none) always; with has_frame, pfn and
	 * new_pfn (PGFT_NO_PFN: none), the order and level after (before,
	 * for an eviction)
	 */
	enum pgft_change change;
	int new_node;
	unsigned long long new_pfn;
	/*
	 * regions: map, change, unmap (id only); file (version 7): id,
	 * major, minor, inode, name; cache (version 7): id the file's, start
	 * the first page's index, n[0] the pages, access 'r' or 'w', cache
	 */
	unsigned long long id, start, end, offset, inode;
	unsigned int major, minor;
	char perms[5];
	const char *name;		/* "" if none; valid until pgft_next() */
	enum pgft_cache cache;
	/*
	 * lost: faults, other; exit: status, faults, lost, regions, and
	 * with PGFT_EXIT_CACHE the cache records kept and lost (version 7);
	 * layout: count; rearm: pages; start: 1 if "inherit" (version 5),
	 * the sampling interval in ms for "sample=MS" (version 6), 1 if
	 * "files" (version 7); child: its pid, 1 if "untraced"; refs: runs;
	 * sample: pages scanned, referenced, nanoseconds; cache: pages;
	 * change: pages
	 */
	unsigned long long n[6];
	unsigned int flags;		/* sample: PGFT_SAMPLE_*; exit: PGFT_EXIT_* */
	/*
	 * exec path, stop reason, rearm how, start mode ("" before v3); refs:
	 * the runs, read with pgft_run(); change: its cause
	 */
	const char *text;
};

/*
 * Called with every record as it is read, headers and a tree's "pid N"
 * lines included: a text line (@len bytes, no newline) and NULL, or a
 * binary fault, frame or cache record (@fault, pgfb_fixed_bytes() of its
 * type) and a NULL @line.
 */
typedef void (*pgft_tap_fn)(void *arg, const char *line, size_t len,
			    const unsigned char *fault);

/*
 * A record that pgft_read_ahead()'s thread has read: a fault's fields (a
 * cache record's in them: id in addr, start in ip, n[0] in pfn, cache in
 * result), or, for any other record, where the whole of it is kept.
 */
struct pgft_ahead_slot {
	unsigned long long line;	/* rd->line after it */
	unsigned long long time, addr, ip, pfn;
	int tid, pid, node;
	unsigned int rec;		/* not a fault: its index in the block */
	unsigned char type;		/* enum pgft_type */
	char access;
	bool kernel, has_frame;
	unsigned char result, order, level;
};

struct pgft_ahead;

struct pgft_reader {
	FILE *f;
	const char *fname;
	unsigned long long line;	/* number of the last line read */
	int version;
	int pid;			/* a tree's root */
	unsigned long page_size;
	bool tree;			/* a tree file */
	int cur;			/* tree: the block being read */
	int *pids;			/* tree: processes seen, in order */
	size_t npids, cap_pids;
	/* tree: pid -> index in pids + 1, open addressing, half full at most */
	uint32_t *pid_slots;
	size_t pid_nslots;
	char *buf;			/* binary: the last line record's text */
	size_t cap;
	bool bin;			/* the binary form (pgfbin.h) */
	unsigned int bin_version;	/* its header's version */
	unsigned char *bbuf;		/* the bytes read ahead, bbuf[bpos, blen) */
	size_t bpos, blen, bcap;
	bool beof;			/* the file's end was met */
	int text_errno;			/* text: the read error that ended it */
	pgft_tap_fn tap;		/* pgft_open_tap() */
	void *tap_arg;
	/*
	 * pgft_next_into()'s record, while the last read into it was a fault:
	 * of a binary trace, of a text one
	 */
	const struct pgft_rec *fault_in, *line_in;
	/*
	 * pgft_read_ahead(): the thread's reader and blocks, the records of
	 * the block being read [apos, aend), and pgft_next_into()'s record
	 * while the last read into it was a fault from there
	 */
	struct pgft_ahead *ahead;
	const struct pgft_ahead_slot *apos, *aend;
	const struct pgft_rec *ahead_in;
	char error[512];		/* set when pgft_next() returns -1 */
	/*
	 * With error: the system's errno when the failure is not the
	 * trace's (a read error, no memory), else 0.
	 */
	int sys_errno;
};

/*
 * What a process's trace is checked against at its end: it ends with an
 * exit or a stop record (a start after a stop goes on), and an exit's
 * totals are the counted fault and remote records it holds and the
 * faults its lost records counted.
 *
 *	struct pgft_tally t = { 0 };
 *	for each record r of the process: pgft_tally(&t, &r);
 *	if (pgft_tally_check(&t, why, sizeof(why))) ... why says what ...
 */
struct pgft_tally {
	unsigned long long records;	/* its records, lost ones included */
	unsigned long long kept, lost;	/* counted faults held; lost */
	unsigned long long exit_kept, exit_lost;	/* its exit's */
	unsigned long long cache;	/* cache records held (version 7) */
	unsigned long long exit_cache;	/* its exit's count of them */
	bool exit_has_cache;		/* the exit gives that count */
	enum { PGFT_GOING, PGFT_EXITED, PGFT_STOPPED } end;
};

static inline void pgft_tally(struct pgft_tally *t, const struct pgft_rec *r)
{
	t->records++;
	switch (r->type) {
	case PGFT_FAULT:
	case PGFT_REMOTE:
		t->kept += pgft_counted(r->result);
		break;
	case PGFT_LOST:
		t->lost += r->n[0];
		break;
	case PGFT_CACHE:
		t->cache++;
		break;
	case PGFT_START:
		t->end = PGFT_GOING;
		break;
	case PGFT_STOP:
		t->end = PGFT_STOPPED;
		break;
	case PGFT_EXIT:
		t->end = PGFT_EXITED;
		t->exit_kept = r->n[1];
		t->exit_lost = r->n[2];
		t->exit_has_cache = r->flags & PGFT_EXIT_CACHE;
		t->exit_cache = r->n[4];
		break;
	default:
		break;
	}
}

/*
 * 0 if the trace ended whole; else 1, with @why saying what is wrong
 * ("has no exit or stop record: ...").
 */
int pgft_tally_check(const struct pgft_tally *t, char *why, size_t size);

/*
 * Read the header; 0, or -1 with rd->error set (wrong version, ...). The
 * text form or the binary one (pgfbin.h), told by the first byte.
 */
int pgft_open(struct pgft_reader *rd, FILE *f, const char *fname);
/* The same, calling @tap with every record read (a converter's). */
int pgft_open_tap(struct pgft_reader *rd, FILE *f, const char *fname,
		  pgft_tap_fn tap, void *arg);
/*
 * Read a text trace ahead in a thread of its own from here on (after
 * pgft_open()): the lines are read and parsed there while the caller's
 * thread uses the records, which pgft_next() gives as it would without
 * (the same records, line numbers and errors). 0, or -1 (a binary trace,
 * a tapped one, no memory or no thread: nothing changed, and the reader
 * reads as before). The trace's FILE is the thread's until pgft_close(),
 * which stops the thread at its next record: a file or memory, not a
 * pipe, whose read may wait for ever, and pgft_close() with it.
 */
int pgft_read_ahead(struct pgft_reader *rd);
/* The next record: 1, 0 at the end, -1 with rd->error naming the line. */
int pgft_next(struct pgft_reader *rd, struct pgft_rec *r);
void pgft_close(struct pgft_reader *rd);
/* Parse one record line (modified in place); 0 or -1. */
int pgft_parse(char *line, struct pgft_rec *r);
/*
 * The next run of a refs record: *@p starts at r->text; 1 with the run's
 * first page address and length, 0 after the last (pgft_parse() checked
 * them all).
 */
int pgft_run(const char **p, unsigned long long *start,
	     unsigned long long *pages);

struct pgft_region {
	unsigned long long id, start, end, offset, inode;
	unsigned int major, minor;
	char perms[5];
	char *name;
};

/* An address space as the region records describe it. */
struct pgft_space {
	struct pgft_region *v;		/* sorted by start when !dirty */
	size_t nr, cap;
	bool dirty;
	unsigned long long layout_left;	/* map records still due to a layout */
	size_t *slot;			/* by id: index + 1, 0 for none */
	size_t slots;			/* a power of two, or 0 */
	bool slots_stale;		/* rebuild them before use */
	/*
	 * pgft_find()'s last hit per 2 MiB of address (index + 1, 0: none),
	 * by the address's bits 21 to 26; forgotten when v[] changes.
	 */
	unsigned int memo[64];
};

/*
 * Apply a record (layout, map, change, unmap, exec); others are ignored.
 * 0, or -1 out of memory: the space then holds what it could (a region
 * may have lost its name); the caller stops there.
 */
int pgft_apply(struct pgft_space *s, const struct pgft_rec *r);
/* The regions by address: s->v[0 .. s->nr). */
void pgft_sort(struct pgft_space *s);
void pgft_space_free(struct pgft_space *s);

/*
 * The region holding @addr, or NULL. Inline: a pass calls it at every
 * fault.
 */
static inline const struct pgft_region *pgft_find(struct pgft_space *s,
						  unsigned long long addr)
{
	unsigned int *memo = &s->memo[addr >> 21 & 63];
	size_t lo = 0, hi;

	if (s->dirty)
		pgft_sort(s);
	/*
	 * Regions never overlap: the last one hit near @addr, if it holds
	 * @addr, is it (the search costs a dependent load per halving). Not
	 * worth a branch that faults all over a few regions mispredict: the
	 * search is a handful of loads from one cache line then.
	 */
	if (s->nr > 16 && *memo && addr >= s->v[*memo - 1].start &&
	    addr < s->v[*memo - 1].end)
		return &s->v[*memo - 1];
	/*
	 * The last region starting at or below @addr, without branches on
	 * the data (conditional moves: random addresses mispredict every
	 * branch of a plain binary search).
	 */
	for (hi = s->nr; hi > 1; hi -= hi / 2)
		lo = addr >= s->v[lo + hi / 2].start ? lo + hi / 2 : lo;
	if (lo < s->nr && addr >= s->v[lo].start && addr < s->v[lo].end) {
		*memo = lo + 1;
		return &s->v[lo];
	}
	return NULL;
}

#endif
