// SPDX-License-Identifier: GPL-2.0
/*
 * pageid - number pages densely in the order they are first seen. See
 * pageid.h.
 */
#include <stdlib.h>
#include "pageid.h"
#include "table.h"

/* Double the table, rehashing every key. */
static int pgid_grow(struct pgid_map *m)
{
	size_t cap = m->cap ? 2 * m->cap : 1024, i, j;
	unsigned int shift = 64 - __builtin_ctzll(cap);
	struct pgid_slot *s = table_calloc(cap, sizeof(*s));

	if (!s)
		return -1;
	for (i = 0; i < m->cap; i++) {
		if (!m->slot[i].key)
			continue;
		for (j = pgid_hash(m->slot[i].key, shift); s[j].key; j = (j + 1) & (cap - 1))
			;
		s[j] = m->slot[i];
	}
	table_free(m->slot, m->cap, sizeof(*m->slot));
	m->slot = s;
	m->cap = cap;
	m->shift = shift;
	return 0;
}

struct pgid_slot *pgid_slot_probe(struct pgid_map *m, uint64_t page)
{
	uint64_t key = page + 1;
	size_t i;

	if (m->cap) {
		for (i = pgid_hash(key, m->shift); m->slot[i].key; i = (i + 1) & (m->cap - 1))
			if (m->slot[i].key == key)
				return &m->slot[i];
	}
	if (!key || m->nr == UINT32_MAX)
		return NULL;
	/* At most 3/4 full: short probes, and a table half the size. */
	if (4 * ((size_t)m->nr + 1) > 3 * m->cap) {
		if (pgid_grow(m))
			return NULL;
	}
	for (i = pgid_hash(key, m->shift); m->slot[i].key; i = (i + 1) & (m->cap - 1))
		;
	m->slot[i].key = key;
	m->slot[i].id = m->nr++;
	m->slot[i].val = 0;
	return &m->slot[i];
}

int64_t pgid_get(struct pgid_map *m, uint64_t page)
{
	struct pgid_slot *s = pgid_slot(m, page);

	return s ? (int64_t)s->id : -1;
}

void pgid_free(struct pgid_map *m)
{
	table_free(m->slot, m->cap, sizeof(*m->slot));
	m->slot = NULL;
	m->cap = 0;
	m->nr = 0;
}
