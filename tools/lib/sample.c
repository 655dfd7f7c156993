// SPDX-License-Identifier: GPL-2.0
/*
 * sample - intervals of pages and the working set over them. See
 * sample.h.
 */
#include <stdlib.h>
#include <string.h>
#include "sample.h"

void smp_init(struct smp *s, unsigned long k, bool keep_runs)
{
	memset(s, 0, sizeof(*s));
	s->k = k ? k : 1;
	s->keep_runs = keep_runs;
	s->new_space = true;
}

void smp_free(struct smp *s)
{
	free(s->iv);
	free(s->runs);
	free(s->cur);
	free(s->cnt);
	free(s->tree);
	pgid_free(&s->last);
	memset(s, 0, sizeof(*s));
}

/* ---- the Fenwick tree over intervals ---------------------------------- */

static void tree_add(struct smp *s, size_t i, int64_t v)
{
	s->cnt[i] += v;
	for (i++; i <= s->cap_tree; i += i & -i)
		s->tree[i] += v;
}

/* cnt[0] + ... + cnt[i] */
static int64_t tree_sum(const struct smp *s, size_t i)
{
	int64_t v = 0;

	for (i++; i; i -= i & -i)
		v += s->tree[i];
	return v;
}

/* Room for interval @i: the tree doubles and is built again from cnt. */
static int tree_room(struct smp *s, size_t i)
{
	size_t cap = s->cap_tree ? s->cap_tree : 256;
	int64_t *cnt, *tree;

	if (i < s->cap_tree)
		return 0;
	while (cap <= i)
		cap *= 2;
	cnt = calloc(cap, sizeof(*cnt));
	tree = calloc(cap + 1, sizeof(*tree));
	if (!cnt || !tree) {
		free(cnt);
		free(tree);
		return -1;
	}
	if (s->cap_tree)
		memcpy(cnt, s->cnt, s->cap_tree * sizeof(*cnt));
	free(s->cnt);
	free(s->tree);
	s->cnt = cnt;
	s->tree = tree;
	s->cap_tree = cap;
	/* Each node passes its sum up to its parent: O(cap). */
	for (size_t k = 1; k <= cap; k++) {
		size_t up = k + (k & -k);

		tree[k] += cnt[k - 1];
		if (up <= cap)
			tree[up] += tree[k];
	}
	return 0;
}

/* ---- filling and closing intervals ------------------------------------ */

int smp_pages(struct smp *s, uint64_t start, uint64_t pages)
{
	uint32_t now = (uint32_t)s->n + 1;	/* the open interval, + 1 */

	for (uint64_t p = start; p - start < pages; p++) {
		struct pgid_slot *slot = pgid_slot(&s->last, p);

		if (!slot)
			return -1;
		if (slot->val == now)
			continue;		/* given already */
		if (s->ncur == s->cap_cur) {
			size_t cap = s->cap_cur ? 2 * s->cap_cur : 1024;
			struct smp_pending *v = realloc(s->cur, cap * sizeof(*v));

			if (!v)
				return -1;
			s->cur = v;
			s->cap_cur = cap;
		}
		s->cur[s->ncur].page = p;
		s->cur[s->ncur++].prev = slot->val;
		slot->val = now;
	}
	return 0;
}

void smp_drop(struct smp *s)
{
	/* Each page's last interval goes back to what it was. */
	for (size_t i = 0; i < s->ncur; i++)
		pgid_slot(&s->last, s->cur[i].page)->val = s->cur[i].prev;
	s->ncur = 0;
}

void smp_space(struct smp *s)
{
	s->new_space = true;
}

static int cmp_pending(const void *a, const void *b)
{
	const struct smp_pending *x = a, *y = b;

	return x->page < y->page ? -1 : x->page > y->page;
}

/* The open interval's pages as runs, appended to s->runs. */
static int keep_runs(struct smp *s, struct smp_iv *iv)
{
	qsort(s->cur, s->ncur, sizeof(*s->cur), cmp_pending);
	iv->run0 = s->nruns;
	for (size_t i = 0; i < s->ncur; i++) {
		uint64_t p = s->cur[i].page;

		if (s->nruns > iv->run0 &&
		    s->runs[s->nruns - 1].start + s->runs[s->nruns - 1].pages == p) {
			s->runs[s->nruns - 1].pages++;
			continue;
		}
		if (s->nruns == s->cap_runs) {
			size_t cap = s->cap_runs ? 2 * s->cap_runs : 1024;
			struct smp_run *v = realloc(s->runs, cap * sizeof(*v));

			if (!v)
				return -1;
			s->runs = v;
			s->cap_runs = cap;
		}
		s->runs[s->nruns++] = (struct smp_run){ p, 1 };
	}
	iv->nrun = s->nruns - iv->run0;
	return 0;
}

/* W(t, tau), t the last closed interval, its space from s->space. */
static uint64_t window(const struct smp *s, size_t t, uint64_t tau)
{
	size_t lo = tau > t ? 0 : t + 1 - tau;

	if (lo < s->space)
		lo = s->space;
	return tree_sum(s, t) - (lo ? tree_sum(s, lo - 1) : 0);
}

int smp_close(struct smp *s, const struct smp_iv *in)
{
	size_t t = s->n;
	struct smp_iv *iv;
	uint64_t all;
	unsigned int j;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		struct smp_iv *v = realloc(s->iv, cap * sizeof(*v));

		if (!v)
			return -1;
		s->iv = v;
		s->cap = cap;
	}
	if (tree_room(s, t) || (t + 2 > UINT32_MAX))
		return -1;
	iv = &s->iv[t];
	*iv = *in;
	iv->flags &= ~SMP_NEW_SPACE;
	if (s->new_space) {
		s->space = t;
		iv->flags |= SMP_NEW_SPACE;
		s->new_space = false;
	}
	iv->pages = s->ncur;
	iv->run0 = s->nruns;
	iv->nrun = 0;
	if (s->keep_runs && keep_runs(s, iv))
		return -1;
	/* Each page leaves its old last interval for this one. */
	for (size_t i = 0; i < s->ncur; i++)
		if (s->cur[i].prev)
			tree_add(s, s->cur[i].prev - 1, -1);
	if (s->ncur)
		tree_add(s, t, (int64_t)s->ncur);
	s->ncur = 0;
	s->n++;
	iv->ws = window(s, t, s->k);
	/* Windows that reach the space's start are all alike: W(t, all). */
	all = window(s, t, t + 1);
	for (j = 0; j < SMP_TAUS && (1ULL << j) < t + 1 - s->space; j++) {
		uint64_t w = window(s, t, 1ULL << j);

		s->sum[j] += w;
		if (w > s->max[j])
			s->max[j] = w;
	}
	for (; j <= SMP_TAUS; j++) {
		s->sum[j] += all;
		if (all > s->max[j])
			s->max[j] = all;
	}
	return 0;
}

double smp_tau_mean(const struct smp *s, unsigned int j)
{
	return s->n ? (double)s->sum[j > SMP_TAUS ? SMP_TAUS : j] / s->n : 0;
}

uint64_t smp_tau_max(const struct smp *s, unsigned int j)
{
	return s->max[j > SMP_TAUS ? SMP_TAUS : j];
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

double smp_median(uint64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? (double)v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

void smp_overlap(const struct smp *a, size_t i, const struct smp *b,
		 size_t j, uint64_t *both, uint64_t *either)
{
	const struct smp_run *x = a->runs + a->iv[i].run0;
	const struct smp_run *y = b->runs + b->iv[j].run0;
	size_t nx = a->iv[i].nrun, ny = b->iv[j].nrun, p = 0, q = 0;
	uint64_t common = 0;

	/* Runs are sorted and apart: walk both, adding up the overlaps. */
	while (p < nx && q < ny) {
		uint64_t lo = x[p].start > y[q].start ? x[p].start : y[q].start;
		uint64_t ex = x[p].start + x[p].pages, ey = y[q].start + y[q].pages;
		uint64_t hi = ex < ey ? ex : ey;

		if (hi > lo)
			common += hi - lo;
		if (ex < ey)
			p++;
		else
			q++;
	}
	*both = common;
	*either = a->iv[i].pages + b->iv[j].pages - common;
}

/* ---- the map's rows --------------------------------------------------- */

static int cmp_run(const void *a, const void *b)
{
	const struct smp_run *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The rows of blocks @u[0 .. @nu) with @per pages a row; their number. */
static size_t rows_for(const struct smp_run *u, size_t nu, uint64_t per)
{
	size_t rows = 0;

	for (size_t i = 0; i < nu; i++)
		rows += (u[i].pages + per - 1) / per;
	return rows;
}

int smp_map_rows(const struct smp *s, size_t max_rows, struct smp_map *m)
{
	struct smp_run *u = malloc((s->nruns ? s->nruns : 1) * sizeof(*u));
	size_t nu = 0, r = 0;
	uint64_t lo, hi;

	memset(m, 0, sizeof(*m));
	if (!u)
		return -1;
	if (max_rows < 1)
		max_rows = 1;
	/* Every interval's runs, sorted, merged into blocks. */
	memcpy(u, s->runs, s->nruns * sizeof(*u));
	qsort(u, s->nruns, sizeof(*u), cmp_run);
	for (size_t i = 0; i < s->nruns; i++) {
		if (nu && u[nu - 1].start + u[nu - 1].pages >= u[i].start) {
			uint64_t e = u[i].start + u[i].pages;

			if (e > u[nu - 1].start + u[nu - 1].pages)
				u[nu - 1].pages = e - u[nu - 1].start;
			continue;
		}
		u[nu++] = u[i];
	}
	for (size_t i = 0; i < nu; i++)
		m->pages += u[i].pages;
	m->blocks = nu;
	if (nu <= max_rows) {
		/* The fewest pages a row that fit: rows_for() falls with per. */
		for (lo = 1, hi = m->pages ? m->pages : 1; lo < hi;) {
			uint64_t mid = lo + (hi - lo) / 2;

			if (rows_for(u, nu, mid) <= max_rows)
				hi = mid;
			else
				lo = mid + 1;
		}
		m->per = lo;
		m->nrows = rows_for(u, nu, m->per);
	} else {
		m->per = (m->pages + max_rows - 1) / max_rows;
		m->nrows = (m->pages + m->per - 1) / m->per;
	}
	m->row = calloc(m->nrows ? m->nrows : 1, sizeof(*m->row));
	if (!m->row) {
		free(u);
		return -1;
	}
	if (nu <= max_rows) {
		for (size_t i = 0; i < nu; i++)
			for (uint64_t p = 0; p < u[i].pages; p += m->per) {
				uint64_t n = u[i].pages - p < m->per ?
					     u[i].pages - p : m->per;

				m->row[r++] = (struct smp_row){
					u[i].start + p, u[i].start + p + n, n, !p, false,
				};
			}
	} else {
		/* per referenced pages a row, across the gaps */
		struct smp_row *w = NULL;

		for (size_t i = 0; i < nu; i++) {
			for (uint64_t p = 0; p < u[i].pages;) {
				uint64_t n;

				if (!w || w->pages == m->per) {
					w = &m->row[r++];
					w->first = u[i].start + p;
					w->block = !p;
				} else if (!p) {
					w->spans_gap = true;
				}
				n = m->per - w->pages;
				if (n > u[i].pages - p)
					n = u[i].pages - p;
				w->pages += n;
				p += n;
				w->end = u[i].start + p;
			}
		}
	}
	m->nrows = r;
	free(u);
	return 0;
}

/* The row holding page @p, or the first row after it. */
static size_t row_of(const struct smp_map *m, uint64_t p)
{
	size_t lo = 0, hi = m->nrows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->row[mid].end <= p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void smp_map_column(const struct smp *s, const struct smp_map *m, size_t i,
		    uint64_t *count)
{
	const struct smp_iv *iv = &s->iv[i];

	memset(count, 0, m->nrows * sizeof(*count));
	for (size_t k = iv->run0; k < iv->run0 + iv->nrun; k++) {
		uint64_t a = s->runs[k].start, e = a + s->runs[k].pages;

		/* Rows hold referenced pages only, or span gaps of none. */
		for (size_t r = row_of(m, a); r < m->nrows && m->row[r].first < e; r++) {
			uint64_t lo = a > m->row[r].first ? a : m->row[r].first;
			uint64_t hi = e < m->row[r].end ? e : m->row[r].end;

			if (hi > lo)
				count[r] += hi - lo;
		}
	}
}

void smp_map_free(struct smp_map *m)
{
	free(m->row);
	memset(m, 0, sizeof(*m));
}
