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
	int n = sprintf(out, "fault %llu %d %llx %c %s %s %llx", r->time,
			r->tid, r->addr, r->access, r->kernel ? "kernel" : "user",
			results[r->result], r->ip);

	if (!r->has_frame)
		return n;
	n += sprintf(out + n, " %llx ", r->pfn);
	n += r->node == PGFT_NO_NODE ? sprintf(out + n, "-") :
	     sprintf(out + n, "%d", r->node);
	return n + sprintf(out + n, " %u %s", r->order,
			   pgft_level_names[r->level]);
}

/* The frame word of a frame record (pgfbin.h). */
#define FRAME_PFN_BITS		40
#define FRAME_NODE_SHIFT	40
#define FRAME_NODE_NONE		0x7ffULL
#define FRAME_ORDER_SHIFT	51
#define FRAME_LEVEL_SHIFT	57

bool pgfb_put_frame(const struct pgft_rec *r, unsigned char out[PGFB_FRAME_BYTES])
{
	uint64_t node = r->node == PGFT_NO_NODE ? FRAME_NODE_NONE :
			(uint64_t)r->node;

	if (!r->has_frame || !pgft_counted(r->result) ||
	    r->pfn >> FRAME_PFN_BITS || r->node < PGFT_NO_NODE ||
	    node > FRAME_NODE_NONE || r->order > 63 ||
	    r->level >= PGFT_NLEVEL || !pgfb_put_fault(r, out))
		return false;
	out[0] = PGFB_FRAME;
	put64(out + 32, r->pfn | node << FRAME_NODE_SHIFT |
		       (uint64_t)r->order << FRAME_ORDER_SHIFT |
		       (uint64_t)r->level << FRAME_LEVEL_SHIFT);
	return true;
}

bool pgfb_get_frame(const unsigned char *in, struct pgft_rec *r)
{
	uint64_t f = pgfb_get64(in + 32), node;

	if (in[0] != PGFB_FRAME)
		return false;
	memset(r, 0, sizeof(*r));
	r->name = r->text = "";
	if (!pgfb_fault_body(in, r) || !pgft_counted(r->result))
		return false;
	node = f >> FRAME_NODE_SHIFT & FRAME_NODE_NONE;
	r->has_frame = true;
	r->pfn = f & ((1ULL << FRAME_PFN_BITS) - 1);
	r->node = node == FRAME_NODE_NONE ? PGFT_NO_NODE : (int)node;
	r->order = f >> FRAME_ORDER_SHIFT & 63;
	r->level = f >> FRAME_LEVEL_SHIFT & 3;
	return r->level < PGFT_NLEVEL && !(f >> 59);
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
/* @r as a fixed record at @out: its bytes, 0 if it cannot be one. */
static size_t put_fixed(const struct pgft_rec *r, unsigned char *out)
{
	if (r->type == PGFT_CACHE)
		return pgfb_put_cache(r, out) ? PGFB_CACHE_BYTES : 0;
	if (r->has_frame)
		return pgfb_put_frame(r, out) ? PGFB_FRAME_BYTES : 0;
	return pgfb_put_fault(r, out) ? PGFB_FAULT_BYTES : 0;
}

size_t pgfb_encode(const char *line, size_t len, unsigned char *out)
{
	char copy[160], back[160];
	struct pgft_rec r;
	uint32_t n;
	size_t bytes;

	if (len > 6 && len < sizeof(copy) &&
	    (!memcmp(line, "fault ", 6) || !memcmp(line, "cache ", 6))) {
		memcpy(copy, line, len);
		copy[len] = '\0';
		if (!pgft_parse(copy, &r) && (bytes = put_fixed(&r, out)) &&
		    pgfb_fixed_text(&r, back) == len && !memcmp(back, line, len))
			return bytes;
	}
	n = htole32((uint32_t)len);
	memset(out, 0, pgfb_line_bytes(len));
	out[0] = PGFB_LINE;
	memcpy(out + 4, &n, 4);
	memcpy(out + 8, line, len);
	return pgfb_line_bytes(len);
}
