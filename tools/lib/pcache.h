/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcache - the page cache references of a trace ("file" and "cache"
 * records, format version 7), per file: pages used, how they fared (hit,
 * miss, readahead, hole, direct), reads and writes, sequential and random
 * runs, distinct pages. A file is one (process, file id) of the trace; in
 * a tree file each process names its files with its own ids.
 *
 *	struct pcache c;
 *
 *	pcache_init(&c);
 *	for each record r of process pid:
 *		if (r.type == PGFT_FILE) pcache_file(&c, pid, &r);
 *		if (r.type == PGFT_CACHE) pcache_ref(&c, pid, &r);
 *	... c.files[0 .. c.nfiles), c.total ...
 *	pcache_free(&c);
 *
 * Both return 0, or -1 with errno set (ENOMEM; EINVAL for a "cache" of a
 * file the trace never named). Memory is bounded by the files and the
 * distinct pages used.
 */
#ifndef PGFT_PCACHE_H
#define PGFT_PCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pageid.h"
#include "pgftrace.h"

/* What a file's (or the whole trace's) references came to. */
struct pcache_stats {
	/* pages per enum pgft_cache, reads ([0]) and writes ([1]) */
	uint64_t pages[PGFT_NCACHE][2];
	uint64_t runs;			/* records, readahead ones excluded */
	uint64_t seq, random;		/* of those runs: see pcache_ref() */
	uint64_t distinct;		/* pages used (not readahead), once each */
	uint64_t readahead_runs;
};

struct pcache_file {
	int pid;			/* its process */
	unsigned long long id;		/* its id in that process's trace */
	unsigned int major, minor;
	unsigned long long inode;
	char *path;
	struct pcache_stats st;
	uint64_t next;			/* where its last run ended */
	bool any;			/* it has had a run */
	/* the pages used below PCACHE_BITMAP_PAGES, a bit each */
	uint64_t *used;
	size_t nused;			/* words of it */
};

/*
 * The distinct pages of a file: a bit a page below this index (a 512 GiB
 * file of 4 KiB pages: 16 MiB of bits, as its reads reach them), a hash
 * table's entry above.
 */
#define PCACHE_BITMAP_PAGES	(1ULL << 27)

struct pcache {
	struct pcache_file *files;	/* in the order they were named */
	size_t nfiles, cap;
	/* (pid, id) -> index in files + 1: open addressing */
	uint64_t *keys;
	uint32_t *vals;
	size_t nslots;
	struct pgid_map pages;		/* (file, page) used */
	struct pcache_stats total;
};

/* The pages of @s used: every state but readahead. */
uint64_t pcache_used(const struct pcache_stats *s);
/* Of those, the pages reads (@w 0) or writes (1) used. */
uint64_t pcache_used_by(const struct pcache_stats *s, int w);
/* The pages of @s in state @k (enum pgft_cache), read or written. */
static inline uint64_t pcache_pages(const struct pcache_stats *s, int k)
{
	return s->pages[k][0] + s->pages[k][1];
}
/* Of those that went through the cache (hit, miss): the share of hits. */
double pcache_hit_ratio(const struct pcache_stats *s);

void pcache_init(struct pcache *c);
/* A "file" record of process @pid: the file it names. */
int pcache_file(struct pcache *c, int pid, const struct pgft_rec *r);
/*
 * A "cache" record of process @pid. A run (not readahead) is sequential
 * if it starts where the file's previous run ended or in that run's last
 * page (reads of less than a page go on in it), or at page 0 for the
 * file's first; random otherwise.
 */
int pcache_ref(struct pcache *c, int pid, const struct pgft_rec *r);
/* The file of (@pid, @id), or NULL. */
struct pcache_file *pcache_find(const struct pcache *c, int pid,
				unsigned long long id);
void pcache_free(struct pcache *c);

#endif
