// SPDX-License-Identifier: GPL-2.0
/*
 * prefetch - sequentiality and the next-N-pages prefetch model, exact in
 * one pass over the faults. See prefetch.h.
 */
#include <stdlib.h>
#include <string.h>
#include "prefetch.h"

const unsigned int prefetch_grid[PF_GRID] = { 1, 2, 4, 8, 16, 32, 64 };

void prefetch_init(struct prefetch *pf)
{
	memset(pf, 0, sizeof(*pf));
}

void prefetch_free(struct prefetch *pf)
{
	pgid_free(&pf->ids);
	free(pf->pg);
	free(pf->reg);
	memset(pf, 0, sizeof(*pf));
}

/* The id of @page if it was seen, else -1; nothing is added. */
static int64_t find(const struct pgid_map *m, uint64_t page)
{
	uint64_t key = page + 1;

	if (!m->cap)
		return -1;
	for (size_t i = pgid_hash(key, m->shift); m->slot[i].key;
	     i = (i + 1) & (m->cap - 1))
		if (m->slot[i].key == key)
			return m->slot[i].id;
	return -1;
}

static unsigned int bin(uint64_t k)
{
	return k ? 64 - __builtin_clzll(k) : 0;
}

static void end_run(struct prefetch *pf)
{
	if (pf->run) {
		pf->runs[bin(pf->run)]++;
		pf->run_strides[bin(pf->run)] += pf->run;
	}
	pf->run = 0;
}

int prefetch_ref(struct prefetch *pf, uint64_t page, uint64_t tag, uint64_t end)
{
	uint64_t t = pf->refs + 1, last = 0;
	unsigned int every = 0;		/* the nearest trigger's distance */
	unsigned int demand = 0;	/* grid sizes whose prefetch had it: a mask */
	struct pf_page *p;
	int64_t id;

	/* The 64 pages before: which triggered since this page's last fault? */
	id = find(&pf->ids, page);
	if (id >= 0)
		last = pf->pg[id].last;
	for (unsigned int d = 1; d <= PF_MAX && d <= page; d++) {
		int64_t q = find(&pf->ids, page - d);
		const struct pf_page *g;

		if (q < 0)
			continue;
		g = &pf->pg[q];
		if (g->last <= last || page >= g->end)
			continue;
		if (!every)
			every = d;	/* its last fault was a trigger */
		for (unsigned int k = 0; k < PF_GRID; k++)
			if (d <= prefetch_grid[k] && g->demand[k] > last)
				demand |= 1U << k;
	}
	if (id < 0) {
		id = pgid_get(&pf->ids, page);
		if (id < 0)
			return -1;
		if (id >= pf->cap) {
			uint32_t cap = pf->cap ? 2 * pf->cap : 1024;
			struct pf_page *v = realloc(pf->pg, (size_t)cap * sizeof(*v));

			if (!v)
				return -1;
			memset(v + pf->cap, 0, (size_t)(cap - pf->cap) * sizeof(*v));
			pf->pg = v;
			pf->cap = cap;
		}
	}
	if (tag >= pf->nreg) {
		size_t n = tag + 1 > 2 * pf->nreg ? tag + 1 : 2 * pf->nreg;
		struct pf_region *v = realloc(pf->reg, n * sizeof(*v));

		if (!v)
			return -1;
		memset(v + pf->nreg, 0, (n - pf->nreg) * sizeof(*v));
		pf->reg = v;
		pf->nreg = n;
	}
	/* Avoided faults, and this fault as a trigger. */
	if (every)
		pf->avoided_every[every]++;
	p = &pf->pg[id];
	for (unsigned int k = 0; k < PF_GRID; k++) {
		if (demand & (1U << k))
			pf->avoided_demand[k]++;
		else
			p->demand[k] = t;
	}
	p->last = t;
	p->end = end;
	/* Sequentiality. */
	if (pf->refs) {
		int64_t stride = (int64_t)(page - pf->prev);

		pf->next_page += page == pf->prev + 1;
		if (pf->run && stride != pf->stride)
			end_run(pf);
		pf->stride = stride;
		pf->run++;
	}
	pf->reg[tag].faults++;
	pf->reg[tag].next_page += pf->reg[tag].prev && page == pf->reg[tag].prev;
	pf->reg[tag].prev = page + 1;
	pf->prev = page;
	pf->refs = t;
	return 0;
}

void prefetch_end(struct prefetch *pf)
{
	end_run(pf);
}
