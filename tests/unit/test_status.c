// SPDX-License-Identifier: GPL-2.0
/*
 * test_status - tools/lib/status.c, tracepgfault's live status line, on a
 * clock of the test's own: nothing when off; a redraw at most every
 * STATUS_PERIOD_MS unless forced, each one erasing the last line; the
 * rate over the last period; a loss warned of once, at once, on a line of
 * its own; the line taken away before anything else is printed.
 */
#include <stdlib.h>
#include <string.h>
#include "ktap.h"
#include "lib/status.h"

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

static size_t occurrences(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

TEST(off_prints_nothing)
{
	struct status_counts c = { .records = 5, .faults = 3, .lost = 2,
				   .processes = -1 };
	struct status s;
	struct out o;

	out_open(&o);
	status_init(&s, o.f, false, 0);
	status_update(&s, &c, 10, true);
	status_clear(&s);
	fflush(o.f);
	EXPECT_EQ(o.len, 0);
	fclose(o.f);
	free(o.buf);
}

TEST(redraws_at_most_every_period)
{
	struct status_counts c = { .processes = -1 };
	struct status s;
	struct out o;

	out_open(&o);
	status_init(&s, o.f, true, 100.0);
	for (int i = 1; i <= 20; i++) {		/* 2 s in 0.1 s steps */
		c.records = 10 * i;
		c.faults = 1000 * i;
		status_update(&s, &c, 100.0 + i / 10.0, false);
	}
	fflush(o.f);
	/* A redraw every 0.5 s: at 0.5, 1.0, 1.5, 2.0 s. */
	EXPECT_EQ(occurrences(o.buf, "\r\033[K"), 4);
	/* The last: 2.0 s, 10,000 faults/s over the last period, 200 records. */
	ktap_diag("last line: %s", strrchr(o.buf, '\r') + 4);
	EXPECT_TRUE(strstr(strrchr(o.buf, '\r'),
			   "tracepgfault: 2.0 s, 10,000 faults/s, 200 records, 0 lost") != NULL);
	EXPECT_EQ(strchr(o.buf, '\n'), NULL);	/* one line, redrawn */
	status_update(&s, &c, 102.01, true);	/* forced */
	fflush(o.f);
	EXPECT_EQ(occurrences(o.buf, "\r\033[K"), 5);
	fclose(o.f);
	free(o.buf);
}

TEST(processes_are_shown_when_following)
{
	struct status_counts c = { .records = 1234567, .faults = 1,
				   .processes = 3 };
	struct status s;
	struct out o;

	out_open(&o);
	status_init(&s, o.f, true, 0);
	status_update(&s, &c, 1, true);
	fflush(o.f);
	EXPECT_TRUE(strstr(o.buf, "1,234,567 records, 0 lost, 3 processes") != NULL);
	fclose(o.f);
	free(o.buf);
}

TEST(a_loss_is_warned_of_at_once_and_once)
{
	struct status_counts c = { .records = 10, .processes = -1 };
	struct status s;
	struct out o;
	char *warn;

	out_open(&o);
	status_init(&s, o.f, true, 0);
	status_update(&s, &c, 0.6, false);	/* a line on the screen */
	c.lost = 1500;
	status_update(&s, &c, 0.7, false);	/* not due, but a loss */
	status_update(&s, &c, 0.8, false);
	status_update(&s, &c, 1.3, false);
	fflush(o.f);
	warn = strstr(o.buf, "tracepgfault: WARNING: 1,500 records lost so far");
	ASSERT_TRUE(warn != NULL);
	/* The status line was erased first, and the warning ends its line. */
	EXPECT_EQ(memcmp(warn - 4, "\r\033[K", 4), 0);
	EXPECT_TRUE(strchr(warn, '\n') != NULL);
	EXPECT_EQ(occurrences(o.buf, "WARNING"), 1);
	c.lost = 1501;
	status_update(&s, &c, 1.4, false);
	fflush(o.f);
	EXPECT_EQ(occurrences(o.buf, "WARNING"), 2);
	EXPECT_TRUE(strstr(o.buf, "1,501 records lost so far") != NULL);
	fclose(o.f);
	free(o.buf);
}

TEST(clear_takes_the_line_away_once)
{
	struct status_counts c = { .processes = -1 };
	struct status s;
	struct out o;

	out_open(&o);
	status_init(&s, o.f, true, 0);
	status_clear(&s);			/* nothing shown: nothing */
	fflush(o.f);
	EXPECT_EQ(o.len, 0);
	status_update(&s, &c, 1, true);
	status_clear(&s);
	status_clear(&s);
	fflush(o.f);
	/* Drawn once, erased once. */
	EXPECT_EQ(occurrences(o.buf, "\r\033[K"), 2);
	EXPECT_EQ(strcmp(o.buf + strlen(o.buf) - 4, "\r\033[K"), 0);
	fclose(o.f);
	free(o.buf);
}

KTAP_MAIN()
