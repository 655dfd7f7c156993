/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zfile - traces compressed with zstd or gzip, read and written as plain
 * ones. Reading looks at the stream's first bytes (the zstd and gzip
 * magic numbers), so a compressed trace is read whatever its name, from
 * standard input too; writing compresses with zstd when asked (tracepgfault
 * -o NAME.zst). With libzstd and zlib (Debian's libzstd-dev, zlib1g-dev).
 *
 *	FILE *f = zfile_read(fopen(path, "r"));	// plain or decompressed
 *
 *	struct zwriter *w = zwriter_new(fd, true, false);	// zstd, level 3
 *	zwriter_write(w, buf, n);
 *	zwriter_close(w);				// the frame's end
 */
#ifndef PGFT_ZFILE_H
#define PGFT_ZFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * @f, or a stream of its decompressed bytes if it starts as a zstd or
 * gzip stream (closing it closes @f); NULL with errno set on failure
 * (@f is then closed).
 */
FILE *zfile_read(FILE *f);

/* Whether @name asks for a zstd file: it ends in ".zst". */
bool zfile_wants_zstd(const char *name);
/*
 * Whether @name asks for the binary form (tools/lib/pgfbin.h): it ends in
 * ".pgfb", or ".pgfb.zst" for both.
 */
bool zfile_wants_binary(const char *name);

struct zwriter;

/*
 * Writing to @fd, compressed with zstd if @zstd; with @binary, the text
 * written is turned into the binary form, line by line. NULL out of
 * memory.
 */
struct zwriter *zwriter_new(int fd, bool zstd, bool binary);
/* All of @buf: 0, or -1 with errno set. */
int zwriter_write(struct zwriter *w, const void *buf, size_t n);
/*
 * End the frame and free @w (not @fd): 0, or -1 with errno set. A last
 * line of the binary form with no newline is written cut short, so that
 * a reader finds the trace truncated, as it would the text.
 */
int zwriter_close(struct zwriter *w);

#endif
