// SPDX-License-Identifier: GPL-2.0
/*
 * test_obuf - lines built by hand in memory (tools/lib/obuf.c) against
 * printf: every number of every width (and the edges: 0, 10^k - 1, 10^k,
 * the largest, the most negative int) written as "%llu" and "%d" write
 * it, hex as "%0*llx", CSV fields quoted as RFC 4180 quotes them, words
 * and strings of any length, longer than the buffer too, written in the
 * order given; a write that fails is told.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "ktap.h"
#include "lib/obuf.h"

static unsigned long long rnd(unsigned long long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* What printf writes of the same, field by field, to compare with. */
struct want {
	char *buf;
	size_t len, cap;
};

static void want_add(struct want *w, const char *s, size_t n)
{
	if (w->len + n + 1 > w->cap) {
		w->cap = 2 * (w->len + n + 1);
		w->buf = realloc(w->buf, w->cap);
		ASSERT_TRUE(w->buf != NULL);
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

static void want_printf(struct want *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void want_printf(struct want *w, const char *fmt, ...)
{
	char s[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(s, sizeof(s), fmt, ap);
	va_end(ap);
	want_add(w, s, n);
}

/* The CSV field of @s, the long way. */
static void want_csv(struct want *w, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")]) {
		want_add(w, s, strlen(s));
		return;
	}
	want_add(w, "\"", 1);
	for (; *s; s++) {
		if (*s == '"')
			want_add(w, "\"", 1);
		want_add(w, s, 1);
	}
	want_add(w, "\"", 1);
}

/* @b's FILE, a memory stream: what was written to it. */
static char *out;
static size_t out_len;

static struct obuf *open_buf(void)
{
	FILE *f = open_memstream(&out, &out_len);
	struct obuf *b;

	ASSERT_TRUE(f != NULL);
	b = obuf_new(f);
	ASSERT_TRUE(b != NULL);
	return b;
}

/* Flush @b and compare what it wrote with @w. */
static void check(struct obuf *b, struct want *w)
{
	FILE *f = b->f;

	obuf_free(b);
	ASSERT_EQ(fclose(f), 0);
	ktap_diag("%zu bytes", out_len);
	ASSERT_EQ(out_len, w->len);
	for (size_t i = 0; i < w->len; i++) {
		if (out[i] != w->buf[i]) {
			ktap_diag("byte %zu: '%.40s' where printf wrote '%.40s'", i,
				  out + (i > 20 ? i - 20 : 0),
				  w->buf + (i > 20 ? i - 20 : 0));
			ASSERT_TRUE(false);
		}
	}
	free(out);
	free(w->buf);
}

TEST(numbers_are_written_as_printf_writes_them)
{
	struct obuf *b = open_buf();
	struct want w = { 0 };
	unsigned long long x = 4242, p10 = 1;

	/* the edges: 0, 10^k - 1, 10^k, 10^k + 1, the largest */
	for (int k = 0; k < 20; k++, p10 *= 10) {
		unsigned long long v[] = { p10 - 1, p10, p10 + 1 };

		for (int i = 0; i < 3; i++) {
			obuf_u64(b, v[i]);
			obuf_char(b, ' ');
			want_printf(&w, "%llu ", v[i]);
		}
	}
	obuf_u64(b, ULLONG_MAX);
	want_printf(&w, "%llu", ULLONG_MAX);
	for (int v = -11; v <= 11; v++) {
		obuf_int(b, v);
		want_printf(&w, "%d", v);
	}
	obuf_int(b, INT_MIN);
	obuf_int(b, INT_MAX);
	want_printf(&w, "%d%d", INT_MIN, INT_MAX);
	/* every width, many of them in one room, as a row writes them */
	for (int i = 0; i < 1000000; i++) {
		unsigned long long u = rnd(&x) >> (rnd(&x) % 64);
		int d = (int)rnd(&x) >> (rnd(&x) % 32);
		char *p = obuf_room(b, 2 * OBUF_NUM + 2);

		p = obuf_put_u64(p, u);
		*p++ = ',';
		p = obuf_put_int(p, d);
		*p++ = '\n';
		obuf_done(b, p);
		want_printf(&w, "%llu,%d\n", u, d);
	}
	for (int i = 0; i < 10000; i++) {
		unsigned long long u = rnd(&x) >> (rnd(&x) % 64);
		int width = rnd(&x) % 17;

		obuf_hex(b, u, width);
		obuf_char(b, ':');
		want_printf(&w, "%0*llx:", width, u);
	}
	check(b, &w);
}

TEST(strings_are_written_whole_and_csv_fields_quoted)
{
	static const char *const fields[] = {
		"", "[heap]", "/bin/with space", "a,b", "say \"hi\"", "\"",
		"line\nbreak", "cr\r", ",", "plain/path.so",
	};
	struct obuf *b = open_buf();
	struct want w = { 0 };
	struct obuf_word word;
	unsigned long long x = 7;
	char *big = malloc(3 * OBUF_SIZE + 1);

	ASSERT_TRUE(big != NULL);
	for (int i = 0; i < 200000; i++) {
		const char *s = fields[rnd(&x) % 10];
		char *p;

		obuf_csv(b, s);
		want_csv(&w, s);
		obuf_word_set(&word, s);
		p = obuf_room(b, 32);
		p = obuf_put_word(p, &word);
		p = obuf_put_lit(p, ",,");
		obuf_done(b, p);
		want_add(&w, s, strlen(s));
		want_add(&w, ",,", 2);
		obuf_str(b, s);
		want_add(&w, s, strlen(s));
		if (i % 20000 == 0) {
			/* longer than the buffer: quoted or not */
			size_t n = rnd(&x) % (3 * OBUF_SIZE);

			memset(big, 'x', n);
			big[n] = '\0';
			if (i % 40000 == 0 && n)
				big[n / 2] = '"';
			obuf_csv(b, big);
			want_csv(&w, big);
			obuf_mem(b, big, n);
			want_add(&w, big, n);
		}
	}
	free(big);
	check(b, &w);
}

TEST(a_write_that_fails_is_told)
{
	FILE *f = fopen("/dev/full", "w");
	struct obuf *b;

	if (!f)
		SKIP("no /dev/full");
	b = obuf_new(f);
	ASSERT_TRUE(b != NULL);
	for (int i = 0; i < 100000; i++)
		obuf_u64(b, i);
	/* the blocks go straight to the file: its own close may succeed */
	EXPECT_EQ(obuf_free(b), ENOSPC);
	fclose(f);
}

KTAP_MAIN()
