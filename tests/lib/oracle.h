/* SPDX-License-Identifier: GPL-2.0 */
/*
 * oracle.h - the /proc/<pid>/stat oracle for a traced puppet, shared by
 * the in-guest tests.
 */
#ifndef PGF_TEST_ORACLE_H
#define PGF_TEST_ORACLE_H

#include <pthread.h>
#include "ktap.h"
#include "util.h"
#include "pgf.h"

/* A reader that drains a trace while the puppet runs, as tracepgfault. */
struct pgf_live {
	int fd;
	struct pgf_trace *t;
	int ret;
	pthread_t thread;
};

static inline void *pgf_live_main(void *arg)
{
	struct pgf_live *l = arg;

	l->ret = pgf_read_all(l->fd, l->t);
	return NULL;
}

/* Read @fd into @t in a thread of its own, from now until EOF. */
static inline int pgf_live_start(struct pgf_live *l, int fd,
				 struct pgf_trace *t)
{
	l->fd = fd;
	l->t = t;
	l->ret = -1;
	return -pthread_create(&l->thread, NULL, pgf_live_main, l);
}

/*
 * Stop tracing the idle puppet, which had @before faults when tracing
 * started, end it and read the trace from @fd into @t (or wait for @live,
 * the reader that drained it meanwhile): every fault between start and
 * stop is in it (/proc/<pid>/stat is the oracle), none lost.
 */
static inline void pgf_stop_and_read(struct puppet *p, int fd, long before,
				     struct pgf_trace *t, struct pgf_live *live)
{
	long after = pgf_faults_of(p->pid);

	ASSERT_EQ(pgf_stop(p->pid), 0);
	puppet_end(p);
	if (live) {
		pthread_join(live->thread, NULL);
		ASSERT_EQ(live->ret, 0);
	} else {
		ASSERT_EQ(pgf_read_all(fd, t), 0);
	}
	close(fd);
	EXPECT_EQ(pgf_lost_faults(t), 0);
	EXPECT_EQ((long)pgf_ok_faults(t), after - before);
}

#endif
