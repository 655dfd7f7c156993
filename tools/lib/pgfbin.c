// SPDX-License-Identifier: GPL-2.0
/*
 * pgfbin - the binary form of a trace (pgfbin.h).
 */
#include <endian.h>
#include <stdio.h>
#include <string.h>
#include "pgfbin.h"
#include "pgftrace.h"

static const char *const results[] = {
	[PGFT_MINOR] = "minor", [PGFT_MAJOR] = "major", [PGFT_REREF] = "reref",
	[PGFT_SIGSEGV] = "SIGSEGV", [PGFT_SIGBUS] = "SIGBUS", [PGFT_OOM] = "OOM",
};
#define NR_RESULTS (sizeof(results) / sizeof(results[0]))

void pgfb_header(unsigned char out[PGFB_HEADER])
{
	uint32_t v = htole32(PGFB_VERSION);

	memset(out, 0, PGFB_HEADER);
	memcpy(out, PGFB_MAGIC, 8);
	memcpy(out + 8, &v, 4);
}

const char *pgfb_check_header(const unsigned char *h, size_t n)
{
	static char msg[96];
	uint32_t v, zero;

	if (n < PGFB_HEADER || memcmp(h, PGFB_MAGIC, 8))
		return "not a binary pgfault_history trace (bad magic)";
	memcpy(&v, h + 8, 4);
	memcpy(&zero, h + 12, 4);
	if (le32toh(v) < 1 || le32toh(v) > PGFB_VERSION || zero) {
		snprintf(msg, sizeof(msg),
			 "binary trace version %u; this program reads versions 1 to %d",
			 le32toh(v), PGFB_VERSION);
		return msg;
	}
	return NULL;
}

static void put64(unsigned char *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

bool pgfb_put_fault(const struct pgft_rec *r, unsigned char out[PGFB_FAULT_BYTES])
{
	uint32_t tid = htole32((uint32_t)r->tid);

	if (r->type != PGFT_FAULT || r->tid < 0 || !strchr("rwx", r->access) ||
	    !r->access || (unsigned int)r->result >= NR_RESULTS ||
	    r->time > PGFB_MAX_TIME)
		return false;
	out[0] = PGFB_FAULT;
	out[1] = r->access;
	out[2] = r->result;
	out[3] = r->kernel;
	memcpy(out + 4, &tid, 4);
	put64(out + 8, r->time);
	put64(out + 16, r->addr);
	put64(out + 24, r->ip);
	return true;
}

size_t pgfb_fault_text(const struct pgft_rec *r, char *out)
{
	return sprintf(out, "fault %llu %d %llx %c %s %s %llx", r->time, r->tid,
		       r->addr, r->access, r->kernel ? "kernel" : "user",
		       results[r->result], r->ip);
}

bool pgfb_put_cache(const struct pgft_rec *r, unsigned char out[PGFB_CACHE_BYTES])
{
	uint32_t tid = htole32((uint32_t)r->tid), pages, file;

	if (r->type != PGFT_CACHE || r->tid < 0 ||
	    (r->access != 'r' && r->access != 'w') ||
	    (unsigned int)r->cache >= PGFT_NCACHE || r->time > PGFB_MAX_TIME ||
	    !r->n[0] || r->n[0] > UINT32_MAX || r->id > UINT32_MAX)
		return false;
	pages = htole32((uint32_t)r->n[0]);
	file = htole32((uint32_t)r->id);
	out[0] = PGFB_CACHE;
	out[1] = r->access;
	out[2] = r->cache;
	out[3] = 0;
	memcpy(out + 4, &tid, 4);
	put64(out + 8, r->time);
	put64(out + 16, r->start);
	memcpy(out + 24, &pages, 4);
	memcpy(out + 28, &file, 4);
	return true;
}

bool pgfb_get_cache(const unsigned char *in, struct pgft_rec *r)
{
	uint32_t tid, pages, file;

	memcpy(&tid, in + 4, 4);
	memcpy(&pages, in + 24, 4);
	memcpy(&file, in + 28, 4);
	tid = le32toh(tid);
	pages = le32toh(pages);
	if (in[0] != PGFB_CACHE || (in[1] != 'r' && in[1] != 'w') ||
	    in[2] >= PGFT_NCACHE || in[3] || tid > INT32_MAX || !pages)
		return false;
	memset(r, 0, sizeof(*r));
	r->name = r->text = "";
	r->type = PGFT_CACHE;
	r->access = in[1];
	r->cache = in[2];
	r->tid = tid;
	r->time = pgfb_get64(in + 8);
	r->start = pgfb_get64(in + 16);
	r->n[0] = pages;
	r->id = le32toh(file);
	return r->time <= PGFB_MAX_TIME;
}

size_t pgfb_cache_text(const struct pgft_rec *r, char *out)
{
	return sprintf(out, "cache %llu %d %llu %llu %llu %c %s", r->time, r->tid,
		       r->id, r->start, r->n[0], r->access, pgft_cache_names[r->cache]);
}

/*
 * Line @line of @len bytes as a record of 32 bytes at @out, if it starts
 * with @type, @put encodes it and its text (@text) gives the line back.
 * A fault line is at most 6+20+11+17+2+7+8+16 characters, a cache line
 * 6+20+11+11+21+11+2+9: they fit in 160.
 */
static bool fixed(const char *line, size_t len, unsigned char *out,
		  const char *type,
		  bool (*put)(const struct pgft_rec *, unsigned char *),
		  size_t (*text)(const struct pgft_rec *, char *))
{
	char copy[160], back[160];
	struct pgft_rec r;

	if (len <= 6 || len >= sizeof(copy) || memcmp(line, type, 6))
		return false;
	memcpy(copy, line, len);
	copy[len] = '\0';
	return !pgft_parse(copy, &r) && put(&r, out) && text(&r, back) == len &&
	       !memcmp(back, line, len);
}

size_t pgfb_encode(const char *line, size_t len, unsigned char *out)
{
	uint32_t n;

	if (fixed(line, len, out, "fault ", pgfb_put_fault, pgfb_fault_text))
		return PGFB_FAULT_BYTES;
	if (fixed(line, len, out, "cache ", pgfb_put_cache, pgfb_cache_text))
		return PGFB_CACHE_BYTES;
	n = htole32((uint32_t)len);
	memset(out, 0, pgfb_line_bytes(len));
	out[0] = PGFB_LINE;
	memcpy(out + 4, &n, 4);
	memcpy(out + 8, line, len);
	return pgfb_line_bytes(len);
}
