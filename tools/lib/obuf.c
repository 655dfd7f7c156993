// SPDX-License-Identifier: GPL-2.0
/*
 * obuf - lines built in memory, written in large blocks (obuf.h).
 */
#include <errno.h>
#include <stdlib.h>
#include "obuf.h"

char obuf_quads[10000][4];

struct obuf *obuf_new(FILE *f)
{
	struct obuf *b = malloc(sizeof(*b));

	if (!obuf_quads[0][0]) {
		for (int i = 0; i < 10000; i++) {
			obuf_quads[i][0] = '0' + i / 1000;
			obuf_quads[i][1] = '0' + i / 100 % 10;
			obuf_quads[i][2] = '0' + i / 10 % 10;
			obuf_quads[i][3] = '0' + i % 10;
		}
	}

	if (b) {
		b->f = f;
		b->err = 0;
		b->p = b->buf;
	}
	return b;
}

/* @n bytes of @s to the FILE, a failure remembered. */
static void put(struct obuf *b, const char *s, size_t n)
{
	errno = 0;
	if (n && fwrite(s, 1, n, b->f) != n && !b->err)
		b->err = errno ? errno : EIO;
}

void obuf_flush(struct obuf *b)
{
	put(b, b->buf, b->p - b->buf);
	b->p = b->buf;
}

int obuf_free(struct obuf *b)
{
	int err;

	if (!b)
		return 0;
	obuf_flush(b);
	err = b->err;
	free(b);
	return err;
}

void obuf_mem(struct obuf *b, const char *s, size_t n)
{
	if (n > (size_t)(b->buf + sizeof(b->buf) - b->p)) {
		obuf_flush(b);
		if (n > sizeof(b->buf)) {
			put(b, s, n);
			return;
		}
	}
	memcpy(b->p, s, n);
	b->p += n;
}

const unsigned char obuf_csv_stops[256] = {
	['\0'] = 1, [','] = 1, ['"'] = 1, ['\r'] = 1, ['\n'] = 1,
};

void obuf_csv_long(struct obuf *b, const char *s)
{
	const char *e = s;

	while (!obuf_csv_stops[(unsigned char)*e])
		e++;
	if (!*e) {
		obuf_mem(b, s, e - s);
		return;
	}
	obuf_char(b, '"');
	for (; *s; s++) {
		if (*s == '"')
			obuf_char(b, '"');
		obuf_char(b, *s);
	}
	obuf_char(b, '"');
}

void obuf_hex(struct obuf *b, unsigned long long v, int width)
{
	char *start = obuf_room(b, 16), *p;
	int n = 1;

	while (n < 16 && v >> 4 * n)
		n++;
	if (n < width)
		n = width;
	for (p = start + n; p > start; v >>= 4)
		*--p = "0123456789abcdef"[v & 15];
	obuf_done(b, start + n);
}
