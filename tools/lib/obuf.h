/* SPDX-License-Identifier: GPL-2.0 */
/*
 * obuf - lines of text built in memory by hand and written to a FILE in
 * large blocks, for an export that writes a line per record: printf's
 * parsing of its format and stdio's locking, call by call, were most of
 * the cost of such a line. Numbers are written as printf's "%llu" and
 * "%d" write them, a CSV field as RFC 4180 quotes it.
 *
 *	struct obuf *b = obuf_new(stdout);
 *	char *p = obuf_room(b, 2 * OBUF_NUM + 2);	// then no check
 *	p = obuf_put_u64(p, time); *p++ = ',';
 *	p = obuf_put_int(p, tid); *p++ = ',';
 *	obuf_done(b, p);
 *	obuf_csv(b, name); obuf_char(b, '\n');	// checked, one at a time
 *	obuf_free(b);				// what is left, written
 *
 * Nothing reaches the FILE before obuf_flush() or obuf_free(): whoever
 * writes to it otherwise flushes first. obuf_free() says if a write
 * failed: the block that failed went straight to the file, and the
 * FILE's own flush or close may then succeed.
 */
#ifndef PGFT_OBUF_H
#define PGFT_OBUF_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The bytes held before they are written. */
#define OBUF_SIZE	(1 << 16)
/* The most obuf_room() may ask for. */
#define OBUF_ROOM	1024
/* The bytes obuf_put_u64() and obuf_put_int() may write (past the number too). */
#define OBUF_NUM	24

struct obuf {
	FILE *f;
	int err;			/* the errno of the first write that failed */
	char *p;			/* the end of what is held */
	char buf[OBUF_SIZE + OBUF_ROOM];
};

/* A buffer writing to @f; NULL out of memory. */
struct obuf *obuf_new(FILE *f);
/* Write what is held to the FILE (not flushing the FILE itself). */
void obuf_flush(struct obuf *b);
/*
 * Flush, then free @b (NULL: nothing): 0, or the errno of the first write
 * to the FILE that failed (the FILE's own flush or close may succeed).
 */
int obuf_free(struct obuf *b);
/* @n bytes of @s, any number. */
void obuf_mem(struct obuf *b, const char *s, size_t n);
/* obuf_csv(), any field. */
void obuf_csv_long(struct obuf *b, const char *s);
/* @v in lower-case hex, at least @width (at most 16) digits, as "%0*llx". */
void obuf_hex(struct obuf *b, unsigned long long v, int width);

/*
 * Room for @n (at most OBUF_ROOM) more bytes: where they go, to be
 * written there without a check, then obuf_done() with their end.
 */
static inline char *obuf_room(struct obuf *b, size_t n)
{
	if (b->p + n > b->buf + sizeof(b->buf))
		obuf_flush(b);
	return b->p;
}

static inline void obuf_done(struct obuf *b, char *end)
{
	b->p = end;
}

/*
 * "0000" to "9999", a number's digits four at a time (obuf_new() fills
 * it): a division by 10^4 and a copy of 4 bytes, where printf takes a
 * division a digit.
 */
extern char obuf_quads[10000][4];

/* The digits of @v (below 10^4), at least one. */
static inline int obuf_len4(uint32_t v)
{
	return 1 + (v >= 10) + (v >= 100) + (v >= 1000);
}

/*
 * The digits of @v (below 10^8) at @p, no zeros ahead: past them. Up to
 * 8 bytes are written, the digits first.
 */
static inline char *obuf_put_small(char *p, uint32_t v)
{
	uint32_t hi;
	int n;

	if (v < 10000) {
		/* the last n of its four (those past it: the next entry's) */
		n = obuf_len4(v);
		memcpy(p, obuf_quads[v] + 4 - n, 4);
		return p + n;
	}
	hi = v / 10000;
	n = obuf_len4(hi);
	memcpy(p, obuf_quads[hi] + 4 - n, 4);
	memcpy(p + n, obuf_quads[v % 10000], 4);
	return p + n + 4;
}

/* The 8 digits of @v (below 10^8) at @p, zeros ahead: past them. */
static inline char *obuf_put_8digits(char *p, uint32_t v)
{
	memcpy(p, obuf_quads[v / 10000], 4);
	memcpy(p + 4, obuf_quads[v % 10000], 4);
	return p + 8;
}

/* @v in decimal at @p, as "%llu": past it. */
static inline __attribute__((always_inline)) char *
obuf_put_u64(char *p, unsigned long long v)
{
	unsigned long long hi;

	if (v < 100000000)
		return obuf_put_small(p, v);
	hi = v / 100000000;
	if (hi < 100000000) {
		p = obuf_put_small(p, hi);
	} else {
		p = obuf_put_small(p, hi / 100000000);
		p = obuf_put_8digits(p, hi % 100000000);
	}
	return obuf_put_8digits(p, v % 100000000);
}

/* @v in decimal at @p, as "%d": past it. */
static inline __attribute__((always_inline)) char *obuf_put_int(char *p, int v)
{
	if (v < 0) {
		*p++ = '-';
		return obuf_put_u64(p, -(unsigned long long)v);
	}
	return obuf_put_u64(p, v);
}

/* The string @s at @p: past it. */
static inline char *obuf_put_str(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

/* The string literal @lit at @p: past it, in one copy of its known size. */
#define obuf_put_lit(p, lit)	((char *)memcpy(p, lit, sizeof(lit) - 1) + sizeof(lit) - 1)

/*
 * A word (at most 15 bytes) kept to be written whole in one copy of 16
 * bytes: a name of a field's values, set once from the name.
 */
struct obuf_word {
	char s[16];
	unsigned char n;
};

/* @w, the word @s: 0, or -1 if @s is longer than a word (@w unset). */
static inline int obuf_word_set(struct obuf_word *w, const char *s)
{
	size_t n = strlen(s);

	if (n >= sizeof(w->s))
		return -1;
	memset(w->s, 0, sizeof(w->s));
	memcpy(w->s, s, n);
	w->n = n;
	return 0;
}

/* The word @w at @p (16 bytes written, the word first): past it. */
static inline char *obuf_put_word(char *p, const struct obuf_word *w)
{
	memcpy(p, w->s, sizeof(w->s));
	return p + w->n;
}

static inline void obuf_char(struct obuf *b, char c)
{
	obuf_done(b, obuf_room(b, 1));
	*b->p++ = c;
}

/* A string of at most OBUF_ROOM bytes. */
static inline void obuf_str(struct obuf *b, const char *s)
{
	obuf_done(b, obuf_put_str(obuf_room(b, strlen(s)), s));
}

static inline void obuf_u64(struct obuf *b, unsigned long long v)
{
	obuf_done(b, obuf_put_u64(obuf_room(b, OBUF_NUM), v));
}

static inline void obuf_int(struct obuf *b, int v)
{
	obuf_done(b, obuf_put_int(obuf_room(b, OBUF_NUM), v));
}

/* The bytes a CSV field is quoted for, and the NUL that ends it. */
extern const unsigned char obuf_csv_stops[256];

/*
 * A CSV field: @s as it is, or quoted with its quotes doubled (RFC 4180).
 * Inline, a short one that needs no quotes: copied as it is scanned.
 */
static inline void obuf_csv(struct obuf *b, const char *s)
{
	char *p = obuf_room(b, 64), *end = p + 64;
	const char *e = s;

	while (p < end && !obuf_csv_stops[(unsigned char)*e])
		*p++ = *e++;
	if (!*e)
		obuf_done(b, p);
	else
		obuf_csv_long(b, s);
}

#endif
