// SPDX-License-Identifier: GPL-2.0
/*
 * simthread - policies fed on a CPU of their own (simthread.h).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "simthread.h"

#define SIM_CHUNK (1 << 16)	/* ids a turn: 256 KiB, in the L2 cache */
#define SIM_MAX 4

struct simthread {
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct mrc *sims[SIM_MAX];
	size_t nsims;
	uint32_t *buf[2];
	size_t len[2];
	bool full[2];		/* handed over, not run yet */
	unsigned int fill;	/* the buffer the reader fills */
	bool quit;
	int err;		/* the first failure's errno */
	struct mrc *failed;
};

static void *sim_main(void *arg)
{
	struct simthread *t = arg;
	struct mrc *failed = NULL;
	unsigned int b = 0;
	int err = 0;

	for (;;) {
		pthread_mutex_lock(&t->lock);
		while (!t->full[b] && !t->quit)
			pthread_cond_wait(&t->cond, &t->lock);
		if (!t->full[b]) {
			pthread_mutex_unlock(&t->lock);
			return NULL;
		}
		pthread_mutex_unlock(&t->lock);
		for (size_t i = 0; i < t->nsims && !err; i++)
			if (mrc_ref_ids(t->sims[i], t->buf[b], t->len[b])) {
				err = errno ? errno : EIO;
				failed = t->sims[i];
			}
		pthread_mutex_lock(&t->lock);
		t->err = err;
		t->failed = failed;
		t->full[b] = false;
		pthread_cond_broadcast(&t->cond);
		pthread_mutex_unlock(&t->lock);
		b ^= 1;
	}
}

struct simthread *simthread_start(struct mrc *const *sims, size_t n,
				  unsigned int jobs)
{
	struct simthread *t;
	cpu_set_t set;

	if (!n || n > SIM_MAX || jobs == 1)
		return NULL;
	if (!jobs && (sched_getaffinity(0, sizeof(set), &set) || CPU_COUNT(&set) < 2))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	memcpy(t->sims, sims, n * sizeof(*sims));
	t->nsims = n;
	t->buf[0] = malloc(SIM_CHUNK * sizeof(uint32_t));
	t->buf[1] = malloc(SIM_CHUNK * sizeof(uint32_t));
	if (!t->buf[0] || !t->buf[1])
		goto fail;
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->cond, NULL);
	if (pthread_create(&t->tid, NULL, sim_main, t)) {
		pthread_cond_destroy(&t->cond);
		pthread_mutex_destroy(&t->lock);
		goto fail;
	}
	return t;
fail:
	free(t->buf[0]);
	free(t->buf[1]);
	free(t);
	return NULL;
}

/*
 * Hand the buffer being filled over, and wait until the other is free;
 * the thread's errno so far.
 */
static int sim_turn(struct simthread *t)
{
	unsigned int f = t->fill;
	int err;

	pthread_mutex_lock(&t->lock);
	t->full[f] = true;
	pthread_cond_broadcast(&t->cond);
	t->fill = f ^= 1;
	while (t->full[f])
		pthread_cond_wait(&t->cond, &t->lock);
	err = t->err;
	pthread_mutex_unlock(&t->lock);
	t->len[f] = 0;
	return err;
}

int simthread_give(struct simthread *t, const uint32_t *ids, size_t len)
{
	while (len) {
		unsigned int f = t->fill;
		size_t n = SIM_CHUNK - t->len[f] < len ? SIM_CHUNK - t->len[f] : len;

		memcpy(t->buf[f] + t->len[f], ids, n * sizeof(*ids));
		t->len[f] += n;
		ids += n;
		len -= n;
		if (t->len[f] == SIM_CHUNK) {
			int err = sim_turn(t);

			if (err) {
				errno = err;
				return -1;
			}
		}
	}
	return 0;
}

int simthread_stop(struct simthread *t, struct mrc **failed)
{
	int err;

	if (t->len[t->fill])
		sim_turn(t);
	pthread_mutex_lock(&t->lock);
	t->quit = true;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->tid, NULL);
	err = t->err;
	*failed = t->failed;
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
	free(t->buf[0]);
	free(t->buf[1]);
	free(t);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}
