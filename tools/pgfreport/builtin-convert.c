// SPDX-License-Identifier: GPL-2.0
/*
 * pgfreport convert - a trace from its text form to the binary one
 * (tools/lib/pgfbin.h) and back, record for record: text -> binary ->
 * text gives back the same bytes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "builtin.h"
#include "output.h"
#include "pass.h"
#include "../lib/pgfbin.h"
#include "../lib/zfile.h"

static const char usage[] =
"Usage: pgfreport convert [--to text|binary] [-o FILE] [TRACE]\n"
"\n"
"Write the trace in the other form: a text trace (as the kernel and\n"
"tracepgfault write it) in the binary form, a binary one as text. The\n"
"binary form holds the same records, a fault in 32 bytes; every command\n"
"reads either, and reads them several times faster from the binary\n"
"form. Converting text to binary and back gives the same bytes. The\n"
"whole trace is checked as it is read: a bad record ends the command\n"
"with status 1, and -o FILE is then left as it was.\n"
"\n"
"Options:\n"
"  --to FORM     text or binary (default: the form TRACE is not in)\n"
"  -o, --output FILE  write to FILE, replaced only once it is whole\n"
"                (compressed with zstd if FILE ends in .zst), instead of\n"
"                standard output\n"
"\n"
"Examples:\n"
"  pgfreport convert -o big.pgfb big.trace.zst\n"
"  pgfreport convert --to text big.pgfb | less\n";

struct conv {
	bool decided;			/* the header is read: to_bin holds */
	char *pending;			/* before that, its lines, each + '\n' */
	size_t npending;
	bool to_bin;
	struct zwriter *w;
	unsigned char *buf;
	size_t len;
	int err;			/* errno of the first write that failed */
	unsigned long long records;
};

#define CONV_BUF	(1 << 20)

static void conv_flush(struct conv *c)
{
	if (c->len && !c->err && zwriter_write(c->w, c->buf, c->len))
		c->err = errno ? errno : EIO;
	c->len = 0;
}

/* Room for @n bytes more in the output buffer. */
static unsigned char *conv_room(struct conv *c, size_t n)
{
	if (c->len + n > CONV_BUF)
		conv_flush(c);
	return c->buf + c->len;
}

/*
 * Every record as the reader takes it in: the same in the other form.
 * @fixed: a fixed record (a fault, a fault with its frame, a cache record).
 */
static void conv_tap(void *arg, const char *line, size_t len,
		     const unsigned char *fixed)
{
	struct conv *c = arg;
	struct pgft_rec r;
	unsigned char *p;
	char *more;

	if (!c->decided) {
		/* The open reads header lines only, never a fault. */
		more = realloc(c->pending, c->npending + len + 1);
		if (!more) {
			c->err = ENOMEM;
			return;
		}
		c->pending = more;
		memcpy(more + c->npending, line, len);
		more[c->npending + len] = '\n';
		c->npending += len + 1;
		return;
	}
	c->records++;
	if (c->to_bin) {
		if (fixed) {
			size_t bytes = pgfb_fixed_bytes(fixed[0]);

			memcpy(conv_room(c, bytes), fixed, bytes);
			c->len += bytes;
		} else {
			c->len += pgfb_encode(line, len,
					      conv_room(c, pgfb_line_bytes(len)));
		}
		return;
	}
	if (fixed) {
		p = conv_room(c, 160);
		pgfb_get_fixed(fixed, &r);
		len = pgfb_fixed_text(&r, (char *)p);
	} else {
		p = conv_room(c, len + 1);
		memcpy(p, line, len);
	}
	p[len] = '\n';
	c->len += len + 1;
}

int cmd_convert(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "to", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	struct pass ps = { .cmd = "convert", .usage = usage };
	struct conv c = { 0 };
	struct staged st = { 0 };
	const char *path = NULL, *to = NULL;
	unsigned char head[PGFB_HEADER];
	FILE *out = stdout;
	int opt, status;

	while ((opt = pass_getopt(&ps, argc, argv, "o:", longopts)) != -1) {
		switch (opt) {
		case PASS_QUIT:
			return ps.status;
		case 'o':
			path = optarg;
			break;
		case 't':
			if (strcmp(optarg, "text") && strcmp(optarg, "binary"))
				return pass_bad_arg(&ps, "--to", optarg,
						    "a form: text or binary");
			to = optarg;
			break;
		}
	}
	c.buf = malloc(CONV_BUF);
	if (!c.buf)
		return pass_error(&ps, "out of memory");
	ps.tap = conv_tap;
	ps.streams = true;
	ps.tap_arg = &c;
	status = pass_open(&ps, argc - optind, argv + optind);
	if (status || c.err) {
		free(c.buf);
		free(c.pending);
		return c.err ? pass_error(&ps, "out of memory") : status;
	}
	/* The header lines the open read go out in the form now known. */
	c.to_bin = to ? !strcmp(to, "binary") : !ps.trace.rd.bin;
	c.decided = true;
	for (char *l = c.pending, *e; l && l < c.pending + c.npending; l = e + 1) {
		e = memchr(l, '\n', c.pending + c.npending - l);
		conv_tap(&c, l, e - l, NULL);
	}
	free(c.pending);
	if (c.to_bin && !path && isatty(STDOUT_FILENO)) {
		free(c.buf);
		pass_close(&ps);
		return pass_usage(&ps, "the binary form is not for a terminal: "
				  "give -o FILE, or redirect standard output");
	}
	if (path && !(out = staged_open(&st, path))) {
		status = pass_error(&ps, "%s: %s", path, strerror(errno));
		free(c.buf);
		pass_close(&ps);
		return status;
	}
	c.w = zwriter_new(fileno(out), path && zfile_wants_zstd(path), false);
	if (!c.w) {
		status = pass_error(&ps, "out of memory");
		goto out;
	}
	if (c.to_bin) {
		/* The header, before the lines the open read. */
		pgfb_header(head);
		if (zwriter_write(c.w, head, sizeof(head)))
			c.err = errno;
	}
	status = pass_run(&ps);
	conv_flush(&c);
	if (zwriter_close(c.w) && !c.err)
		c.err = errno ? errno : EIO;
	if (c.err && !status)
		status = pass_error(&ps, "%s: %s", path ? path : "standard output",
				    strerror(c.err));
out:
	if ((out == stdout ? fflush(out) : fclose(out)) && !status)
		status = pass_error(&ps, "%s: %s", path ? path : "standard output",
				    strerror(errno));
	/* a trace with no end is written all the same, as it is */
	if (staged_end(&st, status && !ps.replay.cut))
		status = pass_error(&ps, "%s: %s", path, strerror(errno));
	if (!status || ps.replay.cut)
		fprintf(stderr, "pgfreport convert: %llu records of %s written %s\n",
			c.records, ps.trace.fname, c.to_bin ? "in binary" : "as text");
	free(c.buf);
	pass_close(&ps);
	return status;
}
