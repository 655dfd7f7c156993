/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap.h - a small test harness that prints KTAP (Documentation/dev-tools/ktap.rst).
 *
 * In the spirit of tools/testing/selftests/kselftest_harness.h, much smaller:
 *
 *	#include "ktap.h"
 *
 *	TEST(touches_pages)
 *	{
 *		ASSERT_EQ(do_something(), 0);	// fails and stops this test
 *		EXPECT_TRUE(x > 3);		// fails, the test goes on
 *		if (!have_feature)
 *			SKIP("no feature");
 *	}
 *
 *	KTAP_MAIN()
 *
 * Every test runs in its own forked process, so a crash or a hang fails that
 * test alone: the parent reports "not ok" with the signal, or kills the test
 * after KTAP_TIMEOUT seconds (environment variable, default 120). A test
 * that took a third of that or more says how long it ran.
 * Arguments name the tests to run (default: all); "-l" lists them.
 * The program exits 0 when no test failed, 1 otherwise.
 */
#ifndef PGF_KTAP_H
#define PGF_KTAP_H

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct ktap_test {
	const char *name;
	void (*fn)(void);
	int line;		/* tests run in the order they are written */
};

/* State shared between a test's process and the harness. */
struct ktap_shared {
	int failed;		/* an EXPECT failed */
	int skipped;		/* SKIP() was called */
	char reason[256];	/* SKIP() reason */
};

extern struct ktap_shared *ktap_shared;

#define KTAP_SECTION __attribute__((used, section("ktap_tests"), aligned(sizeof(void *))))

#define TEST(test_name)							\
	static void test_name(void);					\
	static const struct ktap_test ktap_##test_name KTAP_SECTION = {	\
		.name = #test_name, .fn = test_name, .line = __LINE__,	\
	};								\
	static void test_name(void)

/* Diagnostics: a "# " line that KTAP parsers keep with the test. */
#define ktap_diag(fmt, ...)						\
	do {								\
		printf("# " fmt "\n", ##__VA_ARGS__);			\
		fflush(stdout);						\
	} while (0)

#define KTAP_FAIL_(stop, fmt, ...)					\
	do {								\
		ktap_diag("%s:%d: " fmt, __FILE__, __LINE__, ##__VA_ARGS__); \
		ktap_shared->failed = 1;				\
		if (stop)						\
			exit(1);					\
	} while (0)

#define KTAP_CMP_(stop, a, op, b)					\
	do {								\
		long long ktap_a_ = (long long)(a);			\
		long long ktap_b_ = (long long)(b);			\
		if (!(ktap_a_ op ktap_b_))				\
			KTAP_FAIL_(stop, "expected %s %s %s (%lld %s %lld)", \
				   #a, #op, #b, ktap_a_, #op, ktap_b_);	\
	} while (0)

#define ASSERT_EQ(a, b) KTAP_CMP_(1, a, ==, b)
#define ASSERT_NE(a, b) KTAP_CMP_(1, a, !=, b)
#define ASSERT_GE(a, b) KTAP_CMP_(1, a, >=, b)
#define ASSERT_LE(a, b) KTAP_CMP_(1, a, <=, b)
#define ASSERT_GT(a, b) KTAP_CMP_(1, a, >, b)
#define ASSERT_LT(a, b) KTAP_CMP_(1, a, <, b)
#define EXPECT_EQ(a, b) KTAP_CMP_(0, a, ==, b)
#define EXPECT_NE(a, b) KTAP_CMP_(0, a, !=, b)
#define EXPECT_GE(a, b) KTAP_CMP_(0, a, >=, b)
#define EXPECT_LE(a, b) KTAP_CMP_(0, a, <=, b)
#define EXPECT_GT(a, b) KTAP_CMP_(0, a, >, b)
#define EXPECT_LT(a, b) KTAP_CMP_(0, a, <, b)

#define ASSERT_TRUE(c)							\
	do { if (!(c)) KTAP_FAIL_(1, "expected %s", #c); } while (0)
#define EXPECT_TRUE(c)							\
	do { if (!(c)) KTAP_FAIL_(0, "expected %s", #c); } while (0)

/* A system call that must succeed (returns >= 0); reports errno. */
#define ASSERT_SYS(call)						\
	({								\
		long ktap_r_ = (long)(call);				\
		if (ktap_r_ < 0)					\
			KTAP_FAIL_(1, "%s: %s", #call, strerror(errno)); \
		ktap_r_;						\
	})

/* A system call that must fail with errno @err. */
#define ASSERT_ERRNO(call, err)						\
	do {								\
		errno = 0;						\
		long ktap_r_ = (long)(call);				\
		int ktap_e_ = errno;					\
		if (ktap_r_ >= 0 || ktap_e_ != (err))			\
			KTAP_FAIL_(1, "%s: expected -1/%s, got %ld/%s",	\
				   #call, strerror(err), ktap_r_,	\
				   strerror(ktap_e_));			\
	} while (0)

#define SKIP(fmt, ...)							\
	do {								\
		snprintf(ktap_shared->reason, sizeof(ktap_shared->reason), \
			 fmt, ##__VA_ARGS__);				\
		ktap_shared->skipped = 1;				\
		exit(0);						\
	} while (0)

int ktap_main(int argc, char **argv);

#define KTAP_MAIN()							\
	int main(int argc, char **argv) { return ktap_main(argc, argv); }

#ifndef KTAP_NO_IMPL

struct ktap_shared *ktap_shared;
extern const struct ktap_test __start_ktap_tests[];
extern const struct ktap_test __stop_ktap_tests[];

static int ktap_selected(const struct ktap_test *t, int argc, char **argv)
{
	if (argc <= 1)
		return 1;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], t->name))
			return 1;
	return 0;
}

static pid_t ktap_child;

static void ktap_alarm(int sig)
{
	(void)sig;
	if (ktap_child > 0)
		kill(-ktap_child, SIGKILL);
}

/* Run one test in its own process group; 0 pass, 1 fail, 2 skip. */
static int ktap_run_one(const struct ktap_test *t, unsigned int timeout)
{
	struct timespec t0, t1;
	long ms;
	int status;

	memset(ktap_shared, 0, sizeof(*ktap_shared));
	fflush(stdout);
	fflush(stderr);
	ktap_child = fork();
	if (ktap_child < 0) {
		ktap_diag("fork: %s", strerror(errno));
		return 1;
	}
	if (ktap_child == 0) {
		setpgid(0, 0);
		signal(SIGALRM, SIG_DFL);
		t->fn();
		fflush(stdout);
		exit(ktap_shared->failed ? 1 : 0);
	}
	setpgid(ktap_child, ktap_child);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	alarm(timeout);
	while (waitpid(ktap_child, &status, 0) < 0 && errno == EINTR)
		;
	alarm(0);
	/* Reap anything the test left behind in its process group. */
	kill(-ktap_child, SIGKILL);
	while (waitpid(-ktap_child, NULL, 0) > 0)
		;
	ktap_child = 0;
	/* A test near its limit fails on a slower host: say so. */
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	if (ms >= timeout * 1000L / 3)
		ktap_diag("%s: ran %ld.%01ld s, limit %u s", t->name, ms / 1000,
			  ms % 1000 / 100, timeout);

	if (WIFSIGNALED(status)) {
		if (WTERMSIG(status) == SIGKILL)
			ktap_diag("%s: killed (timeout after %us?)", t->name, timeout);
		else
			ktap_diag("%s: crashed with signal %d (%s)", t->name,
				  WTERMSIG(status), strsignal(WTERMSIG(status)));
		return 1;
	}
	if (ktap_shared->skipped && WEXITSTATUS(status) == 0)
		return 2;
	return WEXITSTATUS(status) == 0 && !ktap_shared->failed ? 0 : 1;
}

static int ktap_by_line(const void *a, const void *b)
{
	return (*(const struct ktap_test * const *)a)->line -
	       (*(const struct ktap_test * const *)b)->line;
}

int ktap_main(int argc, char **argv)
{
	size_t nr = __stop_ktap_tests - __start_ktap_tests, k;
	const struct ktap_test **order = calloc(nr, sizeof(*order));
	const struct ktap_test *t;
	unsigned int timeout = 120, n = 0, i = 0, pass = 0, fail = 0, skip = 0;
	const char *env = getenv("KTAP_TIMEOUT");

	if (!order)
		return 1;
	for (k = 0; k < nr; k++)
		order[k] = &__start_ktap_tests[k];
	qsort(order, nr, sizeof(*order), ktap_by_line);

	if (argc > 1 && !strcmp(argv[1], "-l")) {
		for (k = 0; k < nr; k++)
			printf("%s\n", order[k]->name);
		return 0;
	}
	if (env && atoi(env) > 0)
		timeout = atoi(env);

	ktap_shared = mmap(NULL, sizeof(*ktap_shared), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ktap_shared == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	signal(SIGALRM, ktap_alarm);
	setvbuf(stdout, NULL, _IOLBF, 0);

	for (k = 0; k < nr; k++)
		n += ktap_selected(order[k], argc, argv);
	printf("KTAP version 1\n1..%u\n", n);

	for (k = 0; k < nr; k++) {
		t = order[k];
		if (!ktap_selected(t, argc, argv))
			continue;
		i++;
		switch (ktap_run_one(t, timeout)) {
		case 0:
			pass++;
			printf("ok %u %s\n", i, t->name);
			break;
		case 2:
			skip++;
			printf("ok %u %s # SKIP %s\n", i, t->name, ktap_shared->reason);
			break;
		default:
			fail++;
			printf("not ok %u %s\n", i, t->name);
			break;
		}
	}
	printf("# totals: pass:%u fail:%u skip:%u\n", pass, fail, skip);
	return fail ? 1 : 0;
}

#endif /* KTAP_NO_IMPL */
#endif /* PGF_KTAP_H */
