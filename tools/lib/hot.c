// SPDX-License-Identifier: GPL-2.0
/*
 * hot - a count per (page, tag) in an open-addressing table, and its top
 * N through a min-heap. See hot.h.
 */
#include <stdlib.h>
#include <string.h>
#include "hot.h"
#include "table.h"

/*
 * By page alone: a page under several tags (an exec, a remapping) is rare,
 * and a fault's slot can then be prefetched before its tag is known.
 */
static size_t hot_hash(uint64_t page, size_t cap)
{
	uint64_t k = page * 0x9e3779b97f4a7c15ULL;

	return (size_t)(k >> 32 ^ k) & (cap - 1);
}

void hot_prefetch(const struct hot *h, uint64_t page)
{
	if (h->cap)
		__builtin_prefetch(&h->v[hot_hash(page, h->cap)]);
}

static struct hot_entry *hot_slot(struct hot_entry *v, size_t cap,
				  uint64_t page, uint64_t tag)
{
	size_t i = hot_hash(page, cap);

	while (v[i].refs && (v[i].page != page || v[i].tag != tag))
		i = (i + 1) & (cap - 1);
	return &v[i];
}

static int hot_grow(struct hot *h)
{
	size_t cap = h->cap ? 2 * h->cap : 1024;
	struct hot_entry *v = table_calloc(cap, sizeof(*v));

	if (!v)
		return -1;
	for (size_t i = 0; i < h->cap; i++)
		if (h->v[i].refs)
			*hot_slot(v, cap, h->v[i].page, h->v[i].tag) = h->v[i];
	table_free(h->v, h->cap, sizeof(*h->v));
	h->v = v;
	h->cap = cap;
	return 0;
}

int hot_ref(struct hot *h, uint64_t page, uint64_t tag, uint64_t aux)
{
	struct hot_entry *e;

	if (4 * (h->nr + 1) > 3 * h->cap && hot_grow(h))
		return -1;
	e = hot_slot(h->v, h->cap, page, tag);
	if (!e->refs) {
		e->page = page;
		e->tag = tag;
		e->aux = aux;
		h->nr++;
	}
	e->refs++;
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
	for (size_t i = 0; i < h->cap; i++) {
		const struct hot_entry *e = &h->v[i];

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
	table_free(h->v, h->cap, sizeof(*h->v));
	memset(h, 0, sizeof(*h));
}
