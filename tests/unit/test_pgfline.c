// SPDX-License-Identifier: GPL-2.0
/*
 * test_pgfline - the fault and cache lines the reader reads where they
 * lie (tools/lib/pgfline.c) against the text parser (pgft_parse()): over
 * random lines of every field's width, faults with and without a frame,
 * and the same lines mutated (a byte changed, added or taken away, a
 * field made too long), every line it reads pgft_parse() reads into the
 * same record, and every such line pgft_parse() reads it reads but for
 * upper-case hex, whatever bytes follow the line; then the reader, its
 * buffer refilled in the middle of lines and a line longer than it, gives
 * the records of pgft_parse(), line by line; and read ahead in a thread
 * (pgft_read_ahead()), the same records, line numbers and errors as
 * without, in a single trace and a tree, whichever way it is read and
 * wherever it is closed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ktap.h"
#include "lib/pgfbin.h"
#include "lib/pgfline.h"
#include "lib/pgftrace.h"

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
	       a->pfn == b->pfn && a->node == b->node && a->order == b->order &&
	       a->level == b->level && a->change == b->change &&
	       a->new_node == b->new_node && a->new_pfn == b->new_pfn;
}

/* A number of up to @max digits, of any width, now and then its widest. */
static unsigned long long any(unsigned long long *x, unsigned long long max)
{
	unsigned long long v = rnd(x) >> (rnd(x) % 64);

	return rnd(x) % 9 ? (max ? v % max : v) : max ? max - 1 : ~0ULL;
}

/* A random fault line into @line, a frame or not. */
static int fault_line(unsigned long long *x, char *line, size_t size)
{
	static const char *const results[] = {
		"minor", "major", "reref", "SIGSEGV", "SIGBUS", "OOM",
	};
	int result = rnd(x) % 8 < 3 ? 0 : rnd(x) % 6;
	int n = snprintf(line, size, "fault %llu %llu %llx %c %s %s %llx",
			 any(x, 10000000000000000000ULL), any(x, 1ULL << 31),
			 any(x, 0), "rwx"[rnd(x) % 3],
			 rnd(x) & 1 ? "kernel" : "user", results[result], any(x, 0));

	if (result > 2 || rnd(x) % 3)
		return n;
	if (rnd(x) % 5)
		n += snprintf(line + n, size - n, " %llx %llu", any(x, 1ULL << 40),
			      any(x, 0x7ff));
	else
		n += snprintf(line + n, size - n, " %llx -", any(x, 1ULL << 40));
	return n + snprintf(line + n, size - n, " %llu %s", any(x, 64),
			    pgft_level_names[rnd(x) % 3]);
}

/* A random cache line into @line. */
static int cache_line(unsigned long long *x, char *line, size_t size)
{
	return snprintf(line, size, "cache %llu %llu %llu %llu %llu %c %s",
			any(x, 10000000000000000000ULL), any(x, 1ULL << 31),
			any(x, 1ULL << 32), any(x, 1ULL << 52), 1 + any(x, 1ULL << 32),
			"rw"[rnd(x) % 2], pgft_cache_names[rnd(x) % PGFT_NCACHE]);
}

/* Change @line (@n bytes) a little at random: its new length. */
static int mutate(unsigned long long *x, char *line, int n, int size)
{
	static const char bytes[] = "0123456789abcdefABCDEFx- \n\t\0\x80\xff";
	int at = n ? rnd(x) % n : 0, k;
	char c = bytes[rnd(x) % (sizeof(bytes) - 1)];

	switch (rnd(x) % 5) {
	case 0:			/* a byte changed */
		if (n)
			line[at] = c;
		return n;
	case 1:			/* a byte added */
		if (n + 1 >= size)
			return n;
		memmove(line + at + 1, line + at, n - at);
		line[at] = c;
		return n + 1;
	case 2:			/* a byte taken away */
		if (!n)
			return n;
		memmove(line + at, line + at + 1, n - at - 1);
		return n - 1;
	case 3:			/* a run of digits made longer */
		k = 1 + rnd(x) % 12;
		if (n + k >= size)
			return n;
		memmove(line + at + k, line + at, n - at);
		memset(line + at, "09af"[rnd(x) % 4], k);
		return n + k;
	default:		/* cut short */
		return at;
	}
}

/*
 * The line @line of @n bytes (any bytes) read both ways, followed by a
 * newline and @after: 1 if pgft_scan_fault() read it, 0 if not, -1 if
 * the two disagree.
 */
static int both(const char *line, int n, const char *after)
{
	char buf[512 + 2 * PGFT_SCAN_SLACK], copy[512];
	struct pgft_rec a, b;
	size_t got, len;
	char *nl;
	int ret;

	memcpy(buf, line, n);
	buf[n] = '\n';
	memcpy(buf + n + 1, after, PGFT_SCAN_SLACK + 16);
	/* the line pgft_parse() sees: to the first newline, or NUL */
	nl = memchr(buf, '\n', n + 1);
	len = nl - buf;
	memcpy(copy, buf, len);
	copy[len] = '\0';
	memset(&a, 0x5a, sizeof(a));
	a.pid = 0;
	a.name = a.text = "";
	a.id = a.start = a.end = a.offset = a.inode = 0;
	a.major = a.minor = 0;
	memset(a.perms, 0, sizeof(a.perms));
	memset(a.n, 0, sizeof(a.n));
	a.flags = 0;
	a.cache = 0;
	a.change = 0;
	a.new_node = 0;
	a.new_pfn = 0;
	/* as the reader tries them */
	got = pgft_scan_fault(buf, &a);
	if (!got)
		got = pgft_scan_cache(buf, &a);
	ret = pgft_parse(copy, &b);
	if (got) {
		if (ret || got != len + 1 || !same_rec(&a, &b))
			return -1;
		return 1;
	}
	/* every fault or cache line pgft_parse() reads, but with upper-case hex */
	if (!ret && (b.type == PGFT_FAULT || b.type == PGFT_CACHE) &&
	    strlen(copy) == len && !strpbrk(copy, "ABCDEF"))
		return -1;
	return 0;
}

TEST(a_fault_line_reads_as_the_parser_reads_it)
{
	unsigned long long x = 20241, read = 0, left = 0;
	char line[512], after[PGFT_SCAN_SLACK + 16];
	int n;

	for (int i = 0; i < 2000000; i++) {
		n = i % 5 == 4 ? cache_line(&x, line, sizeof(line) - 64) :
				 fault_line(&x, line, sizeof(line) - 64);
		/* whatever follows: zeros, another line, or any bytes */
		for (size_t k = 0; k < sizeof(after); k++)
			after[k] = i % 3 == 0 ? 0 : i % 3 == 1 ?
				   "fault 12 3 4a r user minor 5\n"[k % 30] : (char)rnd(&x);
		for (int m = i % 4; m > 0; m--)
			n = mutate(&x, line, n, sizeof(line) - 64);
		switch (both(line, n, after)) {
		case 1:
			read++;
			break;
		case 0:
			left++;
			break;
		default:
			line[n] = '\0';
			ktap_diag("disagree: \"%s\"", line);
			ASSERT_TRUE(false);
		}
	}
	ktap_diag("%llu lines read, %llu left to pgft_parse()", read, left);
	EXPECT_GT(read, 500000ULL);
	EXPECT_GT(left, 500000ULL);
}

TEST(the_edges_of_each_field)
{
	static const struct {
		const char *line;
		int read;	/* 1: read, 0: left to pgft_parse() */
	} cases[] = {
		{ "fault 1 1 1 r user minor 1", 1 },
		{ "fault 9999999999999999999 1 1 r user minor 1", 1 },
		{ "fault 10000000000000000000 1 1 r user minor 1", 0 },
		{ "fault 0000000000000000001 1 1 r user minor 1", 1 },
		{ "fault 00000000000000000001 1 1 r user minor 1", 0 },
		{ "fault 1234567890123456 1 1 r user minor 1", 1 },
		{ "fault 12345678901234567 1 1 r user minor 1", 1 },
		{ "fault 1 9999999999999999999 1 r user minor 1", 1 },
		{ "fault 1 1 ffffffffffffffff r user minor 1", 1 },
		{ "fault 1 1 0ffffffffffffffff r user minor 1", 0 },
		{ "fault 1 1 12345678 r user minor 12345678", 1 },
		{ "fault 1 1 123456789 r user minor 123456789abcdef", 1 },
		{ "fault 1 1 ABC r user minor 1", 0 },
		{ "fault 1 1 1 x kernel OOM 1", 1 },
		{ "fault 1 1 1 w user SIGSEGV 0", 1 },
		{ "fault 1 1 1 w user SIGBUS 0", 1 },
		{ "fault 1 1 1 w user SIGBUS0 0", 0 },
		{ "fault 1 1 1 r user minor 1 ", 0 },
		{ "fault 1 1 1 r user minor 1 ffffffffff - 0 pte", 1 },
		{ "fault 1 1 1 r user minor 1 10000000000 - 0 pte", 0 },
		{ "fault 1 1 1 r user minor 1 1 2046 63 pud", 1 },
		{ "fault 1 1 1 r user minor 1 1 2047 63 pud", 0 },
		{ "fault 1 1 1 r user minor 1 1 0 64 pmd", 0 },
		{ "fault 1 1 1 r user minor 1 1 0 1 pmd ", 0 },
		{ "fault 1 1 1 r user minor 1 1 0 1 pgd", 0 },
		{ "fault 1 1 1 r user SIGSEGV 1 1 0 1 pte", 0 },
		{ "fault 1 1 1 r user reref 1 1 0 1 pte", 1 },
		{ "fault  1 1 1 r user minor 1", 0 },
		{ "fault 1 1 1 r  user minor 1", 0 },
		{ "fault 1 1 1 R user minor 1", 0 },
		{ "faulty 1 1 1 r user minor 1", 0 },
		{ "fault 1 1 1 r user minor", 0 },
		{ "fault", 0 },
		{ "", 0 },
		{ "cache 1 2 3 4 5 r hit", 1 },
		{ "cache 1 2 3 4 5 w readahead", 1 },
		{ "cache 1 2 3 4 5 w readaheadx", 0 },
		{ "cache 1 2 3 4 5 w direct", 1 },
		{ "cache 1 2 3 4 5 w hole ", 0 },
		{ "cache 1 2 3 4 0 r miss", 0 },
		{ "cache 1 2 3 4 5 x miss", 0 },
		{ "cache 1 2 3 4 r miss", 0 },
		{ "cache 9999999999999999999 1 1 1 1 r miss", 1 },
		{ "cache 1 1 1 10000000000000000000 1 r miss", 0 },
		{ "cache  1 1 1 1 1 r miss", 0 },
	};
	char after[PGFT_SCAN_SLACK + 16];

	memset(after, '7', sizeof(after));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int got = both(cases[i].line, strlen(cases[i].line), after);

		if (got != cases[i].read)
			ktap_diag("\"%s\": %d", cases[i].line, got);
		EXPECT_EQ(got, cases[i].read);
	}
}

/*
 * A text trace of faults and other records, a line longer than the
 * reader's buffer among them, read whole with pgft_next(), or with
 * pgft_next_into() if @into: the records pgft_parse() makes of its
 * lines, one by one.
 */
static void read_as_parsed(bool into, bool ahead)
{
	unsigned long long x = 99;
	size_t cap = 64 << 20, len = 0, lines = 0;
	char *text = malloc(cap), *copy = malloc(1 << 21), *p;
	struct pgft_reader rd;
	struct pgft_rec r, want;
	FILE *f;
	int ret;

	ASSERT_TRUE(text && copy);
	len += sprintf(text, "pgfault_history 9 pid 7 page_size 4096\nstart 1\n");
	while (len < cap - (1 << 21) - 4096) {
		if (lines == 5000) {
			/* a map record whose name is longer than the buffer */
			len += sprintf(text + len, "map 5 1 1000 2000 rw-p 0 00:00 0 ");
			memset(text + len, 'n', 1 << 20);
			len += 1 << 20;
		} else if (rnd(&x) % 16 == 0) {
			len += sprintf(text + len, "refs 3 4 1000+%llu", 1 + rnd(&x) % 99);
		} else if (rnd(&x) % 4 == 0) {
			len += cache_line(&x, text + len, 200);
		} else {
			len += fault_line(&x, text + len, 200);
		}
		text[len++] = '\n';
		lines++;
	}
	f = fmemopen(text, len, "r");
	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(pgft_open(&rd, f, "t"), 0);
	if (ahead)
		ASSERT_EQ(pgft_read_ahead(&rd), 0);
	p = strchr(strchr(text, '\n') + 1, '\n') + 1;	/* past the header */
	/* the start record */
	ASSERT_EQ(pgft_next(&rd, &r), 1);
	ASSERT_EQ(r.type, PGFT_START);
	for (size_t i = 0; i < lines; i++) {
		char *nl = strchr(p, '\n');

		ret = into ? pgft_next_into(&rd, &r) : pgft_next(&rd, &r);
		if (ret != 1)
			ktap_diag("%s", rd.error);
		ASSERT_EQ(ret, 1);
		memcpy(copy, p, nl - p);
		copy[nl - p] = '\0';
		ASSERT_EQ(pgft_parse(copy, &want), 0);
		want.pid = 7;
		if (!same_rec(&r, &want))
			ktap_diag("line %zu differs", i + 3);
		ASSERT_TRUE(same_rec(&r, &want));
		ASSERT_EQ(rd.line, i + 3);
		p = nl + 1;
	}
	ret = pgft_next(&rd, &r);
	EXPECT_EQ(ret, 0);
	ktap_diag("%zu lines, %zu bytes", lines, len);
	pgft_close(&rd);
	fclose(f);
	free(text);
	free(copy);
}

TEST(the_reader_reads_every_line_as_the_parser)
{
	read_as_parsed(false, false);
}

TEST(the_reader_reads_every_line_into_one_record_as_the_parser)
{
	read_as_parsed(true, false);
}

TEST(read_ahead_every_line_reads_as_the_parser)
{
	read_as_parsed(false, true);
	read_as_parsed(true, true);
}

/* A text trace being made: its bytes so far */
struct text {
	char *s;
	size_t len, cap;
};

static void add(struct text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if ((size_t)n < t->cap - t->len)
			break;
		t->cap = 2 * t->cap + n;
		t->s = realloc(t->s, t->cap);
		if (!t->s)
			abort();
	}
	t->len += n;
}

/* @lines random records of process @pid: faults, frames, cache, regions */
static void add_records(struct text *t, unsigned long long *x, int lines)
{
	char line[256];

	for (int i = 0; i < lines; i++) {
		switch (rnd(x) % 16) {
		case 0:
			add(t, "map 5 %llu %llx %llx rw-p 0 00:00 0 /lib/name-%llu\n",
			    rnd(x) % 1000, rnd(x) % 0x10000 * 4096,
			    (0x10000 + rnd(x) % 0x10000) * 4096, rnd(x) % 100);
			break;
		case 1:
			add(t, "refs 3 4 1000+%llu\n", 1 + rnd(x) % 99);
			break;
		case 2:
		case 3:
			cache_line(x, line, sizeof(line));
			add(t, "%s\n", line);
			break;
		default:
			fault_line(x, line, sizeof(line));
			add(t, "%s\n", line);
			break;
		}
	}
}

/*
 * @t read by two readers in step, one reading ahead, each record with
 * pgft_next() or pgft_next_into() at random (both readers the same way),
 * up to @stop records (then closed there) or the end: the same records
 * and line numbers, the same end and error. The records read.
 */
static size_t same_ahead_after(const struct text *t, size_t stop, size_t before);

static size_t same_ahead(const struct text *t, size_t stop)
{
	return same_ahead_after(t, stop, 0);
}

/* The same, the first @before records read by both before the one reads ahead */
static size_t same_ahead_after(const struct text *t, size_t stop, size_t before)
{
	unsigned long long x = 5;
	struct pgft_reader a, b;
	struct pgft_rec ra, rb;
	FILE *fa = fmemopen(t->s, t->len, "r"), *fb = fmemopen(t->s, t->len, "r");
	size_t n = 0;
	int reta, retb;

	ASSERT_TRUE(fa && fb);
	ASSERT_EQ(pgft_open(&a, fa, "t"), 0);
	ASSERT_EQ(pgft_open(&b, fb, "t"), 0);
	for (;;) {
		if (n == before) {
			if (before)
				ktap_diag("read ahead from record %zu on, after a %s",
					  n + 1, rb.type == PGFT_FAULT ? "fault" : "record");
			ASSERT_EQ(pgft_read_ahead(&b), 0);
			ASSERT_TRUE(b.ahead != NULL);
		}
		if (n == stop)
			break;
		if (n <= before || rnd(&x) % 3) {
			reta = pgft_next_into(&a, &ra);
			retb = pgft_next_into(&b, &rb);
		} else {
			reta = pgft_next(&a, &ra);
			retb = pgft_next(&b, &rb);
		}
		ASSERT_EQ(retb, reta);
		if (reta <= 0)
			break;
		n++;
		if (!same_rec(&ra, &rb) || a.line != b.line)
			ktap_diag("record %zu (line %llu, %llu) differs", n, a.line, b.line);
		ASSERT_TRUE(same_rec(&ra, &rb));
		ASSERT_EQ(b.line, a.line);
	}
	if (n != stop) {
		if (reta < 0)
			ktap_diag("after %zu records: %s", n, a.error);
		if (strcmp(a.error, b.error))
			ktap_diag("\"%s\" against \"%s\"", b.error, a.error);
		ASSERT_TRUE(!strcmp(a.error, b.error));
		ASSERT_EQ(b.sys_errno, a.sys_errno);
		ASSERT_EQ(b.line, a.line);
		/* and it stays at its end */
		ASSERT_EQ(pgft_next(&b, &rb), reta);
	}
	pgft_close(&a);
	pgft_close(&b);
	fclose(fa);
	fclose(fb);
	return n;
}

TEST(read_ahead_gives_the_same_records_ends_and_errors)
{
	struct text t = { 0 };
	unsigned long long x = 17;
	size_t at;

	add(&t, "pgfault_history 9 pid 7 page_size 4096\nstart 1\n");
	add_records(&t, &x, 50000);
	/* the end */
	EXPECT_EQ(same_ahead(&t, (size_t)-1), 50001);
	/* a malformed record in the middle of the 8th block */
	at = t.len;
	add(&t, "fault 1 2 zz r user minor 1\n");
	add_records(&t, &x, 100);
	EXPECT_EQ(same_ahead(&t, (size_t)-1), 50001);
	/* the last line with no newline */
	t.len = at;
	add(&t, "fault 1 2 3 r user minor 1");
	EXPECT_EQ(same_ahead(&t, (size_t)-1), 50001);
	/* closed after a record, in a block, at a block's end, at once */
	t.len = at;
	EXPECT_EQ(same_ahead(&t, 1), 1);
	EXPECT_EQ(same_ahead(&t, 5000), 5000);
	EXPECT_EQ(same_ahead(&t, 4096), 4096);
	EXPECT_EQ(same_ahead(&t, 0), 0);
	/* started after records read into the caller's record, a fault's last */
	EXPECT_EQ(same_ahead_after(&t, (size_t)-1, 1000), 50001);
	EXPECT_EQ(same_ahead_after(&t, (size_t)-1, 1), 50001);
	free(t.s);
}

TEST(read_ahead_of_a_tree_gives_each_record_its_process)
{
	struct text t = { 0 };
	unsigned long long x = 23;
	bool seen[4] = { true, false, false, false };

	add(&t, "pgfault_history_tree 1 root 10\npid 10\n"
	    "pgfault_history 9 pid 10 page_size 4096\nstart 1\n");
	for (int i = 0; i < 40; i++) {
		int pid = 10 + rnd(&x) % 4;

		add(&t, "pid %d\n", pid);
		if (!seen[pid - 10])
			add(&t, "pgfault_history 9 pid %d page_size 4096\nstart 1\n", pid);
		seen[pid - 10] = true;
		add_records(&t, &x, rnd(&x) % 3000);
	}
	EXPECT_GT(same_ahead(&t, (size_t)-1), 4096);
	/* a process's header that is not one, far in */
	add(&t, "pid 99\npgfault_history 9 pid 98 page_size 4096\n");
	EXPECT_GT(same_ahead(&t, (size_t)-1), 4096);
	free(t.s);
}

KTAP_MAIN()
