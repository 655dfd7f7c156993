// SPDX-License-Identifier: GPL-2.0
/*
 * pgfline - the fault and cache lines of the text form read in one pass
 * each (pgfline.h).
 *
 * Eight bytes at a time: a field's digits are told from what ends it by
 * arithmetic on the bytes of a 64-bit word, and its value made from them
 * with a few multiplications and shifts, with no branch on each digit:
 * the lengths of a record's fields vary from line to line, and a loop
 * over the digits mispredicts its end at every field.
 */
#include <endian.h>
#include <stdint.h>
#include <string.h>
#include "pgfline.h"

#define ONES	0x0101010101010101ULL
#define HIGHS	0x8080808080808080ULL

/* Eight bytes at @p, the first one the lowest. */
static inline uint64_t load8(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

/*
 * Whether the bytes at @p begin with the @n (1 to 8) bytes of @w. Inline,
 * @w and @n constants: a load, a mask and a compare.
 */
static inline bool starts(const unsigned char *p, const char *w, unsigned int n)
{
	uint64_t want = 0;

	/*
	 * A constant, unrolled: a memcpy() would go through memory, and a
	 * load of eight bytes just stored in pieces waits for them.
	 */
#pragma GCC unroll 8
	for (unsigned int i = 0; i < n; i++)
		want |= (uint64_t)(unsigned char)w[i] << 8 * i;
	return (load8(p) & (n == 8 ? ~0ULL : (1ULL << 8 * n) - 1)) == want;
}

/*
 * Bit 7 of the first byte of @v that is not a decimal digit, @x being
 * @v - '0' in each byte (bytes after it may be marked too): no byte
 * before that one borrows or carries into the next.
 */
static inline uint64_t dec_other(uint64_t x)
{
	return (x | (x + 0x76 * ONES)) & HIGHS;
}

/*
 * Bit 7 of the first byte of @v that is not a hex digit as the kernel
 * writes them, 0-9 or a-f, @x being @v - '0' in each byte (bytes after it
 * may be marked too), and in *@letters bit 7 of each byte before it that
 * is a letter: x + 0x4f and x + 0xc9 both have bit 7 set for x from 0x31
 * to 0x36 alone, and no byte before that one carries into the next.
 */
static inline uint64_t hex_other(uint64_t x, uint64_t *letters)
{
	*letters = (x + 0x4f * ONES) & (x + 0xc9 * ONES) & HIGHS;
	return dec_other(x) & ~*letters;
}

/* Each byte of @x (@v - '0'), a hex digit, its value, @letters its letters. */
static inline uint64_t hex_bytes(uint64_t x, uint64_t letters)
{
	return x - (letters >> 7) * 0x27;
}

/*
 * The value of eight decimal digits, each a byte (0 to 9), the first the
 * lowest: summed in pairs, the pairs in fours, the fours.
 */
static inline uint64_t dec8(uint64_t v)
{
	v = v * 10 + (v >> 8);
	return ((v & 0x000000ff000000ffULL) * (100 + (1000000ULL << 32)) +
		(v >> 16 & 0x000000ff000000ffULL) * (1 + (10000ULL << 32))) >> 32;
}

/*
 * The value of eight hex digits, each a byte (0 to 15), the first the
 * lowest: packed two to a byte, four, eight.
 */
static inline uint64_t hex8(uint64_t v)
{
	v = (v << 4 | v >> 8) & 0x00ff00ff00ff00ffULL;
	v = (v << 8 | v >> 16) & 0x0000ffff0000ffffULL;
	return (v << 16 | v >> 32) & 0xffffffffULL;
}

static const uint64_t pow10[9] = {
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
};

/*
 * A decimal field at *@s of 1 to 19 digits: its value, *@s past its
 * digits; the caller checks what ends it. false if it has none or too
 * many. Eight bytes at a time: the digits of the first eight that are
 * digits, moved up to the top bytes (zeros ahead of them), make a value.
 */
static inline __attribute__((always_inline)) bool
dec(const unsigned char **s, unsigned long long *val)
{
	const unsigned char *p = *s;
	uint64_t x = load8(p) - 0x30 * ONES, y, other = dec_other(x);
	unsigned int n;

	if (other) {
		n = __builtin_ctzll(other) >> 3;
		if (!n)
			return false;
		*val = dec8(x << (64 - 8 * n));
		*s = p + n;
		return true;
	}
	y = load8(p + 8) - 0x30 * ONES;
	other = dec_other(y);
	if (!other) {
		/* 16 to 19 digits, the last ones a digit at a time */
		*val = dec8(x) * 100000000 + dec8(y);
		for (n = 16; n < 20 && (unsigned int)(p[n] - '0') < 10; n++)
			*val = *val * 10 + (p[n] - '0');
		*s = p + n;
		return n < 20;
	}
	n = __builtin_ctzll(other) >> 3;
	*val = n ? dec8(x) * pow10[n] + dec8(y << (64 - 8 * n)) : dec8(x);
	*s = p + 8 + n;
	return true;
}

/*
 * A hex field at *@s of 1 to 16 digits, as dec(). Upper-case letters are
 * not read here: the kernel writes none, and pgft_parse() reads them.
 */
static inline __attribute__((always_inline)) bool
hex(const unsigned char **s, unsigned long long *val)
{
	const unsigned char *p = *s;
	uint64_t x = load8(p) - 0x30 * ONES, y, xl, yl, other = hex_other(x, &xl);
	unsigned int n;

	if (other) {
		n = __builtin_ctzll(other) >> 3;
		if (!n)
			return false;
		*val = hex8(hex_bytes(x, xl) << (64 - 8 * n));
		*s = p + n;
		return true;
	}
	y = load8(p + 8) - 0x30 * ONES;
	other = hex_other(y, &yl);
	if (!other) {
		/* 16 digits, and no more */
		*val = hex8(hex_bytes(x, xl)) << 32 | hex8(hex_bytes(y, yl));
		*s = p + 16;
		return !!(hex_other(load8(p + 16) - 0x30 * ONES, &yl) & 0x80);
	}
	n = __builtin_ctzll(other) >> 3;
	*val = n ? hex8(hex_bytes(x, xl)) << 4 * n |
		   hex8(hex_bytes(y, yl) << (64 - 8 * n)) :
		   hex8(hex_bytes(x, xl));
	*s = p + 8 + n;
	return true;
}

/* A result other than minor at *@s, then a space: its value, or -1. */
static int result(const unsigned char **s)
{
	const unsigned char *p = *s;
	int k;

	if (starts(p, "major ", 6))
		k = PGFT_MAJOR, p += 6;
	else if (starts(p, "reref ", 6))
		k = PGFT_REREF, p += 6;
	else if (starts(p, "SIGSEGV ", 8))
		k = PGFT_SIGSEGV, p += 8;
	else if (starts(p, "SIGBUS ", 7))
		k = PGFT_SIGBUS, p += 7;
	else if (starts(p, "OOM ", 4))
		k = PGFT_OOM, p += 4;
	else
		return -1;
	*s = p;
	return k;
}

/*
 * A frame after a fault's IP: PFN NODE ORDER LEVEL, then the newline;
 * past it, or NULL.
 */
static const unsigned char *frame(const unsigned char *s, struct pgft_rec *r)
{
	unsigned long long v;

	if (!pgft_counted(r->result) || !hex(&s, &r->pfn) || *s++ != ' ' ||
	    r->pfn >= 1ULL << 40)
		return NULL;
	if (s[0] == '-' && s[1] == ' ') {
		r->node = PGFT_NO_NODE;
		s += 2;
	} else if (!dec(&s, &v) || *s++ != ' ' || v >= 0x7ff) {
		return NULL;
	} else {
		r->node = v;
	}
	if (!dec(&s, &v) || *s++ != ' ' || v > 63)
		return NULL;
	r->order = v;
	if (starts(s, "pte\n", 4))
		r->level = PGFT_PTE;
	else if (starts(s, "pmd\n", 4))
		r->level = PGFT_PMD;
	else if (starts(s, "pud\n", 4))
		r->level = PGFT_PUD;
	else
		return NULL;
	r->has_frame = true;
	return s + 4;
}

size_t pgft_scan_fault(const char *line, struct pgft_rec *r)
{
	const unsigned char *s = (const unsigned char *)line;
	unsigned long long tid;
	int k;

	if (!starts(s, "fault ", 6))
		return 0;
	s += 6;
	r->type = PGFT_FAULT;
	if (!dec(&s, &r->time) || *s++ != ' ' || !dec(&s, &tid) ||
	    *s++ != ' ' || !hex(&s, &r->addr) || *s++ != ' ')
		return 0;
	r->tid = tid;
	if ((s[0] != 'r' && s[0] != 'w' && s[0] != 'x') || s[1] != ' ')
		return 0;
	r->access = s[0];
	s += 2;
	if (starts(s, "user ", 5)) {
		r->kernel = false;
		s += 5;
	} else if (starts(s, "kernel ", 7)) {
		r->kernel = true;
		s += 7;
	} else {
		return 0;
	}
	if (starts(s, "minor ", 6)) {
		r->result = PGFT_MINOR;
		s += 6;
	} else {
		k = result(&s);
		if (k < 0)
			return 0;
		r->result = k;
	}
	if (!hex(&s, &r->ip))
		return 0;
	r->has_frame = false;
	r->pfn = 0;
	r->node = 0;
	r->order = r->level = 0;
	if (*s == '\n')
		s++;
	else if (*s != ' ' || !(s = frame(s + 1, r)))
		return 0;
	return s - (const unsigned char *)line;
}

/* How a cache record's pages fared, then the newline: past it, or NULL. */
static const unsigned char *cache_how(const unsigned char *s, struct pgft_rec *r)
{
	if (starts(s, "hit\n", 4)) {
		r->cache = PGFT_HIT;
		return s + 4;
	}
	if (starts(s, "miss\n", 5)) {
		r->cache = PGFT_MISS;
		return s + 5;
	}
	if (starts(s, "readahea", 8) && starts(s + 8, "d\n", 2)) {
		r->cache = PGFT_READAHEAD;
		return s + 10;
	}
	if (starts(s, "hole\n", 5)) {
		r->cache = PGFT_HOLE;
		return s + 5;
	}
	if (starts(s, "direct\n", 7)) {
		r->cache = PGFT_DIRECT;
		return s + 7;
	}
	return NULL;
}

size_t pgft_scan_cache(const char *line, struct pgft_rec *r)
{
	const unsigned char *s = (const unsigned char *)line;
	unsigned long long tid;

	if (!starts(s, "cache ", 6))
		return 0;
	s += 6;
	r->type = PGFT_CACHE;
	if (!dec(&s, &r->time) || *s++ != ' ' || !dec(&s, &tid) ||
	    *s++ != ' ' || !dec(&s, &r->id) || *s++ != ' ' ||
	    !dec(&s, &r->start) || *s++ != ' ' || !dec(&s, &r->n[0]) ||
	    *s++ != ' ' || !r->n[0])
		return 0;
	r->tid = tid;
	if ((s[0] != 'r' && s[0] != 'w') || s[1] != ' ')
		return 0;
	r->access = s[0];
	s = cache_how(s + 2, r);
	if (!s)
		return 0;
	r->addr = r->ip = 0;
	r->kernel = false;
	r->result = PGFT_MINOR;
	r->has_frame = false;
	r->pfn = 0;
	r->node = 0;
	r->order = r->level = 0;
	return s - (const unsigned char *)line;
}
