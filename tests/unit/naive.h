/* SPDX-License-Identifier: GPL-2.0 */
/*
 * naive.h - the slow, obviously right simulators the unit tests hold the
 * fast ones (tools/lib/reuse.c, mrc*.c) to: an LRU stack searched
 * linearly, FIFO and CLOCK as arrays of frames searched linearly, OPT
 * looking ahead through the whole rest of the string at every eviction,
 * and an exhaustive search over every possible eviction (the true
 * minimum, for tiny strings). O(n * m) and worse; for short strings.
 */
#ifndef PGF_NAIVE_H
#define PGF_NAIVE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A small random number generator with a seed, for repeatable tests. */
static inline uint64_t naive_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * LRU stack distances: dist[t] = the position of refs[t] in a stack of
 * the pages, most recently used on top (0), or -1 for a first reference.
 */
static inline void naive_lru_dist(const uint64_t *refs, size_t n, int64_t *dist)
{
	uint64_t *stack = malloc((n + 1) * sizeof(*stack));
	size_t depth = 0;

	for (size_t t = 0; t < n; t++) {
		size_t pos = 0;

		while (pos < depth && stack[pos] != refs[t])
			pos++;
		dist[t] = pos < depth ? (int64_t)pos : -1;
		if (pos == depth)
			depth++;
		memmove(&stack[1], &stack[0], pos * sizeof(*stack));
		stack[0] = refs[t];
	}
	free(stack);
}

/* Misses of an LRU cache of @size pages, simulated as frames with ages. */
static inline uint64_t naive_lru(const uint64_t *refs, size_t n, size_t size)
{
	uint64_t *frame = malloc(size * sizeof(*frame)), misses = 0;
	size_t *used = malloc(size * sizeof(*used)), nr = 0;

	for (size_t t = 0; t < n; t++) {
		size_t i, v = 0;

		for (i = 0; i < nr && frame[i] != refs[t]; i++)
			;
		if (i < nr) {
			used[i] = t;
			continue;
		}
		misses++;
		if (nr < size) {
			v = nr++;
		} else {
			for (i = 1; i < nr; i++)
				if (used[i] < used[v])
					v = i;
		}
		frame[v] = refs[t];
		used[v] = t;
	}
	free(frame);
	free(used);
	return misses;
}

/* FIFO: frames in load order; the oldest goes. */
static inline uint64_t naive_fifo(const uint64_t *refs, size_t n, size_t size)
{
	uint64_t *q = malloc(size * sizeof(*q)), misses = 0;
	size_t nr = 0;

	for (size_t t = 0; t < n; t++) {
		size_t i;

		for (i = 0; i < nr && q[i] != refs[t]; i++)
			;
		if (i < nr)
			continue;
		misses++;
		if (nr == size) {
			memmove(&q[0], &q[1], (nr - 1) * sizeof(*q));
			nr--;
		}
		q[nr++] = refs[t];
	}
	free(q);
	return misses;
}

/*
 * CLOCK, as a queue in load order (second chance): a hit sets the page's
 * bit; a miss takes pages off the front, and one whose bit is set goes to
 * the back with its bit cleared, until one whose bit is clear leaves; the
 * new page joins the back with its bit clear.
 */
static inline uint64_t naive_clock(const uint64_t *refs, size_t n, size_t size)
{
	uint64_t *q = malloc(size * sizeof(*q)), misses = 0;
	bool *bit = malloc(size * sizeof(*bit));
	size_t nr = 0;

	for (size_t t = 0; t < n; t++) {
		size_t i;

		for (i = 0; i < nr && q[i] != refs[t]; i++)
			;
		if (i < nr) {
			bit[i] = true;
			continue;
		}
		misses++;
		if (nr == size) {
			while (bit[0]) {
				uint64_t p = q[0];

				memmove(&q[0], &q[1], (nr - 1) * sizeof(*q));
				memmove(&bit[0], &bit[1], (nr - 1) * sizeof(*bit));
				q[nr - 1] = p;
				bit[nr - 1] = false;
			}
			memmove(&q[0], &q[1], (nr - 1) * sizeof(*q));
			memmove(&bit[0], &bit[1], (nr - 1) * sizeof(*bit));
			nr--;
		}
		q[nr] = refs[t];
		bit[nr] = false;
		nr++;
	}
	free(q);
	free(bit);
	return misses;
}

/* OPT: at each eviction, look ahead for every page's next use. */
static inline uint64_t naive_opt(const uint64_t *refs, size_t n, size_t size)
{
	uint64_t *frame = malloc(size * sizeof(*frame)), misses = 0;
	size_t nr = 0;

	for (size_t t = 0; t < n; t++) {
		size_t i, v = 0, far = 0;

		for (i = 0; i < nr && frame[i] != refs[t]; i++)
			;
		if (i < nr)
			continue;
		misses++;
		if (nr < size) {
			frame[nr++] = refs[t];
			continue;
		}
		for (i = 0; i < nr; i++) {
			size_t u = t + 1;

			while (u < n && refs[u] != frame[i])
				u++;
			if (u > far) {
				far = u;
				v = i;
			}
		}
		frame[v] = refs[t];
	}
	free(frame);
	return misses;
}

/*
 * The fewest misses any demand-paging policy can have: every possible
 * eviction tried, depth first. Exponential: strings of a dozen or so.
 */
static inline uint64_t naive_min_search(const uint64_t *refs, size_t n,
					size_t t, uint64_t *frame, size_t nr,
					size_t size)
{
	uint64_t best = UINT64_MAX;

	for (; t < n; t++) {
		size_t i;

		for (i = 0; i < nr && frame[i] != refs[t]; i++)
			;
		if (i == nr)
			break;
	}
	if (t == n)
		return 0;
	if (nr < size) {
		frame[nr] = refs[t];
		best = 1 + naive_min_search(refs, n, t + 1, frame, nr + 1, size);
		return best;
	}
	for (size_t v = 0; v < nr; v++) {
		uint64_t old = frame[v], m;

		frame[v] = refs[t];
		m = 1 + naive_min_search(refs, n, t + 1, frame, nr, size);
		frame[v] = old;
		if (m < best)
			best = m;
	}
	return best;
}

static inline uint64_t naive_min(const uint64_t *refs, size_t n, size_t size)
{
	uint64_t *frame = malloc(size * sizeof(*frame)), m;

	m = naive_min_search(refs, n, 0, frame, 0, size);
	free(frame);
	return m;
}

#endif
