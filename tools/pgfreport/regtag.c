// SPDX-License-Identifier: GPL-2.0
/*
 * regtag - small numbers for the regions a reference string touched
 * (regtag.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exit.h"
#include "regtag.h"

uint64_t regtag_find(struct regtags *t, long space, const struct pgft_region *g)
{
	struct regtag_memo *m = &t->memo[g->id % REGTAG_MEMO];
	uint32_t had = t->ids.nr;
	int64_t sp, id = -1;

	if (t->oom)
		return 0;
	/*
	 * An address space key (a tree's process index in bits 20 and up)
	 * as a small number, then (number, id) as one key: exact while a
	 * trace has fewer than 2^24 address spaces and ids below 2^40.
	 */
	sp = pgid_get(&t->spaces, (uint64_t)space);
	if (sp >= 0)
		id = pgid_get(&t->ids, (uint64_t)sp << 40 | (g->id & ((1ULL << 40) - 1)));
	if (id >= 0 && t->ids.nr != had) {
		struct regtag *v = realloc(t->v, t->ids.nr * sizeof(*v));

		if (v)
			t->v = v;
		if (!v || !(v[id].name = strdup(*g->name ? g->name : "[anon]"))) {
			id = -1;
		} else {
			t->nv = id + 1;
			v[id].file = g->inode || g->name[0] == '/';
			v[id].alive = false;
			v[id].start = g->start;
			v[id].end = g->end;
			v[id].offset = g->offset;
		}
	}
	if (id < 0) {
		t->oom = true;
		return 0;
	}
	m->space = space;
	m->id = g->id;
	m->tag = id + 1;
	return id + 1;
}

uint64_t regtag_peek(const struct regtags *t, long space, unsigned long long id)
{
	const struct pgid_slot *s = pgid_lookup(&t->spaces, (uint64_t)space);

	if (!s)
		return 0;
	s = pgid_lookup(&t->ids, (uint64_t)s->id << 40 | (id & ((1ULL << 40) - 1)));
	return s ? s->id + 1 : 0;
}

void regtags_free(struct regtags *t)
{
	for (uint32_t i = 0; i < t->nv; i++)
		free(t->v[i].name);
	free(t->v);
	pgid_free(&t->ids);
	pgid_free(&t->spaces);
	memset(t, 0, sizeof(*t));
}
