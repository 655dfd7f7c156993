// SPDX-License-Identifier: GPL-2.0
/*
 * test_progress - tools/lib/progress.c, pgfreport's progress line, on a
 * clock of the test's own: nothing when off or before PROGRESS_AFTER_MS;
 * then a line with the bytes read of the file's size, the share, the
 * records and their rate and the time left, redrawn at most every
 * PROGRESS_PERIOD_MS, each redraw erasing the last; from a pipe (bytes
 * unknown, or no size) no share and no time left; the line taken away.
 */
#include <stdlib.h>
#include <string.h>
#include "ktap.h"
#include "lib/progress.h"

/* The text written, equal to @want (else it is printed). */
#define EXPECT_TEXT(o, want)						\
	do {								\
		if (strcmp((o)->buf, want))				\
			ktap_diag("got \"%s\"", (o)->buf + 4);		\
		EXPECT_TRUE(!strcmp((o)->buf, want));			\
	} while (0)

struct out {
	FILE *f;
	char *buf;
	size_t len;
};

static void out_open(struct out *o)
{
	o->f = open_memstream(&o->buf, &o->len);
	ASSERT_TRUE(o->f != NULL);
}

static void out_close(struct out *o)
{
	fclose(o->f);
	free(o->buf);
}

TEST(off_prints_nothing)
{
	struct progress p;
	struct out o;

	out_open(&o);
	progress_init(&p, o.f, false, "pgfreport mrc", 1000000000, 100.0);
	progress_update(&p, 500000000, 1000000, 105.0);
	progress_clear(&p);
	fflush(o.f);
	EXPECT_EQ(o.len, 0);
	out_close(&o);
}

TEST(a_file_shows_its_share_and_the_time_left_after_a_second)
{
	struct progress p;
	struct out o;

	out_open(&o);
	progress_init(&p, o.f, true, "pgfreport mrc", 3200000000ULL, 100.0);
	progress_update(&p, 100000000, 400000, 100.9);	/* too soon */
	fflush(o.f);
	EXPECT_EQ(o.len, 0);
	/* 2 s in, a quarter read: 6 s left, 2 M records/s */
	progress_update(&p, 800000000, 4000000, 102.0);
	fflush(o.f);
	EXPECT_TEXT(&o, "\r\033[Kpgfreport mrc: 800 MB of 3.2 GB (25%), 4.0 M records, "
			    "2.0 M records/s, 6 s left");
	/* within the period: no redraw; after it, one that erases the last */
	progress_update(&p, 900000000, 4500000, 102.3);
	fflush(o.f);
	EXPECT_EQ(strstr(o.buf + 1, "\r\033[K") == NULL, true);
	progress_update(&p, 1600000000, 8000000, 104.0);
	fflush(o.f);
	EXPECT_TRUE(strstr(o.buf, "\r\033[Kpgfreport mrc: 1.6 GB of 3.2 GB (50%), "
				  "8.0 M records, 2.0 M records/s, 4 s left") != NULL);
	progress_clear(&p);
	fflush(o.f);
	EXPECT_TRUE(o.len > 4 && !strcmp(o.buf + o.len - 4, "\r\033[K"));
	/* cleared twice: nothing more */
	{
		size_t len = o.len;

		progress_clear(&p);
		fflush(o.f);
		EXPECT_EQ(o.len, len);
	}
	out_close(&o);
}

TEST(a_pipe_shows_records_and_their_rate_only)
{
	struct progress p;
	struct out o;

	out_open(&o);
	progress_init(&p, o.f, true, "pgfreport summary", 0, 0.0);
	progress_update(&p, ~0ULL, 30000000, 1.5);
	fflush(o.f);
	EXPECT_TEXT(&o, "\r\033[Kpgfreport summary: 30.0 M records, 20.0 M records/s");
	out_close(&o);
	/* bytes known (a redirected file that grows), size not: no share */
	out_open(&o);
	progress_init(&p, o.f, true, "pgfreport summary", 0, 0.0);
	progress_update(&p, 48000000, 1000000, 2.0);
	fflush(o.f);
	EXPECT_TEXT(&o, "\r\033[Kpgfreport summary: 48 MB, 1.0 M records, 0.5 M records/s");
	out_close(&o);
}

KTAP_MAIN()
