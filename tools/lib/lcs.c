// SPDX-License-Identifier: GPL-2.0
/*
 * lcs - the reference string as libCacheSim's oracleGeneral trace and CSV.
 * See lcs.h for the formats.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lcs.h"
#include "mrc_impl.h"		/* mrc_tmpfile() */

#define LCS_IN		12	/* bytes per reference in the first file */
#define LCS_CHUNK	(1 << 16)	/* references per read */

struct lcs {
	FILE *refs;		/* u64 page, u32 seconds: per reference */
	uint64_t n;
	/* page + 1 -> 1-based index of its next reference (backward pass) */
	uint64_t *key, *val;
	size_t cap, nr;
};

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = v >> (8 * i);
}

static uint64_t get_le(const unsigned char *p, int bytes)
{
	uint64_t v = 0;

	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

void lcs_pack(unsigned char *out, uint32_t time, uint64_t id, uint32_t size,
	      int64_t next)
{
	put_le(out, time, 4);
	put_le(out + 4, id, 8);
	put_le(out + 12, size, 4);
	put_le(out + 16, (uint64_t)next, 8);
}

struct lcs *lcs_new(void)
{
	struct lcs *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->refs = mrc_tmpfile();
	if (!e->refs) {
		free(e);
		return NULL;
	}
	return e;
}

int lcs_ref(struct lcs *e, uint64_t page, uint32_t seconds)
{
	unsigned char b[LCS_IN];

	put_le(b, page, 8);
	put_le(b + 8, seconds, 4);
	if (fwrite(b, LCS_IN, 1, e->refs) != 1)
		return -1;
	e->n++;
	return 0;
}

uint64_t lcs_count(const struct lcs *e)
{
	return e->n;
}

/* The slot of @page in the map, growing it first if needed. */
static size_t lcs_slot(struct lcs *e, uint64_t page)
{
	size_t i;

	if (2 * (e->nr + 1) > e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 1024;
		uint64_t *k = calloc(cap, 8), *v = calloc(cap, 8);

		if (!k || !v) {
			free(k);
			free(v);
			return SIZE_MAX;
		}
		for (size_t j = 0; j < e->cap; j++) {
			if (!e->key[j])
				continue;
			for (i = (e->key[j] * 0x9e3779b97f4a7c15ULL) & (cap - 1); k[i];
			     i = (i + 1) & (cap - 1))
				;
			k[i] = e->key[j];
			v[i] = e->val[j];
		}
		free(e->key);
		free(e->val);
		e->key = k;
		e->val = v;
		e->cap = cap;
	}
	for (i = ((page + 1) * 0x9e3779b97f4a7c15ULL) & (e->cap - 1);
	     e->key[i] && e->key[i] != page + 1; i = (i + 1) & (e->cap - 1))
		;
	return i;
}

static int read_at(FILE *f, void *buf, size_t len, off_t off)
{
	if (fseeko(f, off, SEEK_SET) || fread(buf, 1, len, f) != len) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}

/* Backward: each reference's next use, into @next (8 bytes each). */
static int lcs_next_uses(struct lcs *e, FILE *next)
{
	static unsigned char in[LCS_CHUNK * LCS_IN], out[LCS_CHUNK * 8];
	uint64_t end = e->n;

	while (end > 0) {
		uint64_t first = end > LCS_CHUNK ? end - LCS_CHUNK : 0;
		size_t nb = end - first;

		if (read_at(e->refs, in, nb * LCS_IN, (off_t)first * LCS_IN))
			return -1;
		for (size_t j = nb; j-- > 0;) {
			uint64_t page = get_le(in + j * LCS_IN, 8);
			size_t s = lcs_slot(e, page);

			if (s == SIZE_MAX) {
				errno = ENOMEM;
				return -1;
			}
			if (e->key[s]) {
				put_le(out + j * 8, e->val[s], 8);
			} else {
				put_le(out + j * 8, (uint64_t)-1, 8);
				e->key[s] = page + 1;
				e->nr++;
			}
			e->val[s] = first + j + 1;	/* 1-based */
		}
		if (fseeko(next, (off_t)first * 8, SEEK_SET) ||
		    fwrite(out, 8, nb, next) != nb)
			return -1;
		end = first;
	}
	return fflush(next) ? -1 : 0;
}

int lcs_write(struct lcs *e, FILE *bin, FILE *csv, uint32_t obj_size)
{
	static unsigned char in[LCS_CHUNK * LCS_IN], nx[LCS_CHUNK * 8];
	unsigned char rec[LCS_RECORD];
	FILE *next;
	int ret = -1;

	if (fflush(e->refs))
		return -1;
	next = mrc_tmpfile();
	if (!next)
		return -1;
	if (lcs_next_uses(e, next))
		goto out;
	if (csv && fputs("time,obj_id,obj_size,next_access_vtime\n", csv) < 0)
		goto out;
	for (uint64_t first = 0; first < e->n; first += LCS_CHUNK) {
		size_t nb = e->n - first < LCS_CHUNK ? e->n - first : LCS_CHUNK;

		if (read_at(e->refs, in, nb * LCS_IN, (off_t)first * LCS_IN) ||
		    read_at(next, nx, nb * 8, (off_t)first * 8))
			goto out;
		for (size_t j = 0; j < nb; j++) {
			uint64_t page = get_le(in + j * LCS_IN, 8);
			uint32_t t = get_le(in + j * LCS_IN + 8, 4);
			int64_t n = (int64_t)get_le(nx + j * 8, 8);

			if (bin) {
				lcs_pack(rec, t, page, obj_size, n);
				if (fwrite(rec, LCS_RECORD, 1, bin) != 1)
					goto out;
			}
			if (csv && fprintf(csv, "%" PRIu32 ",%" PRIu64 ",%" PRIu32 ",%" PRId64 "\n",
					   t, page, obj_size, n) < 0)
				goto out;
		}
	}
	ret = 0;
out:
	fclose(next);
	return ret;
}

void lcs_free(struct lcs *e)
{
	if (!e)
		return;
	fclose(e->refs);
	free(e->key);
	free(e->val);
	free(e);
}
