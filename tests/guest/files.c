// SPDX-License-Identifier: GPL-2.0
/*
 * files - "1 files": the page cache pages of a traced process's reads and
 * writes, one "cache" record per run of pages of a call that fared alike
 * (hit, miss, readahead, hole, direct), each file named once ("file").
 *
 * Oracles, on files nothing else touches:
 *  - what the program did: every page a call used is in exactly one
 *    record of that call, r or w, no page twice, none missing;
 *  - cachestat(2) (and mincore() on a mapping of the file): the pages a
 *    traced read brought into the cache are exactly its misses and its
 *    readahead; a page read again is a hit; a write to a page the cache
 *    does not hold is a miss, to one it holds a hit;
 *  - the exit record's totals equal the cache records of the trace.
 * On tmpfs (/tmp: shmem_file_read_iter(), holes, no readahead), on ext4
 * on the guest's scratch disk (/scratch, a real block device: readahead,
 * misses that do I/O, direct I/O) and on XFS on the other (/scratch-xfs:
 * writes through iomap, large folios); skipped without the disks;
 * io_uring reads and writes, inline and by the ring's worker.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <linux/io_uring.h>
#include "ktap.h"
#include "util.h"
#include "pgf.h"

#define PAGE		4096UL
#define SCRATCH		"/scratch"
#define SCRATCH_XFS	"/scratch-xfs"

#ifndef __NR_cachestat
#define __NR_cachestat	451
#endif

struct cs_range {
	unsigned long long off, len;
};

struct cs {
	unsigned long long cache, dirty, writeback, evicted, recently_evicted;
};

/* Pages of @fd in the page cache (cachestat(2)), or -1. */
static long cached(int fd)
{
	struct cs_range r = { 0, 0 };
	struct cs c;

	if (syscall(__NR_cachestat, fd, &r, &c, 0))
		return -1;
	return c.cache;
}

/* Pages of @fd's first @np resident by mincore() on a mapping of it. */
static long resident(int fd, size_t np)
{
	unsigned char v[1024];
	void *m;
	long n = 0;

	if (np > sizeof(v))
		return -1;
	m = mmap(NULL, np * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -1;
	if (mincore(m, np * PAGE, v))
		n = -1;
	for (size_t i = 0; n >= 0 && i < np; i++)
		n += v[i] & 1;
	munmap(m, np * PAGE);
	return n;
}

/* The scratch disk mounted at @dir (the directory of @path) is there. */
static int scratch_at(const char *path)
{
	char dir[64];
	struct stat a, b;

	snprintf(dir, sizeof(dir), "%s", path);
	if (strrchr(dir, '/') > dir)
		*strrchr(dir, '/') = 0;
	/* A mount point: another device than its parent's. */
	return !stat(dir, &a) && !stat("/", &b) && a.st_dev != b.st_dev;
}

static int scratch(void)
{
	return scratch_at(SCRATCH "/");
}

/* A new, empty file at @path (none before it), open for reading and writing. */
static int fresh(const char *path)
{
	int fd;

	unlink(path);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	ASSERT_TRUE(fd >= 0);
	return fd;
}

/* The end of a test: its trace, its file. */
static void finish(struct pgf_trace *t, int fd, const char *path)
{
	pgf_trace_free(t);
	close(fd);
	unlink(path);
}

/* Start tracing this process with "files"; the reader, non-blocking. */
static int trace_files(void)
{
	int fd = open("/proc/self/pgfault_history", O_RDWR | O_NONBLOCK);

	if (fd < 0 || write(fd, "1 files", 7) != 7)
		return -1;
	return fd;
}

/* Stop, and read what the trace holds. */
static void stop_read(int fd, struct pgf_trace *t)
{
	int ret;

	ASSERT_EQ(write(fd, "0", 1), 1);
	ret = pgf_read_all(fd, t);
	ASSERT_TRUE(ret == 0 || ret == -EAGAIN);
	ASSERT_EQ(pgf_lost_faults(t), 0);
	for (size_t i = 0; i < t->nr; i++)
		ASSERT_TRUE(strcmp(t->rec[i].type, "lost"));
	close(fd);
}

/* A file's records: its id, from its "file" record (path @path), or -1. */
static long long file_id(const struct pgf_trace *t, const char *path, int fd)
{
	struct stat st;
	long long id = -1;

	ASSERT_EQ(fstat(fd, &st), 0);
	for (size_t i = 0; i < t->nr; i++) {
		const struct pgf_rec *r = &t->rec[i];

		if (strcmp(r->type, "file") || strcmp(r->text, path))
			continue;
		/* Named once, as its regions name it. */
		EXPECT_EQ(id, -1);
		EXPECT_EQ(r->inode, (unsigned long long)st.st_ino);
		EXPECT_EQ(r->major, major(st.st_dev));
		EXPECT_EQ(r->minor, minor(st.st_dev));
		id = r->id;
	}
	return id;
}

/*
 * The pages per state of file @id's records of @access, between record
 * indices [@from, @to): @pages[how] pages; @seen (np entries) counts how
 * often each page is named, for the completeness checks.
 */
static void tally(const struct pgf_trace *t, size_t from, size_t to,
		  long long id, char access, unsigned long long pages[PGFT_NCACHE],
		  unsigned char *seen, size_t np)
{
	memset(pages, 0, PGFT_NCACHE * sizeof(pages[0]));
	if (seen)
		memset(seen, 0, np);
	for (size_t i = from; i < to; i++) {
		const struct pgf_rec *r = &t->rec[i];

		if (strcmp(r->type, "cache") || (long long)r->id != id ||
		    r->access != access)
			continue;
		pages[r->cache] += r->a;
		for (unsigned long long p = r->addr; seen && p < r->addr + r->a; p++)
			if (p < np)
				seen[p]++;
	}
}

/* The index of the first record after time @ns. */
static size_t after(const struct pgf_trace *t, unsigned long long ns)
{
	size_t i = 0;

	while (i < t->nr && (!t->rec[i].time || t->rec[i].time < ns))
		i++;
	return i;
}

static void fill(int fd, size_t np)
{
	static char buf[64 * PAGE];

	memset(buf, 0x5a, sizeof(buf));
	for (size_t done = 0; done < np; done += 64)
		ASSERT_EQ(pwrite(fd, buf, (np - done < 64 ? np - done : 64) * PAGE,
				 done * PAGE),
			  (ssize_t)((np - done < 64 ? np - done : 64) * PAGE));
}

/* Drop @fd's pages from the cache; 0 if none stays. */
static int drop(int fd)
{
	if (fsync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		return -1;
	return cached(fd) == 0 ? 0 : -1;
}

/*
 * tmpfs: writes to pages the file does not have are misses, to pages it
 * has hits; reads of pages it has are hits, of its holes holes; no
 * readahead. Every page once per call.
 *
 *   pages    0 ....... 16 ......... 64
 *   write 1  |miss x16 |
 *   write 2     |hit x8|            (pages 4-11)
 *   truncate to 64 pages
 *   read     |hit x16  |hole x48    |
 */
TEST(tmpfs)
{
	static char buf[64 * PAGE];
	const char *path = "/tmp/pgf-files-tmpfs";
	unsigned long long pg[PGFT_NCACHE], t1, t2;
	unsigned char seen[64];
	struct pgf_trace t;
	long long id;
	int c, fd;

	fd = fresh(path);
	c = trace_files();
	ASSERT_TRUE(c >= 0);
	memset(buf, 1, sizeof(buf));
	ASSERT_EQ(pwrite(fd, buf, 16 * PAGE, 0), (ssize_t)(16 * PAGE));
	t1 = pgf_now_ns();
	ASSERT_EQ(pwrite(fd, buf, 8 * PAGE, 4 * PAGE), (ssize_t)(8 * PAGE));
	ASSERT_EQ(ftruncate(fd, 64 * PAGE), 0);
	t2 = pgf_now_ns();
	ASSERT_EQ(pread(fd, buf, 64 * PAGE, 0), (ssize_t)(64 * PAGE));
	EXPECT_EQ(cached(fd), 16);
	stop_read(c, &t);
	id = file_id(&t, path, fd);
	ASSERT_TRUE(id >= 0);

	tally(&t, 0, after(&t, t1), id, 'w', pg, seen, 64);
	EXPECT_EQ(pg[PGFT_MISS], 16);
	EXPECT_EQ(pg[PGFT_HIT], 0);
	for (int i = 0; i < 64; i++)
		EXPECT_EQ(seen[i], i < 16);
	tally(&t, after(&t, t1), after(&t, t2), id, 'w', pg, seen, 64);
	EXPECT_EQ(pg[PGFT_HIT], 8);
	EXPECT_EQ(pg[PGFT_MISS], 0);
	for (int i = 0; i < 64; i++)
		EXPECT_EQ(seen[i], i >= 4 && i < 12);
	tally(&t, 0, t.nr, id, 'r', pg, seen, 64);
	EXPECT_EQ(pg[PGFT_HIT], 16);
	EXPECT_EQ(pg[PGFT_HOLE], 48);
	EXPECT_EQ(pg[PGFT_MISS] + pg[PGFT_READAHEAD] + pg[PGFT_DIRECT], 0);
	for (int i = 0; i < 64; i++)
		EXPECT_EQ(seen[i], 1);
	finish(&t, fd, path);
}

/*
 * Sequential reads (ext4, XFS): the pages a read brings in are its misses
 * (used) and its readahead (not used), and nothing else brings pages in:
 * their sum is cachestat's count. Pages read again are hits, and every
 * page read is in exactly one record of the reads.
 */
static void sequential_at(const char *path)
{
	static char buf[32 * PAGE];
	unsigned long long pg[PGFT_NCACHE], t1;
	unsigned char seen[256];
	struct pgf_trace t;
	long long id;
	long before, brought;
	int c, fd;

	if (!scratch_at(path))
		SKIP("no scratch disk for %s", path);
	fd = fresh(path);
	fill(fd, 256);
	ASSERT_EQ(drop(fd), 0);
	EXPECT_EQ(resident(fd, 256), 0);
	before = cached(fd);
	c = trace_files();
	ASSERT_TRUE(c >= 0);
	/* 64 pages, in reads of 4 */
	for (int i = 0; i < 16; i++)
		ASSERT_EQ(pread(fd, buf, 4 * PAGE, i * 4 * PAGE), (ssize_t)(4 * PAGE));
	brought = cached(fd) - before;
	t1 = pgf_now_ns();
	ASSERT_EQ(pread(fd, buf, 32 * PAGE, 0), (ssize_t)(32 * PAGE));
	stop_read(c, &t);
	id = file_id(&t, path, fd);
	ASSERT_TRUE(id >= 0);

	tally(&t, 0, after(&t, t1), id, 'r', pg, seen, 256);
	ktap_diag("64 pages read in 16 reads: %llu hit, %llu miss, %llu readahead; cachestat: %ld brought in",
		  pg[PGFT_HIT], pg[PGFT_MISS], pg[PGFT_READAHEAD], brought);
	EXPECT_TRUE(pg[PGFT_MISS] > 0);
	EXPECT_EQ(pg[PGFT_HIT] + pg[PGFT_MISS], 64);
	EXPECT_EQ((long)(pg[PGFT_MISS] + pg[PGFT_READAHEAD]), brought);
	EXPECT_EQ(resident(fd, 256), brought);
	/* Every page read once, a page of readahead at most once more. */
	for (int i = 0; i < 64; i++)
		EXPECT_TRUE(seen[i] == 1 || seen[i] == 2);
	tally(&t, after(&t, t1), t.nr, id, 'r', pg, seen, 256);
	EXPECT_EQ(pg[PGFT_HIT], 32);
	EXPECT_EQ(pg[PGFT_MISS] + pg[PGFT_READAHEAD], 0);
	for (int i = 0; i < 256; i++)
		EXPECT_EQ(seen[i], i < 32);
	finish(&t, fd, path);
}

TEST(ext4_sequential)
{
	sequential_at(SCRATCH "/pgf-files-seq");
}

/* XFS: its reads take iomap's readahead, in large folios. */
TEST(xfs_sequential)
{
	sequential_at(SCRATCH_XFS "/pgf-files-seq");
}

/*
 * ext4, random reads without readahead (POSIX_FADV_RANDOM): each read of
 * an uncached page is one miss of exactly that page, and cachestat counts
 * exactly those; the second read of each is a hit.
 */
TEST(ext4_random)
{
	static const int order[] = { 200, 3, 150, 77, 9, 120, 31, 250, 64, 180 };
	const int n = sizeof(order) / sizeof(order[0]);
	const char *path = SCRATCH "/pgf-files-random";
	unsigned long long pg[PGFT_NCACHE], t1;
	unsigned char seen[256];
	struct pgf_trace t;
	char buf[PAGE];
	long long id;
	int c, fd;

	if (!scratch())
		SKIP("no scratch disk at " SCRATCH);
	fd = fresh(path);
	fill(fd, 256);
	ASSERT_EQ(drop(fd), 0);
	ASSERT_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0);
	c = trace_files();
	ASSERT_TRUE(c >= 0);
	for (int i = 0; i < n; i++)
		ASSERT_EQ(pread(fd, buf, PAGE, order[i] * PAGE), (ssize_t)PAGE);
	EXPECT_EQ(cached(fd), n);
	t1 = pgf_now_ns();
	for (int i = 0; i < n; i++)
		ASSERT_EQ(pread(fd, buf, PAGE, order[i] * PAGE), (ssize_t)PAGE);
	stop_read(c, &t);
	id = file_id(&t, path, fd);
	ASSERT_TRUE(id >= 0);
	tally(&t, 0, after(&t, t1), id, 'r', pg, seen, 256);
	EXPECT_EQ(pg[PGFT_MISS], n);
	EXPECT_EQ(pg[PGFT_HIT] + pg[PGFT_READAHEAD], 0);
	for (int i = 0; i < n; i++)
		EXPECT_EQ(seen[order[i]], 1);
	tally(&t, after(&t, t1), t.nr, id, 'r', pg, NULL, 0);
	EXPECT_EQ(pg[PGFT_HIT], n);
	EXPECT_EQ(pg[PGFT_MISS] + pg[PGFT_READAHEAD], 0);
	finish(&t, fd, path);
}

/*
 * Buffered writes (ext4: generic_perform_write(); XFS: iomap's, which
 * adds large folios): into pages the cache holds (hits) and pages it does
 * not (misses), checked against mincore() before the write. The cached
 * pages are read back in one by one (POSIX_FADV_RANDOM: no readahead),
 * so the write adds the folio of pages 8-15 itself, on XFS a large one.
 * Then a write of 64 pages to the end of the file: 64 misses.
 *
 *   pages   0 ... 8 ... 16 ... 24 ............ 88
 *   cached  |yes  |no    |yes  |  (none: past the end)
 *   write   |-- pages 0-23 --|
 *   records |hit x8|miss x8|hit x8|
 *   write                    |-- pages 24-87 --|
 *   records                  |miss x64         |
 */
static void writes_at(const char *path)
{
	static char buf[64 * PAGE];
	unsigned long long pg[PGFT_NCACHE], t1;
	unsigned char seen[88];
	struct pgf_trace t;
	long long id;
	size_t k = 0;
	int c, fd;

	if (!scratch_at(path))
		SKIP("no scratch disk for %s", path);
	fd = fresh(path);
	fill(fd, 24);
	ASSERT_EQ(drop(fd), 0);
	ASSERT_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0);
	for (int i = 0; i < 24; i++)
		if (i < 8 || i >= 16)
			ASSERT_EQ(pread(fd, buf, PAGE, i * PAGE), (ssize_t)PAGE);
	ASSERT_EQ(resident(fd, 24), 16);
	c = trace_files();
	ASSERT_TRUE(c >= 0);
	memset(buf, 2, sizeof(buf));
	ASSERT_EQ(pwrite(fd, buf, 24 * PAGE, 0), (ssize_t)(24 * PAGE));
	t1 = pgf_now_ns();
	ASSERT_EQ(pwrite(fd, buf, 64 * PAGE, 24 * PAGE), (ssize_t)(64 * PAGE));
	stop_read(c, &t);
	id = file_id(&t, path, fd);
	ASSERT_TRUE(id >= 0);
	tally(&t, 0, after(&t, t1), id, 'w', pg, seen, 88);
	EXPECT_EQ(pg[PGFT_HIT], 16);
	EXPECT_EQ(pg[PGFT_MISS], 8);
	for (int i = 0; i < 88; i++)
		EXPECT_EQ(seen[i], i < 24);
	tally(&t, after(&t, t1), t.nr, id, 'w', pg, seen, 88);
	EXPECT_EQ(pg[PGFT_MISS], 64);
	EXPECT_EQ(pg[PGFT_HIT], 0);
	for (int i = 0; i < 88; i++)
		EXPECT_EQ(seen[i], i >= 24);
	/* In order: hit 0-7, miss 8-15, hit 16-23, then miss 24-87. */
	for (size_t i = 0; i < t.nr; i++) {
		const struct pgf_rec *r = &t.rec[i];

		if (strcmp(r->type, "cache"))
			continue;
		EXPECT_EQ(r->addr, 8 * k);
		EXPECT_EQ(r->a, k < 3 ? 8 : 64);
		EXPECT_EQ(r->cache, k == 1 || k == 3 ? PGFT_MISS : PGFT_HIT);
		k++;
	}
	EXPECT_EQ(k, 4);
	finish(&t, fd, path);
}

TEST(ext4_writes)
{
	writes_at(SCRATCH "/pgf-files-write");
}

TEST(xfs_writes)
{
	writes_at(SCRATCH_XFS "/pgf-files-write");
}

/*
 * sendfile() from ext4 (filemap_splice_read()) and from tmpfs
 * (shmem_file_splice_read()): the pages sent, as reads.
 */
TEST(splice_read)
{
	const char *paths[] = { SCRATCH "/pgf-files-send", "/tmp/pgf-files-send" };
	unsigned long long pg[PGFT_NCACHE];
	unsigned char seen[16];
	struct pgf_trace t;
	long long id;
	int c, fd, out;

	for (int k = 0; k < 2; k++) {
		off_t off = 0;

		if (!k && !scratch())
			continue;
		unlink(paths[k]);
		fd = open(paths[k], O_RDWR | O_CREAT | O_EXCL, 0600);
		ASSERT_TRUE(fd >= 0);
		fill(fd, 16);
		out = open("/dev/null", O_WRONLY);
		ASSERT_TRUE(out >= 0);
		c = trace_files();
		ASSERT_TRUE(c >= 0);
		ASSERT_EQ(sendfile(out, fd, &off, 8 * PAGE), (ssize_t)(8 * PAGE));
		stop_read(c, &t);
		id = file_id(&t, paths[k], fd);
		ASSERT_TRUE(id >= 0);
		tally(&t, 0, t.nr, id, 'r', pg, seen, 16);
		ktap_diag("%s: %llu hit", paths[k], pg[PGFT_HIT]);
		EXPECT_EQ(pg[PGFT_HIT], 8);
		for (int i = 0; i < 16; i++)
			EXPECT_EQ(seen[i], i < 8);
		pgf_trace_free(&t);
		close(out);
		close(fd);
		unlink(paths[k]);
	}
}

/* O_DIRECT on ext4: one record of the pages asked for, direct. */
TEST(ext4_direct)
{
	const char *path = SCRATCH "/pgf-files-direct";
	unsigned long long pg[PGFT_NCACHE];
	unsigned char seen[64];
	struct pgf_trace t;
	long long id;
	void *buf;
	int c, fd, d;

	if (!scratch())
		SKIP("no scratch disk at " SCRATCH);
	fd = fresh(path);
	fill(fd, 64);
	ASSERT_EQ(drop(fd), 0);
	d = open(path, O_RDWR | O_DIRECT);
	ASSERT_TRUE(d >= 0);
	ASSERT_EQ(posix_memalign(&buf, PAGE, 8 * PAGE), 0);
	c = trace_files();
	ASSERT_TRUE(c >= 0);
	ASSERT_EQ(pread(d, buf, 8 * PAGE, 16 * PAGE), (ssize_t)(8 * PAGE));
	ASSERT_EQ(pwrite(d, buf, 4 * PAGE, 40 * PAGE), (ssize_t)(4 * PAGE));
	EXPECT_EQ(cached(fd), 0);
	stop_read(c, &t);
	id = file_id(&t, path, fd);
	ASSERT_TRUE(id >= 0);
	tally(&t, 0, t.nr, id, 'r', pg, seen, 64);
	EXPECT_EQ(pg[PGFT_DIRECT], 8);
	EXPECT_EQ(pg[PGFT_HIT] + pg[PGFT_MISS] + pg[PGFT_READAHEAD], 0);
	for (int i = 0; i < 64; i++)
		EXPECT_EQ(seen[i], i >= 16 && i < 24);
	tally(&t, 0, t.nr, id, 'w', pg, seen, 64);
	EXPECT_EQ(pg[PGFT_DIRECT], 4);
	for (int i = 0; i < 64; i++)
		EXPECT_EQ(seen[i], i >= 40 && i < 44);
	free(buf);
	pgf_trace_free(&t);
	close(d);
	close(fd);
	unlink(path);
}

/*
 * A file read and mapped is one identity: the "file" record's device and
 * inode are its region's ("map", after the mmap()). And a trace started
 * without "files" records no file I/O: of two reads, one before a restart
 * with "files" and one after, only the second is recorded.
 */
TEST(identity)
{
	const char *path = "/tmp/pgf-files-id";
	struct pgf_trace t;
	char buf[PAGE];
	int c, fd, maps = 0;
	long long id;
	struct stat st;
	char *m;

	fd = fresh(path);
	fill(fd, 4);
	ASSERT_EQ(fstat(fd, &st), 0);
	c = open("/proc/self/pgfault_history", O_RDWR | O_NONBLOCK);
	ASSERT_TRUE(c >= 0);
	ASSERT_EQ(write(c, "1", 1), 1);
	ASSERT_EQ(pread(fd, buf, PAGE, 0), (ssize_t)PAGE);
	ASSERT_EQ(write(c, "0", 1), 1);
	ASSERT_EQ(write(c, "1 files", 7), 7);
	m = mmap(NULL, 4 * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_TRUE(m != MAP_FAILED);
	EXPECT_EQ(m[PAGE], 0x5a);
	ASSERT_EQ(pread(fd, buf, PAGE, 0), (ssize_t)PAGE);
	stop_read(c, &t);
	id = file_id(&t, path, fd);
	ASSERT_TRUE(id >= 0);
	EXPECT_EQ(pgf_count(&t, "cache"), 1);
	for (size_t i = 0; i < t.nr; i++) {
		const struct pgf_rec *r = &t.rec[i];

		if (strcmp(r->type, "map") || strcmp(r->text, path))
			continue;
		maps++;
		EXPECT_EQ(r->inode, (unsigned long long)st.st_ino);
		EXPECT_EQ(r->major, major(st.st_dev));
		EXPECT_EQ(r->minor, minor(st.st_dev));
	}
	EXPECT_EQ(maps, 1);
	munmap(m, 4 * PAGE);
	finish(&t, fd, path);
}

/* A minimal io_uring, by its system calls: one read, waited for. */
struct uring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static int uring_init(struct uring *u)
{
	struct io_uring_params p;
	void *sq, *cq;

	memset(&p, 0, sizeof(p));
	u->fd = syscall(__NR_io_uring_setup, 4, &p);
	if (u->fd < 0)
		return -1;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned int),
		  PROT_READ | PROT_WRITE, MAP_SHARED, u->fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED, u->fd, IORING_OFF_CQ_RING);
	u->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED, u->fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || u->sqes == MAP_FAILED)
		return -1;
	u->sq_tail = sq + p.sq_off.tail;
	u->sq_mask = sq + p.sq_off.ring_mask;
	u->sq_array = sq + p.sq_off.array;
	u->cq_head = cq + p.cq_off.head;
	u->cq_tail = cq + p.cq_off.tail;
	u->cq_mask = cq + p.cq_off.ring_mask;
	u->cqes = cq + p.cq_off.cqes;
	return 0;
}

/* Read @len bytes at @off of @fd into @buf; @async: by an io-wq worker. */
static int uring_rw(struct uring *u, int op, int fd, void *buf, size_t len,
		    off_t off, bool async)
{
	unsigned int tail = *u->sq_tail, i = tail & *u->sq_mask, head;
	struct io_uring_sqe *e = &u->sqes[i];
	int res;

	memset(e, 0, sizeof(*e));
	e->opcode = op;
	e->fd = fd;
	e->addr = (unsigned long)buf;
	e->len = len;
	e->off = off;
	e->flags = async ? IOSQE_ASYNC : 0;
	u->sq_array[i] = i;
	__atomic_store_n(u->sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, u->fd, 1, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0) != 1)
		return -1;
	head = *u->cq_head;
	if (head == __atomic_load_n(u->cq_tail, __ATOMIC_ACQUIRE))
		return -1;
	res = u->cqes[head & *u->cq_mask].res;
	__atomic_store_n(u->cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

/*
 * io_uring: a read issued inline, and a read and a write forced to the
 * ring's worker (IOSQE_ASYNC), a thread of the process: each is the
 * pages it used, the worker's by a thread other than the submitter.
 */
TEST(io_uring)
{
	static char buf[8 * PAGE];
	const char *path = "/tmp/pgf-files-uring";
	unsigned long long pg[PGFT_NCACHE];
	unsigned char seen[16];
	struct pgf_trace t;
	struct uring u;
	int c, fd, other = 0;
	long long id;

	fd = fresh(path);
	fill(fd, 16);
	if (uring_init(&u))
		SKIP("no io_uring: %s", strerror(errno));
	c = trace_files();
	ASSERT_TRUE(c >= 0);
	ASSERT_EQ(uring_rw(&u, IORING_OP_READ, fd, buf, 4 * PAGE, 0, false), (int)(4 * PAGE));
	ASSERT_EQ(uring_rw(&u, IORING_OP_READ, fd, buf, 4 * PAGE, 8 * PAGE, true), (int)(4 * PAGE));
	ASSERT_EQ(uring_rw(&u, IORING_OP_WRITE, fd, buf, 2 * PAGE, 4 * PAGE, true), (int)(2 * PAGE));
	stop_read(c, &t);
	id = file_id(&t, path, fd);
	ASSERT_TRUE(id >= 0);
	tally(&t, 0, t.nr, id, 'r', pg, seen, 16);
	EXPECT_EQ(pg[PGFT_HIT], 8);
	for (int i = 0; i < 16; i++)
		EXPECT_EQ(seen[i], (i < 4 || (i >= 8 && i < 12)));
	tally(&t, 0, t.nr, id, 'w', pg, seen, 16);
	EXPECT_EQ(pg[PGFT_HIT], 2);
	for (int i = 0; i < 16; i++)
		EXPECT_EQ(seen[i], i >= 4 && i < 6);
	for (size_t i = 0; i < t.nr; i++) {
		const struct pgf_rec *r = &t.rec[i];

		if (strcmp(r->type, "cache"))
			continue;
		EXPECT_GT(r->tid, 0);
		other += r->tid != (int)syscall(SYS_gettid);
	}
	/*
	 * The two async ones by the ring's worker at least (tmpfs has no
	 * non-blocking read: io_uring hands the inline one to it too).
	 */
	EXPECT_GE(other, 2);
	pgf_trace_free(&t);
	close(u.fd);
	close(fd);
	unlink(path);
}

/*
 * The exit record: "cache KEPT LOST", KEPT the cache records the trace
 * holds, for a child that does file I/O from several threads' worth of
 * calls and exits; nothing lost.
 */
TEST(exit_totals)
{
	const char *path = "/tmp/pgf-files-exit";
	unsigned long long kept = 0;
	struct pgf_trace t;
	int go[2], rd = -1, exits = 0;
	pid_t pid;

	ASSERT_EQ(pipe(go), 0);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (!pid) {
		char buf[8 * PAGE], c;
		int fd;

		if (read(go[0], &c, 1) != 1)
			_exit(2);
		unlink(path);
		fd = open(path, O_RDWR | O_CREAT, 0600);
		memset(buf, 3, sizeof(buf));
		for (int i = 0; i < 100; i++) {
			if (pwrite(fd, buf, sizeof(buf), (i % 10) * PAGE) < 0 ||
			    pread(fd, buf, sizeof(buf), (i % 7) * PAGE) < 0)
				_exit(3);
		}
		close(fd);
		unlink(path);
		_exit(0);
	}
	ASSERT_EQ(pgf_ctl(pid, "1 files", 7), 0);
	rd = pgf_open(pid, 0);
	ASSERT_TRUE(rd >= 0);
	ASSERT_EQ(write(go[1], "g", 1), 1);
	ASSERT_EQ(pgf_read_all(rd, &t), 0);
	ASSERT_EQ(waitpid(pid, NULL, 0), pid);
	for (size_t i = 0; i < t.nr; i++) {
		const struct pgf_rec *r = &t.rec[i];

		if (!strcmp(r->type, "cache"))
			kept++;
		if (strcmp(r->type, "exit"))
			continue;
		exits++;
		EXPECT_TRUE(r->flags & PGFT_EXIT_CACHE);
		EXPECT_EQ(r->n[4], kept);
		EXPECT_EQ(r->n[5], 0);
	}
	EXPECT_EQ(exits, 1);
	/* 100 writes and 100 reads, a record each at least */
	EXPECT_TRUE(kept >= 200);
	pgf_trace_free(&t);
	close(rd);
}

KTAP_MAIN()
