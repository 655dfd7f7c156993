// SPDX-License-Identifier: GPL-2.0
/*
 * manyregions - an address space larger than the trace's buffer: a
 * process that grows to tens of thousands of VMAs while traced, with the
 * default buffer limit and no reader while it grows, so that region
 * records are lost and the layout the reader is then owed is many times
 * the control ring. The layout must still reach the reader, in parts,
 * exact even when the process changes its regions between two parts:
 * replaying the trace (tools/lib/pgftrace.c) must give /proc/<pid>/maps
 * at the end, and faults after the layout must be kept again.
 *
 * PGF_MANY_REGIONS sets the number of VMAs (default 20000; the issue's
 * scenario is 100000).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "ktap.h"
#include "util.h"
#include "pgf.h"
#include "mapscmp.h"
#include "pgfstats.h"

#define P 4096UL
#define TOUCH 16
#define MAX_OPS 300	/* changes made among the layout's parts */
#define MAX_MAP_COUNT "/proc/sys/vm/max_map_count"

static unsigned long nr_vmas = 20000;

/* Shared with the child. */
struct shared {
	size_t maps_len;
	char *area;		/* the big mapping */
	char *touch;		/* TOUCH pages touched at the end */
	unsigned long ops;	/* changes made one at a time */
	unsigned long grow;	/* VMAs to grow to */
	char maps[];		/* /proc/self/maps at the end */
};

static struct shared *sh;
static size_t maps_cap;

/* ---- the child (a puppet) --------------------------------------------- */

enum { GROW = 1, OP, SNAPSHOT, TOUCH_PAGES };

/* One change somewhere in the area: a merge, an unmap or a new page. */
static void one_op(void)
{
	unsigned long k = sh->ops++;
	unsigned long idx = (k * 7919 + 1) % nr_vmas;
	char *page = sh->area + idx * P;

	switch (k % 3) {
	case 0:		/* the other protection: merges with both sides */
		mprotect(page, P, idx % 2 ? PROT_READ : PROT_READ | PROT_WRITE);
		break;
	case 1:
		munmap(page, P);
		break;
	case 2:		/* a new region in a hole, or over an old one */
		mmap(page, P, PROT_READ | PROT_WRITE | PROT_EXEC,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		break;
	}
}

static void puppet_main(int step, int report_fd)
{
	int fd;
	ssize_t n;

	(void)report_fd;
	switch (step) {
	case GROW:	/* every other page read-only: a VMA a page */
		for (unsigned long i = 0; i < sh->grow; i += 2)
			if (mprotect(sh->area + i * P, P, PROT_READ))
				_exit(10);
		break;
	case OP:
		one_op();
		break;
	case SNAPSHOT:
		fd = open("/proc/self/maps", O_RDONLY);
		sh->maps_len = 0;
		while (fd >= 0 && (n = read(fd, sh->maps + sh->maps_len,
					   maps_cap - 1 - sh->maps_len)) > 0)
			sh->maps_len += n;
		if (fd < 0 || n < 0 || sh->maps_len >= maps_cap - 1)
			_exit(11);
		close(fd);
		break;
	case TOUCH_PAGES:
		for (int i = 0; i < TOUCH; i++)
			sh->touch[i * P] = 1;
		break;
	}
}

/* ---- the parent --------------------------------------------------------- */

struct text {
	char *buf;
	size_t len, cap;
};

/* One read() of the trace into @t; its result. */
static ssize_t read_once(int fd, struct text *t)
{
	ssize_t n;

	if (t->cap - t->len < (1 << 20)) {
		t->cap = t->cap * 2 + (2 << 20);
		t->buf = realloc(t->buf, t->cap);
		if (!t->buf)
			return -1;
	}
	n = read(fd, t->buf + t->len, t->cap - t->len - 1);
	if (n > 0)
		t->len += n;
	t->buf[t->len] = '\0';
	return n;
}

struct result {
	unsigned long long lost_other, lost_faults, layouts, touched;
	unsigned long long unplaced, short_layouts, changes_in_layouts;
	/* The last layout: regions due, told, and region records lost since. */
	unsigned long long due, told, lost_since_layout;
	unsigned long long regions;	/* in the child's last maps */
	long exit_bytes;		/* buffer bytes held once it exited */
	int maps_diff;
};

/*
 * Replay the trace: every fault placed; before the first fault after a
 * layout of COUNT regions, COUNT of them told (a map, or the unmap of one
 * gone before its part came); the space at the end equal to the child's
 * last /proc/self/maps.
 */
static int replay(const struct text *t, struct result *res)
{
	FILE *f = fmemopen(t->buf, t->len, "r");
	unsigned long long due = 0, told = 0, cap = 0;
	unsigned char *seen = NULL;
	struct pgft_space s = { 0 };
	struct pgft_reader rd;
	struct pgft_rec r;
	bool in_layout = false;
	int ret;

	memset(res, 0, sizeof(*res));
	if (!f || pgft_open(&rd, f, "trace"))
		return -1;
	while ((ret = pgft_next(&rd, &r)) > 0) {
		switch (r.type) {
		case PGFT_LAYOUT:
			res->layouts++;
			due = r.n[0];
			told = 0;
			res->lost_since_layout = 0;
			in_layout = true;
			memset(seen, 0, cap);
			break;
		case PGFT_MAP:
		case PGFT_UNMAP:
		case PGFT_CHANGE:
			if (r.id >= cap) {
				unsigned long long ncap = 2 * r.id + 1024;

				seen = realloc(seen, ncap);
				if (!seen)
					return -1;
				memset(seen + cap, 0, ncap - cap);
				cap = ncap;
			}
			if (in_layout && r.type != PGFT_CHANGE && !seen[r.id]) {
				seen[r.id] = 1;
				told++;
			}
			if (in_layout && r.type != PGFT_MAP)
				res->changes_in_layouts++;
			break;
		case PGFT_LOST:
			res->lost_faults += r.n[0];
			res->lost_other += r.n[1];
			res->lost_since_layout += r.n[1];
			break;
		case PGFT_FAULT:
			if (in_layout && told < due)
				res->short_layouts++;
			in_layout = false;
			if (pgft_counted(r.result) && !pgft_find(&s, r.addr))
				res->unplaced++;
			if (r.addr >= (unsigned long)sh->touch &&
			    r.addr < (unsigned long)sh->touch + TOUCH * P)
				res->touched++;
			break;
		default:
			break;
		}
		pgft_apply(&s, &r);
	}
	if (ret < 0)
		ktap_diag("%s", rd.error);
	res->maps_diff = maps_compare(&s, sh->maps, sh->maps_len, 0);
	res->due = due;
	res->told = told;
	for (size_t i = 0; i < sh->maps_len; i++)
		res->regions += sh->maps[i] == '\n';
	ktap_diag("%zu regions replayed, %llu layouts, %llu region records lost, "
		  "%llu faults lost, %llu region changes among layout parts",
		  s.nr, res->layouts, res->lost_other, res->lost_faults,
		  res->changes_in_layouts);
	pgft_close(&rd);
	pgft_space_free(&s);
	free(seen);
	fclose(f);
	return ret;
}

enum how { READ, READ_AND_CHANGE, EXIT_UNREAD, EXIT_MID_LAYOUT };

/* EXIT_MID_LAYOUT: read()s before the exit, and changes after them. */
#define MID_READS 2
#define MID_OPS 50

/*
 * A puppet grows to nr_vmas VMAs while traced and unread. Then the trace
 * is read without blocking until nothing more comes (the layout, in
 * parts); with READ_AND_CHANGE, after each of the first MAX_OPS read()s
 * the puppet makes one change. Then a snapshot of its maps, TOUCH faults,
 * and its exit, read to the end; with EXIT_UNREAD, all of that before
 * anything is read; with EXIT_MID_LAYOUT, after MID_READS read()s (the
 * layout's first parts) and MID_OPS changes, unread.
 */
static void run(enum how how, struct result *res)
{
	bool ops = how == READ_AND_CHANGE;
	int max_reads = 100 + nr_vmas / 10 + MAX_OPS;
	long old_max = pgf_read_long(MAX_MAP_COUNT);
	long bytes_before = pgf_debug_value("buffer_bytes"), exit_bytes;
	struct text t = { 0 };
	struct puppet p;
	int fd, status, reads = 0;
	ssize_t n = 0;

	maps_cap = nr_vmas * 128 + (1 << 20);
	sh = mmap(NULL, sizeof(*sh) + maps_cap, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(sh != MAP_FAILED);
	ASSERT_GT(old_max, 0);
	if ((long)(2 * nr_vmas + 10000) > old_max)
		ASSERT_EQ(pgf_write_long(MAX_MAP_COUNT, 2 * nr_vmas + 10000), 0);
	sh->area = mmap(NULL, nr_vmas * P, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sh->touch = mmap(NULL, TOUCH * P, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(sh->area != MAP_FAILED && sh->touch != MAP_FAILED);
	sh->ops = 0;
	sh->grow = nr_vmas;
	/* The child inherits both mappings; the parent needs none of them. */
	ASSERT_EQ(puppet_spawn(&p, puppet_main), 0);
	munmap(sh->area, nr_vmas * P);
	ASSERT_EQ(pgf_start(p.pid), 0);
	fd = pgf_open(p.pid, O_NONBLOCK);
	ASSERT_GE(fd, 0);

	ASSERT_EQ(puppet_step(&p, GROW), 0);
	/*
	 * A part of the layout per read(), about: far fewer than max_reads.
	 * A kernel that retries the whole layout at every read, lost again
	 * at every try, returns a "lost" line each time and never stops.
	 */
	if (how == EXIT_MID_LAYOUT)
		max_reads = MID_READS;
	while (how != EXIT_UNREAD && reads < max_reads &&
	       (n = read_once(fd, &t)) > 0) {
		reads++;
		if (ops && sh->ops < MAX_OPS)
			ASSERT_EQ(puppet_step(&p, OP), 0);
	}
	if (how == EXIT_MID_LAYOUT) {
		ASSERT_EQ(reads, MID_READS);
		while (sh->ops < MID_OPS)
			ASSERT_EQ(puppet_step(&p, OP), 0);
	} else if (how != EXIT_UNREAD) {
		EXPECT_LT(reads, max_reads);
		EXPECT_TRUE(n < 0 && errno == EAGAIN);
		ktap_diag("%d reads until nothing more came, %lu changes among them",
			  reads, sh->ops);
	}
	ASSERT_EQ(puppet_step(&p, SNAPSHOT), 0);
	ASSERT_EQ(puppet_step(&p, TOUCH_PAGES), 0);
	status = puppet_end(&p);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* Reaped, its trace unread: what its buffers hold now. */
	exit_bytes = pgf_debug_value("buffer_bytes");
	ASSERT_EQ(fcntl(fd, F_SETFL, 0), 0);
	while ((n = read_once(fd, &t)) > 0)
		;
	EXPECT_EQ(n, 0);
	close(fd);
	pgf_write_long(MAX_MAP_COUNT, old_max);
	ASSERT_EQ(replay(&t, res), 0);
	res->exit_bytes = exit_bytes - bytes_before;
	free(t.buf);
}

/*
 * The exit's layout within the limit: the buffers of a process that exited
 * with its trace unread hold at most its rings at the limit, one per CPU
 * and the control ring, however many regions it had; and what did not fit
 * is counted, never dropped in silence: either the replay gives the
 * child's last maps, or the trace ends owing a layout, with every region
 * of it told or counted lost.
 */
static void expect_exit_within_limit(const struct result *res)
{
	long limit = pgf_read_long("/proc/sys/vm/pgfault_history_buffer_kb");
	long cpus = sysconf(_SC_NPROCESSORS_CONF);

	ktap_diag("%ld buffer bytes held at the exit (limit %ld KiB, %ld CPUs); "
		  "last layout: %llu due, %llu told, %llu records lost since; "
		  "%llu regions in the last maps",
		  res->exit_bytes, limit, cpus, res->due, res->told,
		  res->lost_since_layout, res->regions);
	ASSERT_GT(limit, 0);
	ASSERT_GT(cpus, 0);
	EXPECT_LE(res->exit_bytes, (cpus + 1) * limit * 1024);
	EXPECT_EQ(res->unplaced, 0);
	if (res->maps_diff) {
		EXPECT_GT(res->lost_since_layout, 0);
		EXPECT_GE(res->told + res->lost_since_layout, res->regions);
	}
}

/* The layout larger than the ring reaches the reader, and ends the loss. */
TEST(layout_larger_than_the_ring_reaches_the_reader)
{
	struct result res;

	run(READ, &res);
	EXPECT_GT(res.lost_other, 0);	/* the scenario: records were lost */
	EXPECT_GE(res.layouts, 2);	/* the start's, and one after */
	EXPECT_EQ(res.maps_diff, 0);
	EXPECT_EQ(res.touched, TOUCH);	/* faults kept again */
	EXPECT_EQ(res.unplaced, 0);
	EXPECT_EQ(res.short_layouts, 0);
	munmap(sh, sizeof(*sh) + maps_cap);
}

/* Changes between the layout's parts are told in order: still exact. */
TEST(changes_between_layout_parts_stay_exact)
{
	struct result res;

	run(READ_AND_CHANGE, &res);
	EXPECT_GT(res.lost_other, 0);
	EXPECT_GT(sh->ops, 2);		/* a layout in parts, changes between */
	EXPECT_GT(res.changes_in_layouts, 0);
	EXPECT_EQ(res.maps_diff, 0);
	EXPECT_EQ(res.touched, TOUCH);
	EXPECT_EQ(res.unplaced, 0);
	EXPECT_EQ(res.short_layouts, 0);
	munmap(sh, sizeof(*sh) + maps_cap);
}

/*
 * The process exits before the reader has read anything: the layout it is
 * owed cannot wait for the reader, and the buffer stays within its limit:
 * its records are counted lost (the ring is full of the records of the
 * growth), and the trace ends owing it.
 */
TEST(exit_before_the_layout_was_read)
{
	struct result res;

	run(EXIT_UNREAD, &res);
	EXPECT_GT(res.lost_other, 0);
	expect_exit_within_limit(&res);
	EXPECT_NE(res.maps_diff, 0);	/* the scenario: it does not fit */
	munmap(sh, sizeof(*sh) + maps_cap);
}

/*
 * The process changes its regions and exits while its layout is being
 * sent in parts, the reader a part or two in: the changes among the parts
 * are recorded (or lost, which owes a new layout), and the rest goes in
 * at the exit as far as the buffer holds it at its limit; what does not
 * fit is counted lost.
 */
TEST(exit_while_the_layout_is_sent_in_parts)
{
	struct result res;

	run(EXIT_MID_LAYOUT, &res);
	EXPECT_GT(res.lost_other, 0);
	EXPECT_GE(res.layouts, 2);
	expect_exit_within_limit(&res);
	EXPECT_EQ(res.short_layouts, 0);
	munmap(sh, sizeof(*sh) + maps_cap);
}

/*
 * A layout that fits the buffer goes in whole at the start, before any
 * fault: a process of 500 VMAs (about 40 KiB of records, the default
 * limit is 64 KiB), traced, faults at once, read afterwards: nothing lost.
 */
TEST(start_layout_whole_when_it_fits)
{
	struct text t = { 0 };
	struct result res;
	struct puppet p;
	int fd, status;
	ssize_t n;

	maps_cap = 1 << 20;
	sh = mmap(NULL, sizeof(*sh) + maps_cap, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(sh != MAP_FAILED);
	sh->area = mmap(NULL, 500 * P, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sh->touch = mmap(NULL, TOUCH * P, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(sh->area != MAP_FAILED && sh->touch != MAP_FAILED);
	sh->grow = 500;
	ASSERT_EQ(puppet_spawn(&p, puppet_main), 0);
	munmap(sh->area, 500 * P);
	ASSERT_EQ(puppet_step(&p, GROW), 0);
	ASSERT_EQ(pgf_start(p.pid), 0);
	fd = pgf_open(p.pid, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(puppet_step(&p, TOUCH_PAGES), 0);
	ASSERT_EQ(puppet_step(&p, SNAPSHOT), 0);
	status = puppet_end(&p);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	while ((n = read_once(fd, &t)) > 0)
		;
	EXPECT_EQ(n, 0);
	close(fd);
	ASSERT_EQ(replay(&t, &res), 0);
	EXPECT_EQ(res.layouts, 1);
	EXPECT_EQ(res.lost_faults + res.lost_other, 0);
	EXPECT_EQ(res.touched, TOUCH);
	EXPECT_EQ(res.maps_diff, 0);
	EXPECT_EQ(res.short_layouts, 0);
	free(t.buf);
	munmap(sh, sizeof(*sh) + maps_cap);
}

int main(int argc, char **argv)
{
	const char *env = getenv("PGF_MANY_REGIONS");

	if (env && atol(env) >= 100)
		nr_vmas = atol(env);
	return ktap_main(argc, argv);
}
