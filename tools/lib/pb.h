/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pb - a protocol-buffers writer small enough to read: varints, strings,
 * and nested messages whose length is patched in when they end, written
 * as a 4-byte varint (a redundant encoding every parser takes, as
 * Perfetto's own protozero writes it), so a message is written once,
 * front to back, with no second pass. For pgfreport export perfetto.
 *
 *	struct pb b = { 0 };
 *	size_t m = pb_begin(&b, 1);		// field 1, a message
 *	pb_uint(&b, 8, ts);
 *	pb_str(&b, 23, "name");
 *	pb_end(&b, m);
 *	fwrite(b.p, 1, b.n, f); b.n = 0;
 *
 * Out of memory, b.failed is set and writes are dropped.
 */
#ifndef PGFT_PB_H
#define PGFT_PB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct pb {
	unsigned char *p;
	size_t n, cap;
	bool failed;
};

static inline bool pb_room(struct pb *b, size_t more)
{
	if (b->failed)
		return false;
	if (b->n + more > b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 4096;
		unsigned char *p;

		while (cap < b->n + more)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->failed = true;
			return false;
		}
		b->p = p;
		b->cap = cap;
	}
	return true;
}

static inline void pb_varint(struct pb *b, uint64_t v)
{
	if (!pb_room(b, 10))
		return;
	do {
		b->p[b->n++] = (v & 0x7f) | (v > 0x7f ? 0x80 : 0);
		v >>= 7;
	} while (v);
}

/* wire types */
#define PB_VARINT	0
#define PB_FIXED64	1
#define PB_LEN		2

static inline void pb_tag(struct pb *b, unsigned int field, unsigned int wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

static inline void pb_uint(struct pb *b, unsigned int field, uint64_t v)
{
	pb_tag(b, field, PB_VARINT);
	pb_varint(b, v);
}

/* int32/int64 fields: two's complement, as a 64-bit varint */
static inline void pb_int(struct pb *b, unsigned int field, int64_t v)
{
	pb_uint(b, field, (uint64_t)v);
}

static inline void pb_double(struct pb *b, unsigned int field, double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	pb_tag(b, field, PB_FIXED64);
	if (!pb_room(b, 8))
		return;
	for (int i = 0; i < 8; i++)
		b->p[b->n++] = u >> (8 * i);
}

static inline void pb_bytes(struct pb *b, unsigned int field, const void *p,
			    size_t len)
{
	pb_tag(b, field, PB_LEN);
	pb_varint(b, len);
	if (!pb_room(b, len))
		return;
	memcpy(b->p + b->n, p, len);
	b->n += len;
}

static inline void pb_str(struct pb *b, unsigned int field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

/* Start a nested message in @field; pass what it returns to pb_end(). */
static inline size_t pb_begin(struct pb *b, unsigned int field)
{
	pb_tag(b, field, PB_LEN);
	if (!pb_room(b, 4))
		return 0;
	b->n += 4;
	return b->n;
}

static inline void pb_end(struct pb *b, size_t start)
{
	size_t len = b->n - start;

	if (b->failed || len >= 1U << 28) {
		b->failed = true;
		return;
	}
	for (int i = 0; i < 4; i++)
		b->p[start - 4 + i] = ((len >> (7 * i)) & 0x7f) | (i < 3 ? 0x80 : 0);
}

#endif
