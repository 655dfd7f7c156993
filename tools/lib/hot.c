// SPDX-License-Identifier: GPL-2.0
/*
 * hot - a count per (page, tag) in an open-addressing table, and its top
 * N through a min-heap. See hot.h.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "hot.h"
#include "table.h"

static size_t hot_hash(uint64_t page, size_t cap)
{
	uint64_t k = page * 0x9e3779b97f4a7c15ULL;

	return (size_t)(k >> 32 ^ k) & (cap - 1);
}

/* The slot of (@page, @tag) in the table of earlier tags. */
static struct hot_entry *hot_slot_old(const struct hot_table *t,
				      uint64_t page, uint64_t tag)
{
	size_t i = hot_hash(page ^ tag * 0xff51afd7ed558ccdULL, t->cap);

	while (t->v[i].refs && (t->v[i].page != page || t->v[i].tag != tag))
		i = (i + 1) & (t->cap - 1);
	return &t->v[i];
}

/* Double @t's slots. */
static int hot_grow(struct hot_table *t)
{
	size_t cap = t->cap ? 2 * t->cap : 1024;
	struct hot_entry *v;
	struct hot_table n;

	v = table_calloc(cap, sizeof(*v));
	if (!v)
		return -1;
	n = (struct hot_table){ .v = v, .cap = cap, .nr = t->nr };
	for (size_t i = 0; i < t->cap; i++)
		if (t->v[i].refs)
			*hot_slot_old(&n, t->v[i].page, t->v[i].tag) = t->v[i];
	table_free(t->v, t->cap, sizeof(*t->v));
	*t = n;
	return 0;
}

int hot_ref_at(struct hot *h, struct hot_page *e, uint64_t page, uint32_t tag,
	       uint64_t aux)
{
	struct hot_entry *o;

	if (e->refs && e->tag == tag) {
		e->refs++;
		h->refs++;
		if (h->aux_latest && aux)
			e->aux = aux;
		return 0;
	}
	if (e->refs) {
		/* An earlier tag of the page: counted where it was parked. */
		if (h->old.cap) {
			o = hot_slot_old(&h->old, page, tag);
			if (o->refs) {
				o->refs++;
				h->refs++;
				if (h->aux_latest && aux)
					o->aux = aux;
				return 0;
			}
		}
		/* A new one: the page's latest goes to the earlier ones. */
		if (4 * (h->old.nr + 1) > 3 * h->old.cap && hot_grow(&h->old))
			return -1;
		*hot_slot_old(&h->old, page, e->tag) = (struct hot_entry){
			.page = page, .tag = e->tag, .aux = e->aux, .refs = e->refs,
		};
		h->old.nr++;
	}
	e->tag = tag;
	e->aux = aux;
	e->refs = 1;
	h->nr++;
	h->refs++;
	return 0;
}

int hot_ref(struct hot *h, uint64_t page, uint32_t tag, uint64_t aux)
{
	struct pgid_slot *s;

	if (!h->ids.cap)
		pgid_set_data(&h->ids, sizeof(struct hot_page), false);
	s = pgid_slot(&h->ids, page);
	return s ? hot_ref_at(h, pgid_data(s, PGID_NOID_OFF), page, tag, aux) : -1;
}

/* Does @a rank before @b: more references, then lower page, lower tag? */
static int hot_before(const struct hot_entry *a, const struct hot_entry *b)
{
	if (a->refs != b->refs)
		return a->refs > b->refs;
	if (a->page != b->page)
		return a->page < b->page;
	return a->tag < b->tag;
}

/* Restore the heap (the entry ranked last on top) below @i. */
static void sift_down(struct hot_entry *heap, size_t nr, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct hot_entry t;

		if (l < nr && hot_before(&heap[m], &heap[l]))
			m = l;
		if (l + 1 < nr && hot_before(&heap[m], &heap[l + 1]))
			m = l + 1;
		if (m == i)
			return;
		t = heap[i];
		heap[i] = heap[m];
		heap[m] = t;
		i = m;
	}
}

static void sift_up(struct hot_entry *heap, size_t i)
{
	while (i && hot_before(&heap[(i - 1) / 2], &heap[i])) {
		struct hot_entry t = heap[i];

		heap[i] = heap[(i - 1) / 2];
		heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

/* Offer @e to the top: kept if among the best n so far. */
static void top_offer(struct hot_top *t, const struct hot_entry *e)
{
	/* out[] is a heap of the best seen so far, the weakest on top. */
	if (t->nr < t->n) {
		t->out[t->nr] = *e;
		sift_up(t->out, t->nr++);
	} else if (t->n && hot_before(e, &t->out[0])) {
		t->out[0] = *e;
		sift_down(t->out, t->nr, 0);
	}
}

void hot_top_add(struct hot_top *t, uint64_t page, const struct hot_page *p)
{
	struct hot_entry e = {
		.page = page, .tag = p->tag, .aux = p->aux, .refs = p->refs,
	};

	if (e.refs)
		top_offer(t, &e);
}

long hot_top_end(const struct hot *h, struct hot_top *t)
{
	struct pgid_slot *s;

	for (size_t i = 0; i < h->ids.cap; i++) {
		s = pgid_at(&h->ids, i);
		if (s->key)
			hot_top_add(t, s->key - 1, pgid_data(s, PGID_NOID_OFF));
	}
	for (size_t i = 0; i < h->old.cap; i++)
		if (h->old.v[i].refs)
			top_offer(t, &h->old.v[i]);
	/* Take the weakest off the top, filling from the back. */
	for (size_t k = t->nr; k > 1; k--) {
		struct hot_entry e = t->out[0];

		t->out[0] = t->out[k - 1];
		t->out[k - 1] = e;
		sift_down(t->out, k - 1, 0);
	}
	return (long)t->nr;
}

long hot_top(const struct hot *h, struct hot_entry *out, size_t n)
{
	struct hot_top t = { .out = out, .n = n };

	return hot_top_end(h, &t);
}

void hot_free(struct hot *h)
{
	pgid_free(&h->ids);
	table_free(h->old.v, h->old.cap, sizeof(*h->old.v));
	memset(h, 0, sizeof(*h));
}
