// SPDX-License-Identifier: GPL-2.0
/*
 * zfile - zstd and gzip traces read and written as plain ones (zfile.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include "pgfbin.h"
#include "zfile.h"

enum kind { PLAIN, ZSTD, GZIP };

struct zreader {
	FILE *f;
	enum kind kind;
	unsigned char head[4];		/* the bytes read to tell the kind */
	size_t nhead, headpos;
	ZSTD_DStream *zd;
	z_stream gz;
	bool gz_end;
	unsigned char in[1 << 16];
	ZSTD_inBuffer zin;
	size_t zleft;			/* ZSTD_decompressStream()'s: 0 at a frame's end */
};

/* Raw bytes: the peeked ones first. */
static size_t raw(struct zreader *z, void *buf, size_t n)
{
	size_t k = 0;

	while (z->headpos < z->nhead && k < n)
		((unsigned char *)buf)[k++] = z->head[z->headpos++];
	return k + (k < n ? fread((char *)buf + k, 1, n - k, z->f) : 0);
}

static ssize_t zread(void *cookie, char *buf, size_t size)
{
	struct zreader *z = cookie;
	size_t ret;

	if (z->kind == PLAIN)
		return raw(z, buf, size);
	if (z->kind == ZSTD) {
		ZSTD_outBuffer out = { buf, size, 0 };

		while (!out.pos) {
			if (z->zin.pos == z->zin.size) {
				z->zin.size = raw(z, z->in, sizeof(z->in));
				z->zin.src = z->in;
				z->zin.pos = 0;
				if (!z->zin.size && z->zleft) {
					errno = EBADMSG;	/* cut in a frame */
					return -1;
				}
				if (!z->zin.size)
					return ferror(z->f) ? -1 : 0;
			}
			ret = ZSTD_decompressStream(z->zd, &out, &z->zin);
			if (ZSTD_isError(ret)) {
				errno = EBADMSG;
				return -1;
			}
			z->zleft = ret;
		}
		return out.pos;
	}
	/* gzip, members one after the other as gunzip reads them */
	z->gz.next_out = (unsigned char *)buf;
	z->gz.avail_out = size;
	while (z->gz.avail_out == size) {
		int r;

		if (!z->gz.avail_in) {
			z->gz.avail_in = raw(z, z->in, sizeof(z->in));
			z->gz.next_in = z->in;
			if (!z->gz.avail_in && !z->gz_end) {
				errno = EBADMSG;	/* cut in a member */
				return -1;
			}
			if (!z->gz.avail_in)
				return ferror(z->f) ? -1 : 0;
		}
		if (z->gz_end) {
			inflateReset(&z->gz);
			z->gz_end = false;
		}
		r = inflate(&z->gz, Z_NO_FLUSH);
		if (r == Z_STREAM_END) {
			z->gz_end = true;
		} else if (r != Z_OK) {
			errno = EBADMSG;
			return -1;
		}
	}
	return size - z->gz.avail_out;
}

static int zclose(void *cookie)
{
	struct zreader *z = cookie;
	int ret = fclose(z->f);

	if (z->zd)
		ZSTD_freeDStream(z->zd);
	if (z->kind == GZIP)
		inflateEnd(&z->gz);
	free(z);
	return ret;
}

FILE *zfile_read(FILE *f)
{
	static const cookie_io_functions_t io = { .read = zread, .close = zclose };
	struct zreader *z;
	FILE *out;

	if (!f)
		return NULL;
	/* A plain file that can be peeked at without reading stays as it is. */
	if (ftell(f) == 0) {
		unsigned char m[4];
		ssize_t n = pread(fileno(f), m, sizeof(m), 0);

		if (n >= 0 && !(n == 4 && !memcmp(m, "\x28\xb5\x2f\xfd", 4)) &&
		    !(n >= 2 && m[0] == 0x1f && m[1] == 0x8b))
			return f;
	}
	errno = 0;
	z = calloc(1, sizeof(*z));
	if (!z) {
		fclose(f);
		return NULL;
	}
	z->f = f;
	z->nhead = fread(z->head, 1, sizeof(z->head), f);
	if (z->nhead == 4 && !memcmp(z->head, "\x28\xb5\x2f\xfd", 4)) {
		z->kind = ZSTD;
		z->zd = ZSTD_createDStream();
		if (!z->zd || ZSTD_isError(ZSTD_initDStream(z->zd)))
			goto fail;
	} else if (z->nhead >= 2 && z->head[0] == 0x1f && z->head[1] == 0x8b) {
		z->kind = GZIP;
		if (inflateInit2(&z->gz, 15 + 16) != Z_OK)	/* gzip headers */
			goto fail;
	} else if (z->nhead < 4 && ferror(f)) {
		goto fail;
	}
	out = fopencookie(z, "r", io);
	if (out)
		return out;
fail:
	if (!errno)
		errno = ENOMEM;
	zclose(z);
	return NULL;
}

bool zfile_wants_zstd(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && !strcmp(name + n - 4, ".zst");
}

bool zfile_wants_binary(const char *name)
{
	size_t n = strlen(name);

	if (zfile_wants_zstd(name))
		n -= 4;
	return n > 5 && !strncmp(name + n - 5, ".pgfb", 5);
}

struct zwriter {
	int fd;
	ZSTD_CStream *zc;
	unsigned char out[1 << 16];
	bool binary;
	char *line;			/* binary: the line so far */
	size_t len, cap;
	unsigned char *rec;		/* binary: its record */
	size_t rec_cap;
};

static int put(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= w;
	}
	return 0;
}

static int zwrite_raw(struct zwriter *w, const void *buf, size_t n);

struct zwriter *zwriter_new(int fd, bool zstd, bool binary)
{
	struct zwriter *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->fd = fd;
	w->binary = binary;
	if (zstd) {
		w->zc = ZSTD_createCStream();
		if (!w->zc || ZSTD_isError(ZSTD_initCStream(w->zc, 3))) {
			if (w->zc)
				ZSTD_freeCStream(w->zc);
			free(w);
			errno = ENOMEM;
			return NULL;
		}
	}
	return w;
}

/* Compress @in (or, with @end, end the frame) and write what comes out. */
static int pump(struct zwriter *w, ZSTD_inBuffer *in, ZSTD_EndDirective end)
{
	size_t left;

	do {
		ZSTD_outBuffer out = { w->out, sizeof(w->out), 0 };

		left = ZSTD_compressStream2(w->zc, &out, in, end);
		if (ZSTD_isError(left)) {
			errno = EIO;
			return -1;
		}
		if (put(w->fd, w->out, out.pos))
			return -1;
	} while (end == ZSTD_e_end ? left != 0 : in->pos < in->size);
	return 0;
}

static int zwrite_raw(struct zwriter *w, const void *buf, size_t n)
{
	ZSTD_inBuffer in = { buf, n, 0 };

	if (!w->zc)
		return put(w->fd, buf, n);
	return pump(w, &in, ZSTD_e_continue);
}

/* Room for @n bytes in @*p of @*cap: 0, or -1 with errno set. */
static int room(void **p, size_t *cap, size_t n)
{
	void *more;

	if (n <= *cap)
		return 0;
	more = realloc(*p, n);
	if (!more) {
		errno = ENOMEM;
		return -1;
	}
	*p = more;
	*cap = n;
	return 0;
}

/* The text lines in @buf, each as its record; a cut one is kept. */
static int zwrite_binary(struct zwriter *w, const char *buf, size_t n)
{
	unsigned char head[PGFB_HEADER];
	const char *nl;
	size_t k, bytes;

	if (!w->rec) {
		/* The first bytes: the header before them. */
		if (room((void **)&w->rec, &w->rec_cap, 4096))
			return -1;
		pgfb_header(head);
		if (zwrite_raw(w, head, sizeof(head)))
			return -1;
	}
	while (n) {
		nl = memchr(buf, '\n', n);
		k = nl ? (size_t)(nl - buf) : n;
		if (room((void **)&w->line, &w->cap, w->len + k + 1))
			return -1;
		memcpy(w->line + w->len, buf, k);
		w->len += k;
		buf += k;
		n -= k;
		if (!nl)
			break;
		buf++;
		n--;
		if (room((void **)&w->rec, &w->rec_cap, pgfb_line_bytes(w->len)))
			return -1;
		bytes = pgfb_encode(w->line, w->len, w->rec);
		w->len = 0;
		if (zwrite_raw(w, w->rec, bytes))
			return -1;
	}
	return 0;
}

int zwriter_write(struct zwriter *w, const void *buf, size_t n)
{
	return w->binary ? zwrite_binary(w, buf, n) : zwrite_raw(w, buf, n);
}

int zwriter_close(struct zwriter *w)
{
	ZSTD_inBuffer in = { NULL, 0, 0 };
	int ret = 0;

	if (w->binary && (w->len || !w->rec)) {
		/* A file with nothing is a header; a cut line stays cut. */
		ret = zwrite_binary(w, "", 0);
		if (!ret && w->len) {
			/*
			 * A line record that says it holds one byte more than
			 * the file has: the reader finds the trace cut.
			 */
			uint32_t len = htole32((uint32_t)w->len + 1);
			unsigned char head[8] = { PGFB_LINE };

			memcpy(head + 4, &len, 4);
			ret = zwrite_raw(w, head, 8) ||
			      zwrite_raw(w, w->line, w->len) ? -1 : 0;
		}
	}
	free(w->line);
	free(w->rec);
	if (w->zc) {
		ret = pump(w, &in, ZSTD_e_end);
		ZSTD_freeCStream(w->zc);
	}
	free(w);
	return ret;
}
