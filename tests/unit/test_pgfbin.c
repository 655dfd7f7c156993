// SPDX-License-Identifier: GPL-2.0
/*
 * test_pgfbin - the binary form of a trace (tools/lib/pgfbin.c) and its
 * reading (tools/lib/pgftrace.c): a fault record decodes to the very
 * record the text parser makes of its line, field by field, over random
 * faults of every result, access and mode; a fault line the record would
 * not give back byte for byte (upper-case hex, leading zeros, a tid past
 * 2^31) stays a line record; the reader, fed the same records in both
 * forms, gives the same records; and every malformed binary file (bad
 * magic, newer version, a cut record, a bad type, length, padding or
 * field, a newline in a line) is an error naming the record, never a
 * shorter trace; tracepgfault's writer (a zwriter with binary set) makes the
 * same bytes from the text in any pieces, and a last line it never got
 * whole is written cut.
 */
#include <stdlib.h>
#include <string.h>
#include "ktap.h"
#include "lib/pgfbin.h"
#include "lib/pgftrace.h"
#include "lib/zfile.h"

static unsigned long long rnd(unsigned long long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The fields of two records equal, as a reader sees them. */
static int same_rec(const struct pgft_rec *a, const struct pgft_rec *b)
{
	return a->type == b->type && a->pid == b->pid && a->time == b->time &&
	       a->tid == b->tid && a->addr == b->addr && a->ip == b->ip &&
	       a->access == b->access && a->kernel == b->kernel &&
	       a->result == b->result && a->id == b->id && a->start == b->start &&
	       a->end == b->end && a->offset == b->offset &&
	       a->inode == b->inode && a->major == b->major &&
	       a->minor == b->minor && !memcmp(a->perms, b->perms, 5) &&
	       !strcmp(a->name, b->name) && !memcmp(a->n, b->n, sizeof(a->n)) &&
	       a->flags == b->flags && !strcmp(a->text, b->text) &&
	       a->cache == b->cache && a->has_frame == b->has_frame &&
	       (!a->has_frame || (a->pfn == b->pfn && a->node == b->node &&
				  a->order == b->order && a->level == b->level));
}

/*
 * Line @line of @n characters: a fixed record (32 bytes, 40 for a fault
 * with its frame) whose record is the line's, and whose text is the line
 * again.
 */
static void round_trip(const char *line, int n)
{
	unsigned char bin[PGFB_FRAME_BYTES + 64];
	char copy[200], text[200];
	struct pgft_rec a, b;

	ASSERT_EQ(pgfb_encode(line, n, bin), pgfb_fixed_bytes(bin[0]));
	ASSERT_TRUE(bin[0] == PGFB_FAULT || bin[0] == PGFB_CACHE ||
		    bin[0] == PGFB_FRAME);
	ASSERT_TRUE(pgfb_get_fixed(bin, &b));
	strcpy(copy, line);
	ASSERT_EQ(pgft_parse(copy, &a), 0);
	ASSERT_TRUE(same_rec(&a, &b));
	ASSERT_EQ(pgfb_fixed_text(&b, text), (size_t)n);
	ASSERT_EQ(strcmp(text, line), 0);
}

TEST(a_fault_record_is_the_record_of_its_line)
{
	static const char *const results[] = {
		"minor", "major", "reref", "SIGSEGV", "SIGBUS", "OOM",
	};
	unsigned long long x = 12345;
	char line[200];
	int n;

	for (int i = 0; i < 100000; i++) {
		/*
		 * Every width: 0, small, and the largest of each field (a
		 * time has at most 19 digits, as the text reader takes).
		 */
		unsigned long long t = i % 11 ? (rnd(&x) >> (rnd(&x) % 64)) %
			PGFB_MAX_TIME : PGFB_MAX_TIME;
		unsigned long long addr = rnd(&x) >> (rnd(&x) % 64);
		unsigned long long ip = i % 7 ? rnd(&x) >> (rnd(&x) % 64) : ~0ULL;
		int tid = i % 5 ? (int)(rnd(&x) % 0x7fffffff) + 1 : 0x7fffffff;

		n = snprintf(line, sizeof(line), "fault %llu %d %llx %c %s %s %llx",
			     t, tid, addr, "rwx"[rnd(&x) % 3],
			     rnd(&x) & 1 ? "kernel" : "user",
			     results[rnd(&x) % 6], ip);
		round_trip(line, n);
	}
}

TEST(a_cache_record_is_the_record_of_its_line)
{
	unsigned long long x = 777;
	char line[200];
	int n;

	for (int i = 0; i < 100000; i++) {
		unsigned long long t = i % 11 ? (rnd(&x) >> (rnd(&x) % 64)) %
			PGFB_MAX_TIME : PGFB_MAX_TIME;
		/* a page index: below 2^52 (2^64 bytes of 4 KiB pages) */
		unsigned long long index = i % 13 ? rnd(&x) >> (12 + rnd(&x) % 52) :
			~0ULL >> 12;
		unsigned long long pages = i % 17 ? (rnd(&x) >> (rnd(&x) % 64)) %
			UINT32_MAX + 1 : UINT32_MAX;
		unsigned long long file = i % 19 ? (rnd(&x) >> (rnd(&x) % 64)) %
			UINT32_MAX : UINT32_MAX;
		int tid = i % 5 ? (int)(rnd(&x) % 0x7fffffff) + 1 : 0x7fffffff;

		n = snprintf(line, sizeof(line), "cache %llu %d %llu %llu %llu %c %s",
			     t, tid, file, index, pages, "rw"[rnd(&x) % 2],
			     pgft_cache_names[rnd(&x) % PGFT_NCACHE]);
		round_trip(line, n);
	}
}

TEST(a_frame_record_is_the_record_of_its_line)
{
	static const char * const results[] = { "minor", "major", "reref" };
	unsigned long long x = 0x5eed;
	char line[200], node[16];
	int n;

	for (int i = 0; i < 100000; i++) {
		unsigned long long t = (rnd(&x) >> (rnd(&x) % 64)) % PGFB_MAX_TIME;
		unsigned long long pfn = i % 7 ? rnd(&x) >> (24 + rnd(&x) % 40) :
			(1ULL << 40) - 1;
		int nd = (int)(rnd(&x) % 2048) - 1;

		if (nd == 0x7ff - 1 || i % 11 == 0)
			snprintf(node, sizeof(node), "-");
		else
			snprintf(node, sizeof(node), "%d", nd < 0 ? 0 : nd);
		n = snprintf(line, sizeof(line),
			     "fault %llu %d %llx %c %s %s %llx %llx %s %u %s",
			     t, (int)(rnd(&x) % 0x7fffffff), rnd(&x) >> (rnd(&x) % 64),
			     "rwx"[rnd(&x) % 3], rnd(&x) % 2 ? "user" : "kernel",
			     results[rnd(&x) % 3], rnd(&x) >> (rnd(&x) % 64), pfn,
			     node, (unsigned int)(i % 13 ? rnd(&x) % 10 : 63),
			     pgft_level_names[rnd(&x) % PGFT_NLEVEL]);
		round_trip(line, n);
	}
}

TEST(a_line_the_record_would_not_give_back_stays_a_line)
{
	static const char *const lines[] = {
		"fault 10 7 7F0000 r user minor 4000",		/* upper case */
		"fault 010 7 7f0000 r user minor 4000",		/* leading 0 */
		"fault 10 7 07f0000 r user minor 4000",
		"fault 10 2147483648 7f0000 r user minor 4000",	/* tid > 2^31 - 1 */
		"fault 10 7 7f0000 r user minor",		/* malformed */
		"fault 10 7 7f0000 q user minor 4000",
		"fault 10 7 7f0000 r user minor 4000 01a 0 0 pte",	/* leading 0 */
		"fault 10 7 7f0000 r user minor 4000 1a 00 0 pte",
		"fault 10 7 7f0000 r user SIGSEGV 4000 1a 0 0 pte",	/* malformed */
		"fault 10 7 7f0000 r user minor 4000 1a 2047 0 pte",
		"fault 10 7 7f0000 r user minor 4000 10000000000 0 0 pte",
		"fault 10 7 7f0000 r user minor 4000 1a 0 64 pte",
		"fault 10 7 7f0000 r user minor 4000 1a 0 0 p4d",
		"fault 10 7 7f0000 r user minor 4000 1a 0 0",
		"cache 10 7 0 05 2 r hit",			/* leading 0 */
		"cache 10 7 4294967296 5 2 r hit",		/* file > 2^32 - 1 */
		"cache 10 7 0 5 4294967296 r hit",		/* pages > 2^32 - 1 */
		"cache 10 7 0 5 2 x hit",			/* malformed */
		"map 100 1 400000 401000 r-xp 0 08:01 1234 /bin/with space",
		"pgfault_history 6 pid 7 page_size 4096",
		"",
	};
	unsigned char bin[256];
	uint32_t len;

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		size_t n = strlen(lines[i]);

		ASSERT_EQ(pgfb_encode(lines[i], n, bin), pgfb_line_bytes(n));
		EXPECT_EQ(bin[0], PGFB_LINE);
		memcpy(&len, bin + 4, 4);
		EXPECT_EQ(len, n);
		EXPECT_EQ(memcmp(bin + 8, lines[i], n), 0);
		for (size_t k = 8 + n; k < pgfb_line_bytes(n); k++)
			EXPECT_EQ(bin[k], 0);
	}
}

static const char every[] =
	"pgfault_history 8 pid 7 page_size 4096\n"
	"start 100 sample=50 inherit files\n"
	"layout 100 2\n"
	"map 100 1 400000 401000 r-xp 0 08:01 1234 /bin/with space\n"
	"map 100 2 7f0000000000 7f0000004000 rw-p 1000 fd:1f 0\n"
	"fault 200 7 400010 x user minor 400010\n"
	"fault 210 8 7f0000001000 w kernel major 400020\n"
	"fault 220 7 7F0000002000 r user reref 400030\n"
	"remote 260 7 r minor\n"
	"rearm 280 12 window\n"
	"refs 300 7 400000+1 7f0000001000+3\n"
	"sample 320 7 40 0 99 baseline incomplete stopped\n"
	"file 330 0 08:01 1234 /bin/with space\n"
	"cache 331 7 0 0 4 r miss\n"
	"cache 332 8 0 4 12 w readahead\n"
	"fault 333 7 7f0000003000 w user minor 400040 1a2b3 1 0 pte\n"
	"fault 334 8 7f0000200000 r kernel major 400050 ffffffffff - 9 pmd\n"
	"lost 3 4\n"
	"unmap 340 1\n"
	"exit 400 0 6 3 1 cache 2 0\n";

/* @text in the binary form, in @out; its length. */
static size_t to_bin(const char *text, unsigned char *out)
{
	size_t n = PGFB_HEADER;

	pgfb_header(out);
	for (const char *l = text, *e; *l; l = e + 1) {
		e = strchr(l, '\n');
		n += pgfb_encode(l, e - l, out + n);
	}
	return n;
}

/* Every record of @f: how many, or -1 with the error in @err. */
static int read_all(FILE *f, struct pgft_rec *v, int max, char *err)
{
	struct pgft_reader rd;
	int n = 0, ret;

	err[0] = 0;
	if (pgft_open(&rd, f, "t")) {
		strcpy(err, rd.error);
		pgft_close(&rd);
		return -1;
	}
	while (n < max && (ret = pgft_next(&rd, &v[n])) > 0) {
		/* Names and texts live in the reader's buffer: keep them. */
		v[n].name = strdup(v[n].name);
		v[n].text = strdup(v[n].text);
		n++;
	}
	if (ret < 0)
		strcpy(err, rd.error);
	pgft_close(&rd);
	return ret < 0 ? -1 : n;
}

TEST(both_forms_read_as_the_same_records)
{
	static unsigned char bin[4096];
	struct pgft_rec a[32], b[32];
	char err[512];
	size_t n = to_bin(every, bin);
	FILE *ft = fmemopen((void *)every, strlen(every), "r");
	FILE *fb = fmemopen(bin, n, "r");
	int na = read_all(ft, a, 32, err), nb;

	ASSERT_EQ(na, 19);
	nb = read_all(fb, b, 32, err);
	ktap_diag("%d records, %zu bytes binary for %zu of text", nb, n,
		  strlen(every));
	ASSERT_EQ(nb, na);
	for (int i = 0; i < na; i++) {
		if (!same_rec(&a[i], &b[i]))
			ktap_diag("record %d differs", i + 1);
		EXPECT_TRUE(same_rec(&a[i], &b[i]));
	}
	fclose(ft);
	fclose(fb);
}

/* The error reading binary @bin of @n bytes, "" if none. */
static const char *bin_error(unsigned char *bin, size_t n)
{
	static char err[512];
	struct pgft_rec v[32];
	FILE *f = fmemopen(bin, n, "r");

	read_all(f, v, 32, err);
	fclose(f);
	return err;
}

TEST(a_malformed_binary_trace_is_an_error_naming_the_record)
{
	static unsigned char good[4096], bad[4096];
	size_t n = to_bin(every, good), first_fault = 0, first_cache = 0, at;
	size_t first_frame = 0;

	ASSERT_EQ(strcmp(bin_error(good, n), ""), 0);
	/* the offsets of the first fault record and the first cache record */
	for (at = PGFB_HEADER; at < n; ) {
		uint32_t len;

		if (good[at] == PGFB_FAULT || good[at] == PGFB_CACHE ||
		    good[at] == PGFB_FRAME) {
			if (good[at] == PGFB_FAULT && !first_fault)
				first_fault = at;
			if (good[at] == PGFB_CACHE && !first_cache)
				first_cache = at;
			if (good[at] == PGFB_FRAME && !first_frame)
				first_frame = at;
			at += pgfb_fixed_bytes(good[at]);
			continue;
		}
		memcpy(&len, good + at + 4, 4);
		at += pgfb_line_bytes(len);
	}
	ASSERT_GT(first_fault, 0);
	ASSERT_GT(first_cache, 0);
	ASSERT_GT(first_frame, 0);

#define BAD(what, change, want) do {					\
		memcpy(bad, good, n);					\
		change;							\
		const char *e = bin_error(bad, n);			\
		ktap_diag("%s: %s", what, e);				\
		EXPECT_TRUE(strstr(e, want) != NULL);			\
	} while (0)

	BAD("magic", bad[1] = 'X', "bad magic");
	BAD("version", bad[8] = 4, "binary trace version 4");
	/* version 2 has no frame records */
	BAD("a frame record in version 2", bad[8] = 2, "record 16: malformed record");
	BAD("frame high bits", bad[first_frame + 39] = 0x08, "record 16: malformed frame");
	BAD("frame level", bad[first_frame + 39] = 0x06, "record 16: malformed frame");
	BAD("frame result", bad[first_frame + 2] = PGFT_SIGSEGV, "record 16: malformed frame");
	BAD("frame access", bad[first_frame + 1] = 'q', "record 16: malformed frame");
	BAD("version 0", bad[8] = 0, "binary trace version 0");
	/* version 1 has no cache records: the type is unknown there */
	BAD("a cache record in version 1", bad[8] = 1, "record 14: malformed record");
	BAD("cache access", bad[first_cache + 1] = 'x', "record 14: malformed cache");
	BAD("cache state", bad[first_cache + 2] = PGFT_NCACHE, "record 14: malformed cache");
	BAD("cache padding", bad[first_cache + 3] = 1, "record 14: malformed cache");
	BAD("cache tid", bad[first_cache + 7] = 0x80, "record 14: malformed cache");
	BAD("cache pages", memset(bad + first_cache + 24, 0, 4), "record 14: malformed cache");
	BAD("type", bad[first_fault] = 9, "record 6: malformed record");
	BAD("access", bad[first_fault + 1] = 'q', "record 6: malformed fault");
	BAD("result", bad[first_fault + 2] = 6, "record 6: malformed fault");
	BAD("mode", bad[first_fault + 3] = 2, "record 6: malformed fault");
	BAD("tid", bad[first_fault + 7] = 0x80, "record 6: malformed fault");
	BAD("time", memset(bad + first_fault + 8, 0xff, 8), "record 6: malformed fault");
	BAD("line padding", bad[PGFB_HEADER + 8 + 38] = 'x', "record 1: malformed line");
	BAD("newline in a line", bad[PGFB_HEADER + 8 + 3] = '\n', "record 1: malformed line");
	BAD("NUL in a line", bad[PGFB_HEADER + 8 + 3] = 0, "record 1: malformed line");
	BAD("length", bad[PGFB_HEADER + 6] = 0x7f, "record 1: malformed record");
	BAD("a fault for the header", memcpy(bad + PGFB_HEADER, good + first_fault, 32),
	    "a fault, frame or cache record where a header was due");
	/* Cut anywhere inside a record: an error, never a shorter trace. */
	for (size_t cut = PGFB_HEADER + 1; cut < n; cut++) {
		const char *e;
		bool boundary = false;

		for (at = PGFB_HEADER; at < n; ) {
			uint32_t len;

			if (at == cut)
				boundary = true;
			if (good[at] == PGFB_FAULT || good[at] == PGFB_CACHE ||
			    good[at] == PGFB_FRAME) {
				at += pgfb_fixed_bytes(good[at]);
				continue;
			}
			memcpy(&len, good + at + 4, 4);
			at += pgfb_line_bytes(len);
		}
		if (boundary)
			continue;
		e = bin_error(good, cut);
		if (!strstr(e, "truncated"))
			ktap_diag("cut at %zu: \"%s\"", cut, e);
		EXPECT_TRUE(strstr(e, "truncated") != NULL);
	}
}

/* @text written through a binary zwriter in pieces of @step bytes: the file. */
static FILE *written(const char *text, size_t len, size_t step, bool zstd)
{
	FILE *f = tmpfile();
	struct zwriter *w = zwriter_new(fileno(f), zstd, true);

	for (size_t at = 0; at < len; at += step)
		zwriter_write(w, text + at, len - at < step ? len - at : step);
	zwriter_close(w);
	rewind(f);
	return zfile_read(f);
}

TEST(tracepgfaults_writer_makes_the_same_binary_form)
{
	static unsigned char want[4096], got[4096];
	size_t n = to_bin(every, want), len = strlen(every);
	struct pgft_rec a[32], b[32];
	char err[512];
	FILE *f;

	for (size_t step = 1; step <= len; step += step < 16 ? 1 : 37) {
		f = written(every, len, step, false);
		EXPECT_EQ(fread(got, 1, sizeof(got), f), n);
		EXPECT_EQ(memcmp(got, want, n), 0);
		fclose(f);
	}
	/* compressed, read as the plain one */
	f = written(every, len, 100, true);
	ASSERT_EQ(read_all(f, b, 32, err), 19);
	fclose(f);
	f = fmemopen((void *)every, len, "r");
	ASSERT_EQ(read_all(f, a, 32, err), 19);
	fclose(f);
	for (int i = 0; i < 14; i++)
		EXPECT_TRUE(same_rec(&a[i], &b[i]));
	/* a last line with no newline, of any length: a cut trace */
	for (size_t cut = 1; cut < 40; cut++) {
		if (every[len - cut - 1] == '\n')
			continue;	/* whole lines: a shorter trace, as in text */
		f = written(every, len - cut, 64, false);
		EXPECT_EQ(read_all(f, b, 32, err), -1);
		if (!strstr(err, "truncated"))
			ktap_diag("cut %zu: %s", cut, err);
		EXPECT_TRUE(strstr(err, "truncated") != NULL);
		fclose(f);
	}
	/* nothing written: a header alone, no trace */
	f = written("", 0, 1, false);
	EXPECT_EQ(fread(got, 1, sizeof(got), f), PGFB_HEADER);
	fclose(f);
}

KTAP_MAIN()
