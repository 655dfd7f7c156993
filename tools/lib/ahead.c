// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a text trace ahead, in a thread of its own (pgft_read_ahead()).
 *
 * Reading a text trace is a good half of what a report of it costs:
 * finding the lines, reading their numbers. A second thread does that
 * with a reader of its own (the same pgft_next_into(), so the same
 * records, line numbers and errors) and hands the records over in blocks
 * of AHEAD_SLOTS; the caller's pgft_next() and pgft_next_into() take
 * them from the block, a fault's fields in one copy, and the records
 * ahead are there to be looked at (pgft_peek_addr()), as a binary
 * trace's are. A cache record's fields go in a slot as a fault's do;
 * each block holds its other records whole, their names and texts
 * copied, valid until the next pgft_next() as a reader's are. At most AHEAD_BLOCKS blocks exist, the one being read
 * among them: the memory is bounded, whatever the trace.
 *
 * The thread ends at the trace's end or its first error, which the
 * caller meets after the records before it, in order; pgft_close() stops
 * it at its next record and waits for it. It reads only regular files
 * (the caller says so): a read of a pipe may wait for ever, and nothing
 * can stop it there.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "ahead.h"
#include "pgfbin.h"
#include "pgftrace.h"

#define AHEAD_SLOTS	8192
#define AHEAD_BLOCKS	4

/* A record that is not a fault, its name and text at offsets in strs */
struct ahead_rec {
	struct pgft_rec r;
	size_t name, text;
};

struct ahead_block {
	struct pgft_ahead_slot slot[AHEAD_SLOTS];
	size_t n;
	struct ahead_rec *recs;
	size_t nrecs, cap_recs;
	char *strs;
	size_t nstrs, cap_strs;
	/* the last block: what the thread's pgft_next_into() returned */
	bool end;
	int ret;
};

struct pgft_ahead {
	struct pgft_reader rd;		/* the thread's */
	struct pgft_rec r;		/* the thread's record */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t filled, emptied;
	struct ahead_block *block[AHEAD_BLOCKS];
	/* full blocks from block[head] on; the caller's is block[head] */
	unsigned int head, full;
	bool holding;			/* the caller reads block[head] */
	bool stop;			/* pgft_close(): end now */
	bool done;			/* the caller met the end: ret */
	int ret;
};

/* @s's copy in @b's strings: its offset, or (size_t)-1 out of memory */
static size_t keep_str(struct ahead_block *b, const char *s)
{
	size_t len = strlen(s) + 1, at = b->nstrs;

	if (len > b->cap_strs - b->nstrs) {
		size_t cap = b->cap_strs ? 2 * b->cap_strs : 4096;
		char *p;

		while (cap - b->nstrs < len)
			cap *= 2;
		p = realloc(b->strs, cap);
		if (!p)
			return (size_t)-1;
		b->strs = p;
		b->cap_strs = cap;
	}
	memcpy(b->strs + at, s, len);
	b->nstrs += len;
	return at;
}

/* @r, not a fault, whole in @b: 0, or -1 out of memory */
static int keep_rec(struct ahead_block *b, const struct pgft_rec *r)
{
	struct ahead_rec *k;

	if (b->nrecs == b->cap_recs) {
		size_t cap = b->cap_recs ? 2 * b->cap_recs : 64;

		k = realloc(b->recs, cap * sizeof(*k));
		if (!k)
			return -1;
		b->recs = k;
		b->cap_recs = cap;
	}
	k = &b->recs[b->nrecs];
	k->r = *r;
	k->name = keep_str(b, r->name);
	k->text = keep_str(b, r->text);
	if (k->name == (size_t)-1 || k->text == (size_t)-1)
		return -1;
	b->nrecs++;
	return 0;
}

/* The thread: the next records into @b, up to its size or the end. */
static void fill(struct pgft_ahead *a, struct ahead_block *b)
{
	struct pgft_rec *r = &a->r;

	b->n = b->nrecs = b->nstrs = 0;
	while (b->n < AHEAD_SLOTS) {
		struct pgft_ahead_slot *s;
		int ret;

		if (__atomic_load_n(&a->stop, __ATOMIC_RELAXED)) {
			b->end = true;
			b->ret = 0;
			return;
		}
		ret = pgft_next_into(&a->rd, r);
		if (ret <= 0) {
			b->end = true;
			b->ret = ret;
			return;
		}
		s = &b->slot[b->n];
		s->line = a->rd.line;
		s->type = r->type;
		s->pid = r->pid;
		if (r->type == PGFT_CACHE) {
			/* as a fault, in the fields it has (pgft_ahead_next()) */
			s->time = r->time;
			s->tid = r->tid;
			s->addr = r->id;
			s->ip = r->start;
			s->pfn = r->n[0];
			s->access = r->access;
			s->result = r->cache;
		} else if (r->type != PGFT_FAULT) {
			s->rec = b->nrecs;
			if (keep_rec(b, r)) {
				snprintf(a->rd.error, sizeof(a->rd.error), "out of memory");
				a->rd.sys_errno = ENOMEM;
				b->end = true;
				b->ret = -1;
				return;
			}
		} else {
			s->time = r->time;
			s->tid = r->tid;
			s->addr = r->addr;
			s->ip = r->ip;
			s->access = r->access;
			s->kernel = r->kernel;
			s->result = r->result;
			s->has_frame = r->has_frame;
			s->pfn = r->pfn;
			s->node = r->node;
			s->order = r->order;
			s->level = r->level;
		}
		b->n++;
	}
}

static void *produce(void *arg)
{
	struct pgft_ahead *a = arg;
	struct ahead_block *b;

	for (;;) {
		pthread_mutex_lock(&a->lock);
		while (a->full == AHEAD_BLOCKS &&
		       !__atomic_load_n(&a->stop, __ATOMIC_RELAXED))
			pthread_cond_wait(&a->emptied, &a->lock);
		if (__atomic_load_n(&a->stop, __ATOMIC_RELAXED)) {
			pthread_mutex_unlock(&a->lock);
			return NULL;
		}
		b = a->block[(a->head + a->full) % AHEAD_BLOCKS];
		pthread_mutex_unlock(&a->lock);
		fill(a, b);
		pthread_mutex_lock(&a->lock);
		a->full++;
		pthread_cond_signal(&a->filled);
		pthread_mutex_unlock(&a->lock);
		if (b->end)
			return NULL;
	}
}

static void ahead_free(struct pgft_ahead *a)
{
	for (int i = 0; i < AHEAD_BLOCKS; i++) {
		if (!a->block[i])
			continue;
		free(a->block[i]->recs);
		free(a->block[i]->strs);
		free(a->block[i]);
	}
	free(a);
}

/* Which of the reader's fields move to the thread, and back at the end */
static void move_reader(struct pgft_reader *to, struct pgft_reader *from)
{
	to->line = from->line;
	to->cur = from->cur;
	to->pids = from->pids;
	to->npids = from->npids;
	to->cap_pids = from->cap_pids;
	to->pid_slots = from->pid_slots;
	to->pid_nslots = from->pid_nslots;
	to->buf = from->buf;
	to->cap = from->cap;
	to->bbuf = from->bbuf;
	to->bpos = from->bpos;
	to->blen = from->blen;
	to->bcap = from->bcap;
	to->beof = from->beof;
	to->text_errno = from->text_errno;
	from->pids = NULL;
	from->pid_slots = NULL;
	from->buf = NULL;
	from->bbuf = NULL;
	from->npids = from->cap_pids = from->pid_nslots = 0;
	from->cap = from->bpos = from->blen = from->bcap = 0;
}

int pgft_read_ahead(struct pgft_reader *rd)
{
	struct pgft_ahead *a;
	sigset_t all, old;
	int err;

	if (rd->bin || rd->tap || rd->ahead)
		return -1;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -1;
	for (int i = 0; i < AHEAD_BLOCKS; i++) {
		a->block[i] = calloc(1, sizeof(*a->block[i]));
		if (!a->block[i]) {
			ahead_free(a);
			return -1;
		}
	}
	a->rd = *rd;
	a->rd.fault_in = a->rd.line_in = NULL;
	move_reader(&a->rd, rd);
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->filled, NULL);
	pthread_cond_init(&a->emptied, NULL);
	/* the caller's thread takes the signals */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&a->thread, NULL, produce, a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		move_reader(rd, &a->rd);
		pthread_mutex_destroy(&a->lock);
		pthread_cond_destroy(&a->filled);
		pthread_cond_destroy(&a->emptied);
		ahead_free(a);
		return -1;
	}
	rd->ahead = a;
	rd->apos = rd->aend = NULL;
	/* the buffer is the thread's: no record is read from it here */
	rd->fault_in = rd->line_in = NULL;
	return 0;
}

/*
 * The caller read the records of the block it holds: the next block, 1;
 * or the end, as the thread met it: 0, or -1 with its error.
 */
static int take(struct pgft_reader *rd)
{
	struct pgft_ahead *a = rd->ahead;
	struct ahead_block *b;

	for (;;) {
		if (a->done)
			return a->ret;
		pthread_mutex_lock(&a->lock);
		if (a->holding) {
			b = a->block[a->head];
			if (b->end) {
				pthread_mutex_unlock(&a->lock);
				/* the thread is done with its reader */
				pthread_join(a->thread, NULL);
				a->done = true;
				a->ret = b->ret;
				memcpy(rd->error, a->rd.error, sizeof(rd->error));
				rd->sys_errno = a->rd.sys_errno;
				move_reader(rd, &a->rd);
				continue;
			}
			a->holding = false;
			a->head = (a->head + 1) % AHEAD_BLOCKS;
			a->full--;
			pthread_cond_signal(&a->emptied);
		}
		while (!a->full)
			pthread_cond_wait(&a->filled, &a->lock);
		a->holding = true;
		b = a->block[a->head];
		pthread_mutex_unlock(&a->lock);
		rd->apos = b->slot;
		rd->aend = b->slot + b->n;
		if (rd->apos < rd->aend)
			return 1;
	}
}

int pgft_ahead_next(struct pgft_reader *rd, struct pgft_rec *r)
{
	const struct pgft_ahead_slot *s;
	const struct ahead_block *b;
	const struct ahead_rec *k;
	int ret;

	if (rd->apos == rd->aend) {
		ret = take(rd);
		if (ret <= 0)
			return ret;
	}
	s = rd->apos++;
	rd->line = s->line;
	if (s->type == PGFT_FAULT) {
		/* as pgft_scan_fault() leaves the fields a fault has not */
		*r = (struct pgft_rec){ .name = "", .text = "" };
		pgft_ahead_fault(s, r);
		return 1;
	}
	if (s->type == PGFT_CACHE) {
		/* as pgft_scan_cache() leaves a record */
		*r = (struct pgft_rec){ .type = PGFT_CACHE, .pid = s->pid,
					.time = s->time, .tid = s->tid,
					.id = s->addr, .start = s->ip,
					.n[0] = s->pfn, .access = s->access,
					.cache = s->result, .result = PGFT_MINOR,
					.name = "", .text = "" };
		return 1;
	}
	b = rd->ahead->block[rd->ahead->head];
	k = &b->recs[s->rec];
	*r = k->r;
	r->name = b->strs + k->name;
	r->text = b->strs + k->text;
	return 1;
}

void pgft_ahead_close(struct pgft_reader *rd)
{
	struct pgft_ahead *a = rd->ahead;

	if (!a)
		return;
	if (!a->done) {
		pthread_mutex_lock(&a->lock);
		__atomic_store_n(&a->stop, true, __ATOMIC_RELAXED);
		pthread_cond_signal(&a->emptied);
		pthread_mutex_unlock(&a->lock);
		pthread_join(a->thread, NULL);
	}
	pgft_close(&a->rd);
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->filled);
	pthread_cond_destroy(&a->emptied);
	ahead_free(a);
	rd->ahead = NULL;
	rd->apos = rd->aend = NULL;
	rd->ahead_in = NULL;
}
