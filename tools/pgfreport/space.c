// SPDX-License-Identifier: GPL-2.0
/*
 * space - the regions of an address space and the faults in each, for
 * the map and the summary (space.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pass.h"
#include "space.h"
#include "../lib/table.h"

/* Say what failed, once: @sp keeps no more (sp->nomem). */
static void fail(struct space *sp, const char *what)
{
	if (!sp->nomem)
		fprintf(stderr, "%s: %s\n", pgft_prog, what);
	sp->nomem = true;
}

static inline size_t ps_hash(uint64_t page, size_t cap)
{
	return (page * 0x9e3779b97f4a7c15ULL) >> 32 & (cap - 1);
}

/* Double the table (at most half full: short probes); 0, or -1. */
static int ps_grow(struct pageset *s)
{
	size_t cap = s->cap ? 2 * s->cap : 1024, i, j;
	struct pageslot *n = table_calloc(cap, sizeof(*n));

	if (!n)
		return -1;
	for (i = 0; i < s->cap; i++) {
		if (!s->slot[i].key)
			continue;
		for (j = ps_hash(s->slot[i].key - 1, cap); n[j].key; j = (j + 1) & (cap - 1))
			;
		n[j] = s->slot[i];
	}
	table_free(s->slot, s->cap, sizeof(*s->slot));
	s->slot = n;
	s->cap = cap;
	return 0;
}

/* Add @page, and what was kept of it; 0, or -1 out of memory. */
static int ps_add(struct pageset *s, uint64_t page, const struct space_page *p)
{
	size_t i;

	if (2 * (s->nr + 1) > s->cap && ps_grow(s))
		return -1;
	for (i = ps_hash(page, s->cap); s->slot[i].key; i = (i + 1) & (s->cap - 1))
		;
	s->slot[i].key = page + 1;
	s->slot[i].p = *p;
	s->nr++;
	return 0;
}

static const struct space_page *ps_find(const struct pageset *s, uint64_t page)
{
	size_t i;

	if (!s->cap)
		return NULL;
	for (i = ps_hash(page, s->cap); s->slot[i].key; i = (i + 1) & (s->cap - 1))
		if (s->slot[i].key == page + 1)
			return &s->slot[i].p;
	return NULL;
}

/*
 * The search and the insertion: once a region (rstat_of() below); NULL
 * when there is no room (sp->nomem).
 */
static __attribute__((noinline)) struct rstat *
rstat_find(struct space *sp, unsigned long long id, uint32_t *memo)
{
	size_t lo = 0, n = sp->nr;

	/*
	 * Ids grow: they arrive in order, so the array stays sorted. The
	 * first at or above @id, by conditional moves: faults spread over a
	 * few regions would mispredict a plain binary search's branches.
	 */
	while (n) {
		size_t half = n / 2;
		bool less = sp->r[lo + half].id < id;

		lo = less ? lo + half + 1 : lo;
		n = less ? n - half - 1 : half;
	}
	if (lo < sp->nr && sp->r[lo].id == id) {
		*memo = lo + 1;
		return &sp->r[lo];
	}
	if (sp->nomem)
		return NULL;
	if (sp->nr == sp->cap) {
		size_t cap = sp->cap ? 2 * sp->cap : 64;
		struct rstat *r = realloc(sp->r, cap * sizeof(*r));

		if (!r) {
			fail(sp, "out of memory");
			return NULL;
		}
		sp->r = r;
		sp->cap = cap;
	}
	if (sp->ords == UINT32_MAX - 1) {
		fail(sp, "more than 4294967294 regions in one address space");
		return NULL;
	}
	memmove(&sp->r[lo + 1], &sp->r[lo], (sp->nr - lo) * sizeof(*sp->r));
	memset(sp->memo, 0, sizeof(sp->memo));	/* the ones after moved */
	memset(&sp->r[lo], 0, sizeof(*sp->r));
	sp->r[lo].id = id;
	sp->r[lo].ord = sp->ords++;
	sp->nr++;
	return &sp->r[lo];
}

/* Region @id's, added if new; NULL if there is no room (sp->nomem). */
static inline struct rstat *rstat_of(struct space *sp, unsigned long long id)
{
	uint32_t *memo = &sp->memo[id & (SPACE_MEMO - 1)];

	/* The last one found of the ids that agree in their low bits. */
	if (*memo && sp->r[*memo - 1].id == id)
		return &sp->r[*memo - 1];
	return rstat_find(sp, id, memo);
}

static void space_free(struct space *sp)
{
	for (size_t i = 0; i < sp->nr; i++)
		free(sp->r[i].name);
	free(sp->r);
	free(sp->first);
	memset(sp, 0, sizeof(*sp));
}

int spaces_begin(struct spaces *s, struct pass *ps)
{
	s->ps = ps;
	return pass_reserve(ps, sizeof(struct space_page), &s->off);
}

/*
 * The pages of the current address space out of the pass's slots, which
 * later ones will count in: it is --space N, and ends before the last.
 */
static void space_freeze(struct spaces *s)
{
	struct pgid_slot *slot;
	size_t i = 0;

	while ((slot = pass_next_page(s->ps, &i))) {
		const struct space_page *p = pgid_data(slot, s->off);

		if (p->gen == s->index + 1 && ps_add(&s->frozen, slot->key - 1, p)) {
			fail(&s->cur, "out of memory");
			break;
		}
	}
	s->is_frozen = true;
}

/* The current address space ends: keep it if it is the one asked for. */
static void space_next(struct spaces *s)
{
	if (s->want == s->index)
		space_freeze(s);
	s->nomem |= s->cur.nomem;
	if (s->want == s->index || s->want < 0) {
		space_free(&s->chosen);
		s->chosen = s->cur;
		s->shown = s->index;
	} else {
		space_free(&s->cur);
	}
	memset(&s->cur, 0, sizeof(s->cur));
	s->index++;
}

int space_rec(struct spaces *s, const struct pgft_rec *r)
{
	struct rstat *g;

	switch (r->type) {
	case PGFT_EXEC:
		space_next(s);
		break;
	case PGFT_LAYOUT:
		for (size_t i = 0; i < s->cur.nr; i++)
			s->cur.r[i].alive = false;
		break;
	case PGFT_MAP:
	case PGFT_CHANGE:
		g = rstat_of(&s->cur, r->id);
		if (!g)
			break;
		g->start = r->start;
		g->end = r->end;
		memcpy(g->perms, r->perms, 5);
		free(g->name);
		g->name = strdup(r->name);
		if (!g->name)
			fail(&s->cur, "out of memory");
		g->alive = true;
		break;
	case PGFT_UNMAP:
		g = rstat_of(&s->cur, r->id);
		if (g)
			g->alive = false;
		break;
	default:
		break;
	}
	return s->cur.nomem ? -1 : 0;
}

int space_fault(struct spaces *s, const struct pgft_rec *r,
		const struct pgft_region *g)
{
	struct space *sp = &s->cur;
	struct space_page *p;
	struct rstat *st;

	if (!pgft_counted(r->result)) {
		sp->failed++;
		return 0;
	}
	sp->faults++;
	sp->major += r->result == PGFT_MAJOR;
	sp->reref += r->result == PGFT_REREF;
	if (sp->nomem)
		return -1;
	p = pass_state(s->ps, s->off);
	/* the page's first fault in this address space */
	if (p->gen != s->index + 1) {
		uint64_t *first = sp->first;

		if (sp->pages == UINT32_MAX) {
			fail(sp, "more than 4294967295 pages in one address space");
			return -1;
		}
		/* a power of two: double it */
		if (!(sp->pages & (sp->pages - 1)) && sp->pages >= 1024)
			first = realloc(sp->first, 2 * sp->pages * sizeof(*sp->first));
		else if (!sp->pages)
			first = malloc(1024 * sizeof(*sp->first));
		if (!first) {
			fail(sp, "out of memory");
			return -1;
		}
		sp->first = first;
		sp->first[sp->pages] = r->time;
		*p = (struct space_page){ .gen = s->index + 1,
					  .first = sp->pages++ };
	}
	p->n += p->n < UINT32_MAX;
	p->major += r->result == PGFT_MAJOR && p->major < UINT32_MAX;
	p->reref += r->result == PGFT_REREF && p->reref < UINT32_MAX;
	if (g && (st = rstat_of(sp, g->id)))
		p->reg = st->ord + 1;
	return sp->nomem ? -1 : 0;
}

static int cmp_start(const void *a, const void *b)
{
	const struct rstat *x = a, *y = b;

	if (x->alive != y->alive)
		return x->alive ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The region alive at the end that holds @addr, or NULL. */
static struct rstat *alive_at(const struct space *sp, unsigned long long addr)
{
	size_t lo = 0, n = sp->alive;

	/* the last one that starts at or below @addr */
	while (n) {
		size_t half = n / 2;

		if (sp->r[lo + half].start <= addr) {
			lo += half + 1;
			n -= half + 1;
		} else {
			n = half;
		}
	}
	if (!lo || addr >= sp->r[lo - 1].end)
		return NULL;
	return &sp->r[lo - 1];
}

/* What is kept of @page in the address space shown, or NULL. */
static const struct space_page *page_of(const struct spaces *s, uint64_t page)
{
	struct pgid_slot *slot;
	const struct space_page *p;

	if (s->is_frozen)
		return ps_find(&s->frozen, page);
	slot = s->ps ? pgid_lookup(&s->ps->pages, page) : NULL;
	if (!slot)
		return NULL;
	p = pgid_data(slot, s->off);
	return p->gen == s->shown + 1 ? p : NULL;
}

/*
 * The region @page's faults are credited to: the one alive at the end
 * that holds it, else the last that held it at one of its faults if that
 * one was removed holding it; NULL if none did, or if that one no longer
 * held the page at the end or at its removal (it shrank or moved). A page
 * of a file (--files: the faults of a mapping of it) has no address: the
 * last region it faulted in.
 */
static struct rstat *credited(const struct spaces *s, uint64_t page,
			      const struct space_page *p, struct rstat **by_ord)
{
	unsigned long long addr = page * s->ps->trace.page_size;
	struct rstat *r;

	if (s->ps->files && (page & PASS_FILE_PAGE))
		return p->reg ? by_ord[p->reg - 1] : NULL;
	r = alive_at(&s->chosen, addr);

	if (r || !p->reg)
		return r;
	r = by_ord[p->reg - 1];
	return !r->alive && r->start <= addr && addr < r->end ? r : NULL;
}

static void credit(const struct space *sp, struct rstat *r,
		   const struct space_page *p)
{
	if (!r->touched || sp->first[p->first] < r->first_ns)
		r->first_ns = sp->first[p->first];
	r->touched = true;
	r->pages_touched++;
	r->faults += p->n;
	r->major += p->major;
	r->reref += p->reref;
}

/* Every page's faults to the region credited with them. */
static void space_credit(struct spaces *s)
{
	struct space *sp = &s->chosen;
	struct rstat **by_ord = calloc(sp->ords ? sp->ords : 1, sizeof(*by_ord));
	struct pgid_slot *slot;
	size_t i;

	if (!by_ord) {
		fail(sp, "out of memory");
		return;
	}
	for (i = 0; i < sp->nr; i++) {
		struct rstat *r = &sp->r[i];

		by_ord[r->ord] = r;
		r->faults = r->major = r->reref = r->pages_touched = 0;
		r->first_ns = 0;
		r->touched = false;
	}
	sp->pages_out = sp->faults_out = 0;
	for (sp->alive = 0; sp->alive < sp->nr && sp->r[sp->alive].alive;)
		sp->alive++;
	if (s->is_frozen) {
		for (i = 0; i < s->frozen.cap; i++) {
			const struct pageslot *f = &s->frozen.slot[i];
			struct rstat *r;

			if (!f->key)
				continue;
			r = credited(s, f->key - 1, &f->p, by_ord);
			if (r) {
				credit(sp, r, &f->p);
			} else {
				sp->pages_out++;
				sp->faults_out += f->p.n;
			}
		}
	} else {
		i = 0;
		while ((slot = pass_next_page(s->ps, &i))) {
			const struct space_page *p = pgid_data(slot, s->off);
			struct rstat *r;

			if (p->gen != s->shown + 1)
				continue;
			r = credited(s, slot->key - 1, p, by_ord);
			if (r) {
				credit(sp, r, p);
			} else {
				sp->pages_out++;
				sp->faults_out += p->n;
			}
		}
	}
	free(by_ord);
}

struct space *space_end(struct spaces *s)
{
	if (s->want < 0 || s->want == s->index) {
		space_free(&s->chosen);
		s->chosen = s->cur;
		s->shown = s->index;
		memset(&s->cur, 0, sizeof(s->cur));
	}
	s->nomem |= s->cur.nomem;
	if (s->shown < 0)
		return NULL;
	qsort(s->chosen.r, s->chosen.nr, sizeof(*s->chosen.r), cmp_start);
	if (!s->chosen.nomem)
		space_credit(s);
	s->nomem |= s->chosen.nomem;
	return &s->chosen;
}

uint32_t space_count_in(const struct spaces *s, const struct rstat *r,
			uint64_t page)
{
	const struct space_page *p = page_of(s, page);
	const struct rstat *c;

	if (!p)
		return 0;
	if (r->alive)
		return p->n;	/* it holds the page: credited */
	c = alive_at(&s->chosen, page * s->ps->trace.page_size);
	if (c || !p->reg)
		return 0;
	return p->reg == r->ord + 1 ? p->n : 0;	/* @r holds @page */
}

void spaces_free(struct spaces *s)
{
	space_free(&s->cur);
	space_free(&s->chosen);
	table_free(s->frozen.slot, s->frozen.cap, sizeof(*s->frozen.slot));
	memset(&s->frozen, 0, sizeof(s->frozen));
	s->is_frozen = false;
}

struct space *spaces_result(struct pass *ps, struct spaces *s, int *status)
{
	struct space *sp = space_end(s);

	if (s->nomem) {
		*status = pass_status(*status, PGF_EXIT_FAIL);	/* said */
		return NULL;
	}
	if (!sp) {
		*status = pass_usage(ps, "%s has address spaces 0 to %ld; there is "
				     "no --space %ld", ps->trace.fname, s->index, s->want);
		return NULL;
	}
	return ps->pid && !ps->replay.pid_seen ? NULL : sp;
}
