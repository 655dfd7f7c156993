// SPDX-License-Identifier: GPL-2.0
/*
 * numa - tracing and NUMA balancing. With balancing on, the scanner makes
 * a process's pages inaccessible to see where they are used, and the next
 * access takes a hinting fault, which /proc/<pid>/stat counts as a minor
 * fault. A trace that never re-armed records those as minor faults: a
 * "reref" means the trace's own re-arming, nothing else.
 *
 * Needs CONFIG_NUMA_BALANCING (the x86_64 guest; one node is enough for
 * hinting faults, the pages just stay where they are).
 */
#include <sys/mman.h>
#include <sys/wait.h>
#include "ktap.h"
#include "util.h"
#include "pgf.h"
#include "pgfstats.h"

#define PAGES 2048
#define SCHED "/sys/kernel/debug/sched/numa_balancing/"

struct shared {
	volatile int touched, stop;
};

TEST(first_mode_with_numa_balancing_records_no_reref)
{
	long old_mode = pgf_read_long("/proc/sys/kernel/numa_balancing");
	long old_delay = pgf_read_long(SCHED "scan_delay_ms");
	long old_min = pgf_read_long(SCHED "scan_period_min_ms");
	unsigned long reref = 0, minor = 0;
	struct shared *sh;
	struct pgf_trace t;
	long before, after;
	int go[2], fd, status;
	pid_t pid;
	char c;

	if (old_mode < 0 || old_delay < 0 || old_min < 0)
		SKIP("no NUMA balancing (or its debugfs knobs)");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(sh != MAP_FAILED);
	ASSERT_SYS(pipe(go));
	pid = ASSERT_SYS(fork());
	if (pid == 0) {
		char *m = mmap(NULL, PAGES * 4096UL, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		volatile char sink;

		if (m == MAP_FAILED || read(go[0], &c, 1) != 1)
			_exit(10);
		madvise(m, PAGES * 4096UL, MADV_NOHUGEPAGE);
		for (int i = 0; i < PAGES; i++)
			m[i * 4096] = 1;
		sh->touched = 1;
		/* Used over and over, as the scanner makes its passes. */
		while (!sh->stop)
			for (int i = 0; i < PAGES; i++)
				sink = m[i * 4096];
		(void)sink;
		_exit(0);
	}
	for (int i = 0; i < 5000; i++) {
		struct pgf_stat st;

		if (!pgf_read_stat(pid, &st) && st.state == 'S')
			break;		/* blocked in its read(): no faults */
		usleep(1000);
	}
	before = pgf_faults_of(pid);
	ASSERT_EQ(pgf_write_long(SCHED "scan_delay_ms", 0), 0);
	ASSERT_EQ(pgf_write_long(SCHED "scan_period_min_ms", 100), 0);
	ASSERT_EQ(pgf_write_long("/proc/sys/kernel/numa_balancing", 1), 0);
	ASSERT_EQ(pgf_set_buffer_kb(1024), 0);
	ASSERT_EQ(pgf_start(pid), 0);
	ASSERT_EQ(pgf_set_buffer_kb(64), 0);
	fd = ASSERT_SYS(pgf_open(pid, 0));
	ASSERT_EQ(write(go[1], "g", 1), 1);
	/* Wait for hinting faults: more faults than pages touched. */
	for (int i = 0; i < 60000; i++) {
		if (sh->touched && pgf_faults_of(pid) - before > PAGES + 64)
			break;
		usleep(1000);
	}
	sh->stop = 1;
	after = pgf_zombie_faults(pid, &status);
	pgf_write_long("/proc/sys/kernel/numa_balancing", old_mode);
	pgf_write_long(SCHED "scan_delay_ms", old_delay);
	pgf_write_long(SCHED "scan_period_min_ms", old_min);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(pgf_read_all(fd, &t), 0);
	close(fd);
	for (size_t i = 0; i < t.nr; i++) {
		if (strcmp(t.rec[i].type, "fault"))
			continue;
		reref += !strcmp(t.rec[i].result, "reref");
		minor += !strcmp(t.rec[i].result, "minor");
	}
	ktap_diag("stat %ld faults (%d pages touched), trace %lu minor, %lu reref, %llu lost",
		  after - before, PAGES, minor, reref, pgf_lost_faults(&t));
	EXPECT_GT(after - before, PAGES + 64);	/* hinting faults came */
	EXPECT_EQ(reref, 0);
	EXPECT_EQ(pgf_ok_faults(&t) + pgf_lost_faults(&t), (unsigned long)(after - before));
	pgf_trace_free(&t);
	munmap(sh, sizeof(*sh));
}

KTAP_MAIN()
