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

/* A page's slot in the table by page: what hot_prefetch() loads. */
static size_t hot_hash(uint64_t page, size_t cap)
{
	uint64_t k = page * 0x9e3779b97f4a7c15ULL;

	return (size_t)(k >> 32 ^ k) & (cap - 1);
}

void hot_prefetch(const struct hot *h, uint64_t page)
{
	if (h->now.cap)
		__builtin_prefetch(&h->now.v[hot_hash(page, h->now.cap)]);
}

/* The slot of @page in the table by page. */
static inline struct hot_entry *hot_slot_now(const struct hot_table *t,
					     uint64_t page)
{
	size_t i = hot_hash(page, t->cap);

	while (t->v[i].refs && t->v[i].page != page)
		i = (i + 1) & (t->cap - 1);
	return &t->v[i];
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
static int hot_grow(struct hot_table *t, bool by_tag)
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
			*(by_tag ? hot_slot_old(&n, t->v[i].page, t->v[i].tag) :
			  hot_slot_now(&n, t->v[i].page)) = t->v[i];
	table_free(t->v, t->cap, sizeof(*t->v));
	*t = n;
	return 0;
}

/* Room for one more entry in @t (at most 3/4 full); 0 or -1. */
static inline int hot_room(struct hot_table *t, bool by_tag)
{
	return 4 * (t->nr + 1) <= 3 * t->cap ? 0 : hot_grow(t, by_tag);
}

int hot_ref(struct hot *h, uint64_t page, uint64_t tag, uint64_t aux)
{
	struct hot_entry *e, *o;

	if (hot_room(&h->now, false))
		return -1;
	e = hot_slot_now(&h->now, page);
	if (e->refs && e->tag == tag) {
		e->refs++;
		h->refs++;
		return 0;
	}
	if (!e->refs) {
		h->now.nr++;
	} else {
		/* An earlier tag of the page: counted where it was parked. */
		if (h->old.cap) {
			o = hot_slot_old(&h->old, page, tag);
			if (o->refs) {
				o->refs++;
				h->refs++;
				return 0;
			}
		}
		/* A new one: the page's latest goes to the earlier ones. */
		if (hot_room(&h->old, true))
			return -1;
		*hot_slot_old(&h->old, e->page, e->tag) = *e;
		h->old.nr++;
	}
	e->page = page;
	e->tag = tag;
	e->aux = aux;
	e->refs = 1;
	h->nr++;
	h->refs++;
	return 0;
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

long hot_top(const struct hot *h, struct hot_entry *out, size_t n)
{
	size_t nr = 0;

	if (!n)
		return 0;
	/* out[] is a heap of the best seen so far, the weakest on top. */
	for (size_t i = 0; i < h->now.cap + h->old.cap; i++) {
		const struct hot_entry *e = i < h->now.cap ? &h->now.v[i] :
					    &h->old.v[i - h->now.cap];

		if (!e->refs)
			continue;
		if (nr < n) {
			out[nr] = *e;
			sift_up(out, nr++);
		} else if (hot_before(e, &out[0])) {
			out[0] = *e;
			sift_down(out, nr, 0);
		}
	}
	/* Take the weakest off the top, filling from the back. */
	for (size_t k = nr; k > 1; k--) {
		struct hot_entry t = out[0];

		out[0] = out[k - 1];
		out[k - 1] = t;
		sift_down(out, k - 1, 0);
	}
	return (long)nr;
}

void hot_free(struct hot *h)
{
	table_free(h->now.v, h->now.cap, sizeof(*h->now.v));
	table_free(h->old.v, h->old.cap, sizeof(*h->old.v));
	memset(h, 0, sizeof(*h));
}
