/* SPDX-License-Identifier: GPL-2.0 */
/*
 * simthread - policies fed on a CPU of their own.
 *
 * pgfreport mrc runs the reference string through LRU (the reuse
 * distances, which also number the pages) and through the FIFO, CLOCK
 * and OPT simulations. Where the process may use a second CPU, the
 * simulations given here run there, on chunks of page ids handed over in
 * turns (two buffers: the reader fills one while the thread runs the
 * other), and the pass costs the longer of the two sides instead of their
 * sum. The results are the same as feeding the policies in line: each
 * sees the same ids in the same order.
 *
 *	struct simthread *t = simthread_start(sims, n, jobs);	// NULL: in line
 *	simthread_give(t, ids, len);	// any number of times
 *	simthread_stop(t);		// all given are run; 0 or -1, errno
 */
#ifndef PGFREPORT_SIMTHREAD_H
#define PGFREPORT_SIMTHREAD_H

#include <stddef.h>
#include <stdint.h>
#include "../lib/mrc.h"

struct simthread;

/*
 * A thread for @sims[0 .. @n - 1] (fed with mrc_ref_ids()); NULL when
 * @jobs is 1, or 0 (as many as there are CPUs) and this process may use
 * one CPU only, or no thread could be made: the caller then feeds them
 * itself.
 */
struct simthread *simthread_start(struct mrc *const *sims, size_t n,
				  unsigned int jobs);

/*
 * Hand over @len ids (copied). 0, or -1 with errno set when a policy
 * failed on what was given before (nothing more is run then).
 */
int simthread_give(struct simthread *t, const uint32_t *ids, size_t len);

/*
 * Run what is left, end the thread and free @t: 0, or -1 with errno set
 * and *@failed the policy that failed.
 */
int simthread_stop(struct simthread *t, struct mrc **failed);

#endif
