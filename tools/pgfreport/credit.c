// SPDX-License-Identifier: GPL-2.0
/*
 * credit - the region a page's references count for, by the final
 * layout of its address space (credit.h).
 */
#include <stdlib.h>
#include <string.h>
#include "credit.h"
#include "pass.h"

int64_t credit_space(struct credits *c, long sp)
{
	int64_t n = pgid_get(&c->tags->spaces, (uint64_t)sp);

	if (n >= 0 && (size_t)n >= c->nkey) {
		size_t cap = c->nkey ? 2 * c->nkey : 16;
		long *k;

		while (cap <= (size_t)n)
			cap *= 2;
		k = realloc(c->key, cap * sizeof(*k));
		if (!k)
			return -1;
		for (size_t i = c->nkey; i < cap; i++)
			k[i] = -1;
		c->key = k;
		c->nkey = cap;
	}
	if (n >= 0)
		c->key[n] = sp;
	return n;
}

/* qsort_r(): tags by their regions' starts, @arg the regtags */
static int cmp_start(const void *a, const void *b, void *arg)
{
	const struct regtags *tags = arg;
	const struct regtag *x = &tags->v[*(const uint32_t *)a - 1];
	const struct regtag *y = &tags->v[*(const uint32_t *)b - 1];

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Address space @sp ends with the regions of @as: its final layout, kept
 * if a page referenced in it needs one.
 */
static int keep_layout(struct credits *c, long sp, const struct pgft_space *as)
{
	const struct pgid_slot *s = pgid_lookup(&c->tags->spaces, (uint64_t)sp);
	struct credit_layout *l;
	uint32_t n;

	if (!s)
		return 0;	/* nothing was referenced in it */
	n = s->id;
	if (n >= c->nfinal) {
		size_t cap = n + 1 > 2 * c->nfinal ? n + 1 : 2 * c->nfinal;
		struct credit_layout *f = realloc(c->final, cap * sizeof(*f));

		if (!f)
			return -1;
		memset(f + c->nfinal, 0, (cap - c->nfinal) * sizeof(*f));
		c->final = f;
		c->nfinal = cap;
	}
	l = &c->final[n];
	free(l->tag);
	l->nr = 0;
	l->tag = malloc((as->nr ? as->nr : 1) * sizeof(*l->tag));
	if (!l->tag)
		return -1;
	for (size_t i = 0; i < as->nr; i++) {
		const struct pgft_region *g = &as->v[i];
		uint64_t tag = regtag_of(c->tags, sp, g);
		struct regtag *t;

		if (!tag)
			return -1;	/* out of memory */
		t = &c->tags->v[tag - 1];

		t->alive = true;
		t->start = g->start;
		t->end = g->end;
		t->offset = g->offset;
		l->tag[l->nr++] = tag;
	}
	qsort_r(l->tag, l->nr, sizeof(*l->tag), cmp_start, c->tags);
	return 0;
}

int credit_rec(struct credits *c, struct pass *ps, const struct pgft_rec *r)
{
	long sp = pass_space_key(ps);
	struct regtag *t;
	uint64_t tag;

	switch (r->type) {
	case PGFT_MAP:
	case PGFT_CHANGE:
		/* a region referenced before: where it is now */
		tag = regtag_peek(c->tags, sp, r->id);
		if (!tag)
			break;
		t = &c->tags->v[tag - 1];
		t->start = r->start;
		t->end = r->end;
		t->offset = r->offset;
		break;
	case PGFT_EXEC:
		return keep_layout(c, sp, ps->replay.whole ? &ps->replay.P->as : &ps->replay.as);
	default:
		break;
	}
	return 0;
}

int credit_end(struct credits *c, struct pass *ps)
{
	if (!ps->replay.whole)
		return keep_layout(c, pass_space_key(ps), &ps->replay.as);
	for (size_t i = 0; i < ps->replay.pt.nr; i++) {
		const struct ptree_proc *p = &ps->replay.pt.v[i];

		if (keep_layout(c, (long)p->index << 20 | p->space, &p->as))
			return -1;
	}
	return 0;
}

uint64_t credit_region(const struct credits *c, int64_t space,
		       unsigned long long addr, uint64_t latest)
{
	const struct credit_layout *l;
	const struct regtag *t;
	size_t lo = 0, n;

	if (space < 0 || (size_t)space >= c->nfinal)
		return 0;
	l = &c->final[space];
	/* the last region of the final layout that starts at or below @addr */
	for (n = l->nr; n;) {
		size_t half = n / 2;

		if (c->tags->v[l->tag[lo + half] - 1].start <= addr) {
			lo += half + 1;
			n -= half + 1;
		} else {
			n = half;
		}
	}
	if (lo && addr < c->tags->v[l->tag[lo - 1] - 1].end)
		return l->tag[lo - 1];
	if (!latest)
		return 0;
	t = &c->tags->v[latest - 1];
	return !t->alive && t->start <= addr && addr < t->end ? latest : 0;
}

void credits_free(struct credits *c)
{
	for (size_t i = 0; i < c->nfinal; i++)
		free(c->final[i].tag);
	free(c->final);
	free(c->key);
	memset(c, 0, sizeof(*c));
}
