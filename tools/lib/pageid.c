// SPDX-License-Identifier: GPL-2.0
/*
 * pageid - number pages densely in the order they are first seen. See
 * pageid.h.
 */
#include <errno.h>
#include <string.h>
#include "pageid.h"
#include "table.h"

/* The bytes of a slot */
#define SLOT_BYTES(m)	((size_t)16 << (m)->order)

int pgid_set_data(struct pgid_map *m, size_t bytes, bool ids)
{
	size_t start = ids ? PGID_DATA_OFF : PGID_NOID_OFF;
	unsigned int order = 0;

	if (m->cap || bytes > PGID_DATA_MAX) {
		errno = EINVAL;
		return -1;
	}
	while ((16U << order) < start + bytes)
		order++;
	m->order = order;
	m->noid = !ids;
	return 0;
}

/* Double the table, rehashing every key. */
static int pgid_grow(struct pgid_map *m)
{
	struct pgid_map n = *m;
	size_t j;

	n.cap = m->cap ? 2 * m->cap : 1024;
	n.shift = 64 - __builtin_ctzll(n.cap);
	n.slot = table_calloc(n.cap, SLOT_BYTES(m));
	if (!n.slot)
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		const struct pgid_slot *s = pgid_at(m, i);

		if (!s->key)
			continue;
		for (j = pgid_hash(s->key, n.shift); pgid_at(&n, j)->key;
		     j = (j + 1) & (n.cap - 1))
			;
		memcpy(pgid_at(&n, j), s, SLOT_BYTES(m));
	}
	table_free(m->slot, m->cap, SLOT_BYTES(m));
	*m = n;
	return 0;
}

struct pgid_slot *pgid_slot_probe(struct pgid_map *m, uint64_t page)
{
	uint64_t key = page + 1;
	struct pgid_slot *s;
	size_t i;

	if (m->cap) {
		for (i = pgid_hash(key, m->shift); (s = pgid_at(m, i))->key;
		     i = (i + 1) & (m->cap - 1))
			if (s->key == key)
				return s;
	}
	if (!key || m->nr == UINT32_MAX)
		return NULL;
	/* At most 3/4 full: short probes, and a table half the size. */
	if (4 * ((size_t)m->nr + 1) > 3 * m->cap) {
		if (pgid_grow(m))
			return NULL;
	}
	for (i = pgid_hash(key, m->shift); (s = pgid_at(m, i))->key;
	     i = (i + 1) & (m->cap - 1))
		;
	/* the caller's bytes are zero: the table's memory is fresh */
	s->key = key;
	if (!m->noid)
		s->id = m->nr;
	m->nr++;
	return s;
}

int64_t pgid_get(struct pgid_map *m, uint64_t page)
{
	struct pgid_slot *s = pgid_slot(m, page);

	return s && !m->noid ? (int64_t)s->id : -1;
}

struct pgid_slot *pgid_lookup(const struct pgid_map *m, uint64_t page)
{
	uint64_t key = page + 1;
	struct pgid_slot *s;

	if (!m->cap || !key)
		return NULL;
	for (size_t i = pgid_hash(key, m->shift); (s = pgid_at(m, i))->key;
	     i = (i + 1) & (m->cap - 1))
		if (s->key == key)
			return s;
	return NULL;
}

void pgid_free(struct pgid_map *m)
{
	table_free(m->slot, m->cap, SLOT_BYTES(m));
	m->slot = NULL;
	m->cap = 0;
	m->nr = 0;
}
