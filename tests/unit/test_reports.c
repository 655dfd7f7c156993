// SPDX-License-Identifier: GPL-2.0
/*
 * test_reports - pgfreport's reports as a library (tools/pgfreport/report.h):
 * each run of a report has its own state, so one pass runs the same
 * report twice, each with its own options (mrc at two size lists), and
 * prints what two passes of it alone print; and a report run again in
 * the same process starts afresh.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ktap.h"
#include "pgfreport/builtin.h"
#include "pgfreport/pass.h"
#include "pgfreport/report.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static char trace[] = "/tmp/pgf-test-reports-XXXXXX";

/* A trace of one process: three regions, faults over them, a split. */
static void make_trace(void)
{
	uint64_t x = 12345;
	unsigned long long t = 1000;
	int fd = mkstemp(trace);
	FILE *f = fdopen(fd, "w");
	int faults = 0;

	ASSERT_TRUE(f != NULL);
	fprintf(f, "pgfault_history 6 pid 7 page_size 4096\nstart %llu first\n"
		"layout %llu 3\n", t, t);
	fprintf(f, "map %llu 1 400000 440000 r-xp 0 08:01 5 /bin/prog\n", t);
	fprintf(f, "map %llu 2 600000 700000 rw-p 0 00:00 0 [heap]\n", t);
	fprintf(f, "map %llu 3 7f0000000 7f0100000 rw-p 0 00:00 0\n", t);
	for (int i = 0; i < 3000; i++) {
		static const unsigned long long base[] = { 0x400000, 0x600000,
							   0x7f0000000 };
		static const unsigned long long pages[] = { 64, 256, 256 };
		int r;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		r = (x >> 33) % 3;
		t += 1000 + (x >> 40) % 5000;
		fprintf(f, "fault %llu 7 %llx %c user %s 0\n", t,
			base[r] + ((x >> 20) % pages[r]) * 4096 + (x >> 50) % 4096,
			r ? 'w' : 'r', i % 7 ? "minor" : "major");
		faults++;
		if (i == 1500)
			fprintf(f, "change %llu 2 600000 680000 rw-p 0 00:00 0 [heap]\n"
				"map %llu 4 680000 700000 r--p 0 00:00 0 [heap]\n", t, t);
	}
	fprintf(f, "exit %llu 0 %d 0 4\n", t + 1, faults);
	ASSERT_EQ(fclose(f), 0);
}

/*
 * What reports @r[0 .. @n) print on one pass over the trace, each given
 * option @opt with @arg[i] (if not NULL) after its defaults.
 */
static char *run(const struct report *const *r, size_t n, int opt,
		 const char *const *arg)
{
	char out[] = "/tmp/pgf-test-reports-out-XXXXXX", *text;
	struct pass ps = { .cmd = "test", .takes = TAKES_PID | TAKES_FILTERS };
	char *argv[] = { trace };
	void *st[4] = { NULL };
	int fd = mkstemp(out), saved, status;
	long len;
	FILE *f;

	ASSERT_TRUE(fd >= 0 && n <= N(st));
	for (size_t i = 0; i < n; i++) {
		st[i] = calloc(1, r[i]->size ? r[i]->size : 1);
		ASSERT_TRUE(st[i] != NULL);
		if (r[i]->init)
			r[i]->init(st[i]);
		if (arg && arg[i])
			ASSERT_EQ(r[i]->option(&ps, st[i], opt, arg[i]), 0);
	}
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	dup2(fd, STDOUT_FILENO);
	ASSERT_EQ(pass_open(&ps, 1, argv), 0);
	status = reports_run(&ps, r, st, n);
	pass_close(&ps);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	EXPECT_EQ(status, 0);
	for (size_t i = 0; i < n; i++)
		free(st[i]);
	f = fdopen(fd, "r");
	ASSERT_TRUE(f != NULL);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(1, len + 1);
	ASSERT_TRUE(text && fread(text, 1, len, f) == (size_t)len);
	fclose(f);
	unlink(out);
	return text;
}

/* What one pass of @a then @b prints: each under its "# ==== NAME". */
static char *two(const char *name, const char *a, const char *b)
{
	char *s = malloc(strlen(a) + strlen(b) + 2 * strlen(name) + 32);

	ASSERT_TRUE(s != NULL);
	sprintf(s, "# ==== %s\n%s\n# ==== %s\n%s", name, a, name, b);
	return s;
}

TEST(mrc_at_two_size_lists_on_one_pass)
{
	const struct report *one[] = { &mrc_report };
	const struct report *both[] = { &mrc_report, &mrc_report };
	const char *small[] = { "1,2,4,8" }, *large[] = { "16,64,256" };
	const char *sizes[] = { "1,2,4,8", "16,64,256" };
	char *a, *b, *ab, *want;

	make_trace();
	a = run(one, 1, 'z', small);
	b = run(one, 1, 'z', large);
	EXPECT_TRUE(strstr(a, "\n           8          32768 ") != NULL);
	EXPECT_TRUE(strstr(b, "\n         256        1048576 ") != NULL);
	EXPECT_TRUE(strcmp(a, b) != 0);
	ab = run(both, 2, 'z', sizes);
	want = two("mrc", a, b);
	EXPECT_TRUE(!strcmp(ab, want));
	free(a);
	free(b);
	free(ab);
	free(want);
	unlink(trace);
}

TEST(every_shared_report_runs_twice_on_one_pass)
{
	const struct report *all[] = {
		&map_report, &summary_report, &timeline_report, &mrc_report,
		&reuse_report, &tlb_report, &hot_report, &symbols_report,
		&wss_report, &prefetch_report,
	};

	make_trace();
	for (size_t i = 0; i < N(all); i++) {
		const struct report *pair[] = { all[i], all[i] };
		char *alone = run(&all[i], 1, 0, NULL);
		char *again = run(&all[i], 1, 0, NULL);
		char *both = run(pair, 2, 0, NULL), *want;

		/* a second run in the same process starts afresh */
		EXPECT_TRUE(!strcmp(again, alone));
		EXPECT_TRUE(strlen(alone) > 50);
		want = two(all[i]->name, alone, alone);
		EXPECT_TRUE(!strcmp(both, want));
		if (strcmp(again, alone) || strcmp(both, want))
			ktap_diag("report %s", all[i]->name);
		free(alone);
		free(again);
		free(both);
		free(want);
	}
	unlink(trace);
}

KTAP_MAIN()
