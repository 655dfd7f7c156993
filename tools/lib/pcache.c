// SPDX-License-Identifier: GPL-2.0
/*
 * pcache - the page cache references of a trace, per file (pcache.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "pcache.h"

/* A page of file number @f (an index in c->files) as one 64-bit key. */
#define PCACHE_PAGE_BITS	40
#define PCACHE_FILE_MAX		((1ULL << (64 - PCACHE_PAGE_BITS)) - 2)

uint64_t pcache_used_by(const struct pcache_stats *s, int w)
{
	uint64_t n = 0;

	for (int k = 0; k < PGFT_NCACHE; k++)
		if (k != PGFT_READAHEAD)
			n += s->pages[k][w];
	return n;
}

uint64_t pcache_used(const struct pcache_stats *s)
{
	return pcache_used_by(s, 0) + pcache_used_by(s, 1);
}

double pcache_hit_ratio(const struct pcache_stats *s)
{
	uint64_t hit = s->pages[PGFT_HIT][0] + s->pages[PGFT_HIT][1];
	uint64_t miss = s->pages[PGFT_MISS][0] + s->pages[PGFT_MISS][1];

	return hit + miss ? (double)hit / (hit + miss) : 0.0;
}

void pcache_init(struct pcache *c)
{
	memset(c, 0, sizeof(*c));
}

static uint64_t key_of(int pid, unsigned long long id)
{
	return ((uint64_t)(uint32_t)pid << 32 | (id & 0xffffffffULL)) + 1;
}

static size_t slot_of(const struct pcache *c, uint64_t key)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 17) & (c->nslots - 1);

	while (c->keys[i] && c->keys[i] != key)
		i = (i + 1) & (c->nslots - 1);
	return i;
}

static int rehash(struct pcache *c)
{
	size_t n = c->nslots ? 2 * c->nslots : 64, old = c->nslots;
	uint64_t *keys = c->keys;
	uint32_t *vals = c->vals;

	c->keys = calloc(n, sizeof(*c->keys));
	c->vals = calloc(n, sizeof(*c->vals));
	if (!c->keys || !c->vals) {
		free(c->keys);
		free(c->vals);
		c->keys = keys;
		c->vals = vals;
		errno = ENOMEM;
		return -1;
	}
	c->nslots = n;
	for (size_t i = 0; i < old; i++) {
		if (keys[i]) {
			size_t j = slot_of(c, keys[i]);

			c->keys[j] = keys[i];
			c->vals[j] = vals[i];
		}
	}
	free(keys);
	free(vals);
	return 0;
}

struct pcache_file *pcache_find(const struct pcache *c, int pid,
				unsigned long long id)
{
	size_t i;

	if (!c->nslots || id > 0xffffffffULL)
		return NULL;
	i = slot_of(c, key_of(pid, id));
	return c->keys[i] ? &c->files[c->vals[i] - 1] : NULL;
}

int pcache_file(struct pcache *c, int pid, const struct pgft_rec *r)
{
	struct pcache_file *f;
	size_t i;

	if (r->id > 0xffffffffULL || c->nfiles >= PCACHE_FILE_MAX) {
		errno = EINVAL;
		return -1;
	}
	if (2 * (c->nfiles + 1) > c->nslots && rehash(c))
		return -1;
	i = slot_of(c, key_of(pid, r->id));
	if (c->keys[i]) {
		/* Named again (a trace read twice?): the latest name. */
		f = &c->files[c->vals[i] - 1];
	} else {
		if (c->nfiles == c->cap) {
			size_t cap = c->cap ? 2 * c->cap : 16;
			struct pcache_file *v = realloc(c->files, cap * sizeof(*v));

			if (!v) {
				errno = ENOMEM;
				return -1;
			}
			c->files = v;
			c->cap = cap;
		}
		f = &c->files[c->nfiles];
		memset(f, 0, sizeof(*f));
		c->keys[i] = key_of(pid, r->id);
		c->vals[i] = ++c->nfiles;
	}
	free(f->path);
	f->path = strdup(r->name);
	if (!f->path) {
		errno = ENOMEM;
		return -1;
	}
	f->pid = pid;
	f->id = r->id;
	f->major = r->major;
	f->minor = r->minor;
	f->inode = r->inode;
	return 0;
}

int pcache_ref(struct pcache *c, int pid, const struct pgft_rec *r)
{
	struct pcache_file *f = pcache_find(c, pid, r->id);
	int w = r->access == 'w';
	uint64_t fk;

	if (!f) {
		errno = EINVAL;
		return -1;
	}
	f->st.pages[r->cache][w] += r->n[0];
	c->total.pages[r->cache][w] += r->n[0];
	if (r->cache == PGFT_READAHEAD) {
		f->st.readahead_runs++;
		c->total.readahead_runs++;
		return 0;
	}
	f->st.runs++;
	c->total.runs++;
	/* where the last ended, or in its last page: a read of part of it */
	if (f->any ? r->start == f->next || r->start + 1 == f->next :
		     r->start == 0) {
		f->st.seq++;
		c->total.seq++;
	} else {
		f->st.random++;
		c->total.random++;
	}
	f->any = true;
	f->next = r->start + r->n[0];
	/* distinct pages: a bit each, or (file, page) keys far in a file */
	fk = (uint64_t)(f - c->files) << PCACHE_PAGE_BITS;
	for (unsigned long long p = r->start; p < r->start + r->n[0]; p++) {
		struct pgid_slot *s;

		if (p < PCACHE_BITMAP_PAGES) {
			size_t w = p / 64;
			uint64_t bit = 1ULL << (p % 64);

			if (w >= f->nused) {
				size_t n = f->nused ? f->nused : 16;
				uint64_t *v;

				while (n <= w)
					n *= 2;
				v = realloc(f->used, n * sizeof(*v));
				if (!v) {
					errno = ENOMEM;
					return -1;
				}
				memset(v + f->nused, 0, (n - f->nused) * sizeof(*v));
				f->used = v;
				f->nused = n;
			}
			if (!(f->used[w] & bit)) {
				f->used[w] |= bit;
				f->st.distinct++;
				c->total.distinct++;
			}
			continue;
		}
		if (p >> PCACHE_PAGE_BITS) {
			errno = EINVAL;	/* a file of more than 2^40 pages */
			return -1;
		}
		s = pgid_slot(&c->pages, fk | p);
		if (!s) {
			errno = ENOMEM;
			return -1;
		}
		if (!s->val) {
			s->val = 1;
			f->st.distinct++;
			c->total.distinct++;
		}
	}
	return 0;
}

void pcache_free(struct pcache *c)
{
	for (size_t i = 0; i < c->nfiles; i++) {
		free(c->files[i].path);
		free(c->files[i].used);
	}
	free(c->files);
	free(c->keys);
	free(c->vals);
	pgid_free(&c->pages);
	memset(c, 0, sizeof(*c));
}
