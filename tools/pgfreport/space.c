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

static void oom(void)
{
	fprintf(stderr, "%s: out of memory\n", pgft_prog);
	exit(1);
}

/* Add @times to the count of @page; true if it is new. */
static bool ps_add_n(struct pageset *s, uint64_t page, uint32_t times)
{
	size_t i;

	if (2 * (s->nr + 1) > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		struct pageset n = { calloc(cap, 8), calloc(cap, 4), cap, 0 };

		if (!n.v || !n.n)
			oom();
		for (i = 0; i < s->cap; i++)
			if (s->v[i])
				ps_add_n(&n, s->v[i] - 1, s->n[i]);
		free(s->v);
		free(s->n);
		*s = n;
	}
	for (i = (page * 0x9e3779b97f4a7c15ULL) & (s->cap - 1); s->v[i];
	     i = (i + 1) & (s->cap - 1)) {
		if (s->v[i] == page + 1) {
			s->n[i] = s->n[i] > UINT32_MAX - times ? UINT32_MAX :
				  s->n[i] + times;
			return false;
		}
	}
	s->v[i] = page + 1;
	s->n[i] = times;
	s->nr++;
	return true;
}

uint32_t ps_count(const struct pageset *s, uint64_t page)
{
	size_t i;

	if (!s->cap)
		return 0;
	for (i = (page * 0x9e3779b97f4a7c15ULL) & (s->cap - 1); s->v[i];
	     i = (i + 1) & (s->cap - 1))
		if (s->v[i] == page + 1)
			return s->n[i];
	return 0;
}

/*
 * Note that @page faulted in region @id; true if it had not yet faulted in
 * that region (since it last faulted in another).
 */
static bool pm_mark(struct pagemark *m, uint64_t page, uint64_t id)
{
	size_t i;

	if (2 * (m->nr + 1) > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 1024;
		struct pagemark n = { calloc(cap, 8), calloc(cap, 8), cap, 0 };

		if (!n.page || !n.id)
			oom();
		for (i = 0; i < m->cap; i++)
			if (m->page[i])
				pm_mark(&n, m->page[i] - 1, m->id[i]);
		free(m->page);
		free(m->id);
		*m = n;
	}
	for (i = (page * 0x9e3779b97f4a7c15ULL) & (m->cap - 1); m->page[i];
	     i = (i + 1) & (m->cap - 1)) {
		if (m->page[i] == page + 1) {
			if (m->id[i] == id)
				return false;
			m->id[i] = id;
			return true;
		}
	}
	m->page[i] = page + 1;
	m->id[i] = id;
	m->nr++;
	return true;
}

static struct rstat *rstat_of(struct space *sp, unsigned long long id)
{
	size_t lo = 0, hi = sp->nr;

	/* Ids grow: they arrive in order, so the array stays sorted. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sp->r[mid].id == id)
			return &sp->r[mid];
		if (sp->r[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (sp->nr == sp->cap) {
		sp->cap = sp->cap ? 2 * sp->cap : 64;
		sp->r = realloc(sp->r, sp->cap * sizeof(*sp->r));
		if (!sp->r)
			oom();
	}
	memmove(&sp->r[lo + 1], &sp->r[lo], (sp->nr - lo) * sizeof(*sp->r));
	memset(&sp->r[lo], 0, sizeof(*sp->r));
	sp->r[lo].id = id;
	sp->nr++;
	return &sp->r[lo];
}

static void space_free(struct space *sp)
{
	for (size_t i = 0; i < sp->nr; i++)
		free(sp->r[i].name);
	free(sp->r);
	free(sp->pages.v);
	free(sp->pages.n);
	free(sp->where.page);
	free(sp->where.id);
	memset(sp, 0, sizeof(*sp));
}

/* The current address space ends: keep it if it is the one asked for. */
static void space_next(struct spaces *s)
{
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

void space_rec(struct spaces *s, const struct pgft_rec *r)
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
		g->start = r->start;
		g->end = r->end;
		memcpy(g->perms, r->perms, 5);
		free(g->name);
		g->name = strdup(r->name);
		if (!g->name)
			oom();
		g->alive = true;
		break;
	case PGFT_UNMAP:
		rstat_of(&s->cur, r->id)->alive = false;
		break;
	default:
		break;
	}
}

void space_prefetch(struct spaces *s, uint64_t page)
{
	const struct space *sp = &s->cur;
	size_t h = page * 0x9e3779b97f4a7c15ULL;

	if (sp->pages.cap) {
		__builtin_prefetch(&sp->pages.v[h & (sp->pages.cap - 1)]);
		__builtin_prefetch(&sp->pages.n[h & (sp->pages.cap - 1)]);
	}
	if (sp->where.cap) {
		__builtin_prefetch(&sp->where.page[h & (sp->where.cap - 1)]);
		__builtin_prefetch(&sp->where.id[h & (sp->where.cap - 1)]);
	}
}

void space_fault(struct spaces *s, const struct pgft_rec *r,
		 const struct pgft_region *g, unsigned long page_size)
{
	struct space *sp = &s->cur;
	struct rstat *st;

	if (!pgft_counted(r->result)) {
		sp->failed++;
		return;
	}
	sp->faults++;
	sp->major += r->result == PGFT_MAJOR;
	sp->reref += r->result == PGFT_REREF;
	ps_add_n(&sp->pages, r->addr / page_size, 1);
	if (!g)
		return;
	st = rstat_of(sp, g->id);
	if (!st->touched)
		st->first_ns = r->time;
	st->touched = true;
	st->pages_touched += pm_mark(&sp->where, r->addr / page_size, g->id);
	st->faults++;
	st->major += r->result == PGFT_MAJOR;
	st->reref += r->result == PGFT_REREF;
}

static int cmp_start(const void *a, const void *b)
{
	const struct rstat *x = a, *y = b;

	if (x->alive != y->alive)
		return x->alive ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

struct space *space_end(struct spaces *s)
{
	if (s->want < 0 || s->want == s->index) {
		space_free(&s->chosen);
		s->chosen = s->cur;
		s->shown = s->index;
		memset(&s->cur, 0, sizeof(s->cur));
	}
	if (s->shown < 0)
		return NULL;
	qsort(s->chosen.r, s->chosen.nr, sizeof(*s->chosen.r), cmp_start);
	return &s->chosen;
}

void spaces_free(struct spaces *s)
{
	space_free(&s->cur);
	space_free(&s->chosen);
}

struct space *spaces_result(struct pass *ps, struct spaces *s, int *status)
{
	struct space *sp = space_end(s);

	if (!sp) {
		*status = pass_error(ps, "%s has address spaces 0 to %ld; there is "
				     "no --space %ld", ps->fname, s->index, s->want);
		return NULL;
	}
	return ps->pid && !ps->pid_seen ? NULL : sp;
}
