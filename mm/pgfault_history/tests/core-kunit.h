/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the pgfault_history trace buffer: order, wrap-around,
 * the fault path's writer, growth, loss accounting and the LOST record,
 * the control reserve, EOF, region records all or nothing and the layout
 * a loss calls for, records a closing reader gives back, a trace freed an
 * RCU grace period after its last reference.
 * Included at the end of mm/pgfault_history/core.c, so they reach its statics.
 */

#ifdef CONFIG_PGFAULT_HISTORY_KUNIT_TEST

#ifndef _PGFAULT_HISTORY_KUNIT_H
#define _PGFAULT_HISTORY_KUNIT_H

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>

/* A fault record whose address is @n, to check order and content. */
static void pgf_test_fault(struct pgf_trace *t, struct pgf_rec *rec, u64 n)
{
	pgf_rec_init(t, rec, PGF_REC_FAULT, sizeof(*rec));
	rec->a = n;
	rec->b = ~n;
}

/* An active trace whose rings start at one page and may grow to @limit. */
static struct pgf_trace *pgf_test_trace(struct kunit *test, size_t limit)
{
	struct pgf_trace *t = pgf_trace_alloc(task_active_pid_ns(current),
					      PAGE_SIZE, limit, NULL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	WRITE_ONCE(t->active, true);
	return t;
}

/* The tests' faults all go to one CPU's ring, the first's. */
static struct pgf_cpu *pgf_test_cpu(struct pgf_trace *t)
{
	return per_cpu_ptr(t->cpu, cpumask_first(cpu_possible_mask));
}

static struct pgf_ring *pgf_test_ring(struct pgf_trace *t)
{
	return &pgf_test_cpu(t)->ring;
}

static bool pgf_test_emit_fault(struct pgf_trace *t, struct pgf_rec *rec,
				enum pgf_kind kind)
{
	return pgf_emit_fault_to(t, pgf_test_cpu(t), rec, kind);
}

/* Pop everything; check fault records come as 0, 1, 2, ...; count them. */
static u64 pgf_test_drain(struct kunit *test, struct pgf_trace *t,
			  u64 *next, u64 *lost)
{
	size_t size = 2 * PGF_REC_MAX, n, off;
	void *buf = kunit_kmalloc(test, size, GFP_KERNEL);
	u64 faults = 0;
	bool eof;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	while ((n = pgf_pop(t, buf, size, &eof))) {
		for (off = 0; off < n; off += ((struct pgf_rec *)(buf + off))->len) {
			struct pgf_rec *r = buf + off;

			KUNIT_ASSERT_NE(test, r->type, PGF_REC_PAD);
			if (r->type == PGF_REC_LOST) {
				*next += r->a;	/* the lost ones are skipped */
				*lost += r->a;
				continue;
			}
			if (r->type != PGF_REC_FAULT)
				continue;
			KUNIT_EXPECT_EQ(test, r->a, *next);
			KUNIT_EXPECT_EQ(test, r->b, ~*next);
			(*next)++;
			faults++;
		}
	}
	return faults;
}

static void pgf_test_order_and_wrap(struct kunit *test)
{
	struct pgf_trace *t = pgf_test_trace(test, PAGE_SIZE);
	u64 written = 0, next = 0, lost = 0, got = 0;
	struct pgf_ring *r = pgf_test_ring(t);
	struct pgf_rec rec;
	int round;

	/*
	 * Write 40 and read them back, many times: head and tail go round the
	 * ring, and records that do not fit at the end wrap behind a PAD.
	 */
	for (round = 0; round < 50; round++) {
		for (int i = 0; i < 40; i++) {
			pgf_test_fault(t, &rec, written++);
			spin_lock(r->lock);
			KUNIT_ASSERT_TRUE(test, __pgf_write(r, &rec, PGF_KIND_FAULT,
							    ktime_get_ns()));
			spin_unlock(r->lock);
		}
		got += pgf_test_drain(test, t, &next, &lost);
	}
	KUNIT_EXPECT_EQ(test, got, written);
	KUNIT_EXPECT_EQ(test, lost, 0);
	KUNIT_EXPECT_EQ(test, r->nr_faults, written);
	pgf_trace_put(t);
}

static void pgf_test_full_counts_every_loss(struct kunit *test)
{
	struct pgf_trace *t = pgf_test_trace(test, PAGE_SIZE);
	u64 n, next = 0, lost = 0, got;
	struct pgf_rec rec;

	/* Four times what fits: the rest is lost, and counted. */
	for (n = 0; n < 4 * PAGE_SIZE / sizeof(rec); n++) {
		pgf_test_fault(t, &rec, n);
		pgf_test_emit_fault(t, &rec, PGF_KIND_FAULT);
	}
	KUNIT_EXPECT_EQ(test, pgf_test_ring(t)->alloc, PAGE_SIZE);	/* it did not grow */
	KUNIT_EXPECT_GT(test, pgf_test_ring(t)->lost_faults, 0);
	/* Read some, then one more record: LOST comes right before it. */
	got = pgf_test_drain(test, t, &next, &lost);
	KUNIT_EXPECT_EQ(test, got + lost, n);
	KUNIT_EXPECT_EQ(test, lost, pgf_test_ring(t)->total_lost_faults);
	KUNIT_EXPECT_EQ(test, pgf_test_ring(t)->lost_faults, 0);	/* reported at the end */
	pgf_test_fault(t, &rec, next);
	pgf_test_emit_fault(t, &rec, PGF_KIND_FAULT);
	KUNIT_EXPECT_EQ(test, pgf_test_drain(test, t, &next, &lost), 1);
	KUNIT_EXPECT_EQ(test, next, n + 1);
	KUNIT_EXPECT_EQ(test, pgf_test_ring(t)->nr_faults +
			pgf_test_ring(t)->total_lost_faults, n + 1);
	pgf_trace_put(t);
}

/* Emit faults 0, 1, ... until one is lost; returns how many were emitted. */
static u64 pgf_test_fill(struct pgf_trace *t)
{
	struct pgf_rec rec;
	u64 n;

	for (n = 0; !pgf_test_ring(t)->lost_faults; n++) {
		pgf_test_fault(t, &rec, n);
		pgf_test_emit_fault(t, &rec, PGF_KIND_FAULT);
	}
	return n;
}

/*
 * Fill the control ring with records 0, 1, ... until one is lost with the
 * ring at the most it may grow to (PGF_CTL_MIN whatever the limit): the
 * work item that grows it runs in between, so that it cannot grow later.
 */
static u64 pgf_test_fill_ctl(struct pgf_trace *t)
{
	struct pgf_rec rec;
	size_t before;
	u64 n = 0;

	/* A doubling per round, to PGF_CTL_MIN at most: a few rounds. */
	for (int round = 0; round < 16; round++) {
		before = READ_ONCE(t->ctl.alloc);
		do {
			pgf_test_fault(t, &rec, n++);
			pgf_emit(t, &rec, PGF_KIND_OTHER);
		} while (!t->ctl.lost_other);
		flush_work(&t->grow_work);
		/* Full, and it did not grow in this round: full for good. */
		if (READ_ONCE(t->ctl.alloc) == before)
			break;
	}
	return n;
}

static void pgf_test_lost_before_next_record(struct kunit *test)
{
	struct pgf_trace *t = pgf_test_trace(test, PAGE_SIZE);
	size_t size = 2 * PGF_REC_MAX;
	void *buf = kunit_kmalloc(test, size, GFP_KERNEL);
	struct pgf_rec rec, *r;
	u64 n, dropped;
	size_t got;
	bool eof;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	n = pgf_test_fill(t);
	pgf_test_fault(t, &rec, n++);
	pgf_test_emit_fault(t, &rec, PGF_KIND_FAULT);
	dropped = pgf_test_ring(t)->lost_faults;
	KUNIT_EXPECT_EQ(test, dropped, 2);
	/* Make room by reading four records only (LOST + record + a PAD). */
	got = pgf_pop(t, buf, 4 * sizeof(rec), &eof);
	KUNIT_ASSERT_EQ(test, got, 4 * sizeof(rec));
	pgf_test_fault(t, &rec, n);
	pgf_test_emit_fault(t, &rec, PGF_KIND_FAULT);
	/* Now the ring ends with LOST(2) and then record n. */
	got = pgf_pop(t, buf, size, &eof);
	KUNIT_ASSERT_GE(test, got, 2 * sizeof(rec));
	r = buf + got - 2 * sizeof(rec);
	KUNIT_EXPECT_EQ(test, r->type, PGF_REC_LOST);
	KUNIT_EXPECT_EQ(test, r->a, dropped);
	KUNIT_EXPECT_EQ(test, r->b, 0);
	r++;
	KUNIT_EXPECT_EQ(test, r->type, PGF_REC_FAULT);
	KUNIT_EXPECT_EQ(test, r->a, n);
	pgf_trace_put(t);
}

static void pgf_test_reserve_for_control(struct kunit *test)
{
	struct pgf_trace *t = pgf_test_trace(test, PAGE_SIZE);
	struct pgf_rec rec;
	bool kept;
	u64 n;

	n = pgf_test_fill_ctl(t);
	/*
	 * Full for region records; a stop record and its LOST still fit,
	 * whatever PAD the wrap needs.
	 */
	spin_lock(&t->lock);
	__pgf_control(t, PGF_REC_STOP, PGF_STOP_USER, 0, 0);
	kept = !t->ctl.lost_faults && !t->ctl.lost_other;
	spin_unlock(&t->lock);
	KUNIT_EXPECT_TRUE(test, kept);
	/* Many more lost: they never eat the reserve. */
	for (int i = 0; i < 100; i++) {
		pgf_test_fault(t, &rec, n++);
		pgf_emit(t, &rec, PGF_KIND_OTHER);
	}
	KUNIT_EXPECT_EQ(test, t->ctl.lost_other, 100);
	pgf_trace_put(t);
}

static void pgf_test_grows_in_order(struct kunit *test)
{
	struct pgf_trace *t = pgf_test_trace(test, 8 * PAGE_SIZE);
	u64 n, next = 0, lost = 0;
	struct pgf_rec rec;

	/* Read a little first, so the ring has wrapped when it grows. */
	for (n = 0; n < 100; n++) {
		pgf_test_fault(t, &rec, n);
		pgf_test_emit_fault(t, &rec, PGF_KIND_FAULT);
		flush_work(&t->grow_work);	/* the worker keeps up */
	}
	pgf_test_drain(test, t, &next, &lost);
	for (; n < 7 * PAGE_SIZE / sizeof(rec); n++) {
		pgf_test_fault(t, &rec, n);
		pgf_test_emit_fault(t, &rec, PGF_KIND_FAULT);
		flush_work(&t->grow_work);
	}
	KUNIT_EXPECT_EQ(test, pgf_test_ring(t)->alloc, 8 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, pgf_test_ring(t)->lost_faults, 0);
	pgf_test_drain(test, t, &next, &lost);
	KUNIT_EXPECT_EQ(test, next, n);
	KUNIT_EXPECT_EQ(test, lost, 0);
	pgf_trace_put(t);
}

/* Write fault record @n, @len bytes long, straight into @r. */
static bool pgf_test_write_len(struct pgf_trace *t, struct pgf_ring *r,
			       u64 n, u32 len)
{
	u64 buf[16] = { 0 };
	struct pgf_rec *rec = (struct pgf_rec *)buf;
	bool ok;

	pgf_test_fault(t, rec, n);
	rec->len = len;
	spin_lock(r->lock);
	ok = __pgf_write(r, rec, PGF_KIND_FAULT, ktime_get_ns());
	spin_unlock(r->lock);
	return ok;
}

/*
 * A ring that grows while its records wrap behind a PAD: the bigger ring
 * holds them in order, once each, and no PAD (a PAD copied into the
 * middle sent the reader back to the start: the records from the tail
 * to the PAD came twice).
 */
static void pgf_test_grows_when_wrapped_behind_a_pad(struct kunit *test)
{
	struct pgf_trace *t = pgf_test_trace(test, 8 * PAGE_SIZE);
	struct pgf_ring *r = pgf_test_ring(t);
	u32 len = sizeof(struct pgf_rec) + PGF_REC_ALIGN;
	u64 n = 0, next = 0, lost = 0;
	size_t part, got, off;
	struct pgf_rec *rec;
	void *buf;
	bool eof;

	/* A size the records do not divide: the last one wraps. */
	while (!(r->buf->size % len))
		len += PGF_REC_ALIGN;
	part = 32 * len;
	buf = kunit_kmalloc(test, part, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	while (pgf_test_write_len(t, r, n, len))
		n++;
	/* Read the first 32, then fill again: it wraps behind a PAD. */
	got = pgf_pop(t, buf, part, &eof);
	KUNIT_ASSERT_EQ(test, got, part);
	for (off = 0; off < got; off += rec->len) {
		rec = buf + off;
		KUNIT_EXPECT_EQ(test, rec->a, next);
		next++;
	}
	while (pgf_test_write_len(t, r, n, len))
		n++;
	KUNIT_ASSERT_LT(test, r->buf->head, r->buf->tail);
	/* The next record asks the worker, which grows the ring now. */
	pgf_test_fault(t, (struct pgf_rec *)buf, n++);
	pgf_test_emit_fault(t, buf, PGF_KIND_FAULT);
	flush_work(&t->grow_work);
	KUNIT_EXPECT_EQ(test, r->alloc, 2 * PAGE_SIZE);
	pgf_test_drain(test, t, &next, &lost);
	KUNIT_EXPECT_EQ(test, next, n);
	KUNIT_EXPECT_EQ(test, r->buf->used, 0);
	pgf_trace_put(t);
}

/*
 * The producer never allocates: with the worker held off, a ring that
 * fills drops and counts records; the worker then grows it, in order.
 */
static void pgf_test_producer_never_grows(struct kunit *test)
{
	struct pgf_trace *t = pgf_test_trace(test, 8 * PAGE_SIZE);
	u64 n, kept = 0, next = 0, lost = 0;
	struct pgf_ring *r = pgf_test_ring(t);
	struct pgf_rec rec;

	spin_lock(r->lock);
	r->growing = true;	/* as if a growth were under way */
	spin_unlock(r->lock);
	for (n = 0; n < 2 * PAGE_SIZE / sizeof(rec); n++) {
		pgf_test_fault(t, &rec, n);
		kept += pgf_test_emit_fault(t, &rec, PGF_KIND_FAULT);
	}
	KUNIT_EXPECT_EQ(test, pgf_test_ring(t)->alloc, PAGE_SIZE);
	KUNIT_EXPECT_FALSE(test, test_bit(PGF_GROW_QUEUED, &t->bits));
	KUNIT_EXPECT_EQ(test, kept + r->lost_faults, n);
	KUNIT_EXPECT_GT(test, r->lost_faults, 0);
	spin_lock(r->lock);
	r->growing = false;
	spin_unlock(r->lock);
	/* The next record asks the worker, which grows the ring. */
	pgf_test_fault(t, &rec, n);
	pgf_test_emit_fault(t, &rec, PGF_KIND_FAULT);
	KUNIT_EXPECT_TRUE(test, r->want_grow ||
			  test_bit(PGF_GROW_QUEUED, &t->bits) ||
			  pgf_test_ring(t)->alloc > PAGE_SIZE);
	flush_work(&t->grow_work);
	KUNIT_EXPECT_EQ(test, pgf_test_ring(t)->alloc, 2 * PAGE_SIZE);
	KUNIT_EXPECT_FALSE(test, test_bit(PGF_GROW_QUEUED, &t->bits));
	/* Every fault is there, kept or counted; the last one was lost. */
	pgf_test_drain(test, t, &next, &lost);
	KUNIT_EXPECT_EQ(test, next, n + 1);
	KUNIT_EXPECT_EQ(test, lost, n + 1 - kept);
	pgf_trace_put(t);
}

static void pgf_test_eof_when_dead_and_drained(struct kunit *test)
{
	struct pgf_trace *t = pgf_test_trace(test, PAGE_SIZE);
	u8 buf[2 * sizeof(struct pgf_exit_rec)];
	struct pgf_rec rec;
	bool eof;

	pgf_test_fault(t, &rec, 0);
	pgf_test_emit_fault(t, &rec, PGF_KIND_FAULT);
	KUNIT_EXPECT_EQ(test, pgf_pop(t, buf, sizeof(buf), &eof), sizeof(rec));
	KUNIT_EXPECT_FALSE(test, eof);			/* alive: not the end */
	KUNIT_EXPECT_FALSE(test, pgf_readable(t));
	spin_lock(&t->lock);
	t->dead = true;
	spin_unlock(&t->lock);
	KUNIT_EXPECT_TRUE(test, pgf_readable(t));	/* EOF is news */
	KUNIT_EXPECT_EQ(test, pgf_pop(t, buf, sizeof(buf), &eof), 0);
	KUNIT_EXPECT_TRUE(test, eof);
	pgf_trace_put(t);
}

#ifdef PGF_STAGE_REGIONS
/* A batch of @nr small region records (UNMAP), or a LAYOUT of @nr - 1. */
static size_t pgf_test_batch(struct kunit *test, struct pgf_trace *t,
			     struct pgf_rec *recs, unsigned int nr, bool layout)
{
	for (unsigned int i = 0; i < nr; i++) {
		pgf_rec_init(t, &recs[i], layout && !i ? PGF_REC_LAYOUT :
			     layout ? PGF_REC_MAP : PGF_REC_UNMAP, sizeof(recs[i]));
		recs[i].a = layout && !i ? nr - 1 : 1000 + i;
	}
	return nr * sizeof(*recs);
}

static void pgf_test_regions_all_or_nothing(struct kunit *test)
{
	struct pgf_trace *t = pgf_test_trace(test, PAGE_SIZE);
	/* Past what the control ring may grow to, whatever the limit. */
	unsigned int big = 2 * PGF_CTL_MIN / sizeof(struct pgf_rec);
	struct pgf_rec *recs = kunit_kcalloc(test, big, sizeof(*recs), GFP_KERNEL);
	u64 next = 0, lost = 0;
	struct pgf_rec rec;
	size_t len;
	bool kept;

	KUNIT_ASSERT_NOT_NULL(test, recs);
	/* Three faults, then a change too big for the ring: nothing of it. */
	for (int i = 0; i < 3; i++) {
		pgf_test_fault(t, &rec, next++);
		pgf_test_emit_fault(t, &rec, PGF_KIND_FAULT);
	}
	len = pgf_test_batch(test, t, recs, big, false);
	t->active = true;	/* a change is recorded while tracing only */
	kept = pgf_emit_regions(t, recs, len, big, PGF_REGIONS_CHANGE,
				GFP_KERNEL);
	KUNIT_EXPECT_FALSE(test, kept);
	KUNIT_EXPECT_EQ(test, t->ctl.lost_other, big);	/* every one counted */
	KUNIT_EXPECT_TRUE(test, t->need_layout);
	KUNIT_EXPECT_EQ(test, t->ctl.buf->used, 0);	/* undone */

	/* Owed a layout: faults cannot be placed, so they are dropped. */
	pgf_test_fault(t, &rec, next++);
	KUNIT_EXPECT_FALSE(test, pgf_test_emit_fault(t, &rec, PGF_KIND_FAULT));
	KUNIT_EXPECT_EQ(test, pgf_test_ring(t)->lost_faults, 1);

	/* A layout's part too big for the ring waits: it is not lost. */
	len = pgf_test_batch(test, t, recs, big, true);
	kept = pgf_emit_regions(t, recs, len, big, PGF_REGIONS_PART,
				GFP_KERNEL);
	KUNIT_EXPECT_FALSE(test, kept);
	KUNIT_EXPECT_EQ(test, t->ctl.lost_other, big);
	KUNIT_EXPECT_TRUE(test, t->need_layout);

	/* A part that fits leaves the debt; the last part settles it. */
	len = pgf_test_batch(test, t, recs, 2, true);
	kept = pgf_emit_regions(t, recs, len, 2, PGF_REGIONS_PART, GFP_KERNEL);
	KUNIT_EXPECT_TRUE(test, kept);
	KUNIT_EXPECT_TRUE(test, t->need_layout);
	pgf_test_fault(t, &rec, next++);
	KUNIT_EXPECT_FALSE(test, pgf_test_emit_fault(t, &rec, PGF_KIND_FAULT));
	len = pgf_test_batch(test, t, recs, 2, false);
	kept = pgf_emit_regions(t, recs, len, 2, PGF_REGIONS_LAST, GFP_KERNEL);
	KUNIT_EXPECT_TRUE(test, kept);
	KUNIT_EXPECT_FALSE(test, t->need_layout);
	pgf_test_fault(t, &rec, next++);
	KUNIT_EXPECT_TRUE(test, pgf_test_emit_fault(t, &rec, PGF_KIND_FAULT));
	next = 0;
	KUNIT_EXPECT_EQ(test, pgf_test_drain(test, t, &next, &lost), 4);
	KUNIT_EXPECT_EQ(test, lost, 2);
	KUNIT_EXPECT_EQ(test, pgf_test_ring(t)->nr_faults + pgf_test_ring(t)->total_lost_faults, 6);
	pgf_trace_put(t);
}
#endif

#ifdef PGF_STAGE_INHERIT
/*
 * The budget: a spent one refuses growth and a child's trace, forced
 * charges (a reader's buffers) still count; a claimed child moves what it
 * holds onto a budget of its own.
 */
static void pgf_test_budget_covers_children(struct kunit *test)
{
	struct pgf_trace *t = pgf_test_trace(test, 4 * PAGE_SIZE), *c;
	struct pgf_budget *b = t->budget;

	KUNIT_EXPECT_EQ(test, atomic_long_read(&b->bytes), t->charged);
	b->limit = atomic_long_read(&b->bytes);		/* spent */
	KUNIT_EXPECT_FALSE(test, pgf_charge(t, 1, false));
	KUNIT_EXPECT_TRUE(test, pgf_charge(t, 1, true));
	pgf_uncharge(t, 1);
	c = pgf_trace_alloc(task_active_pid_ns(current), PAGE_SIZE,
			    4 * PAGE_SIZE, b);
	KUNIT_EXPECT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&b->bytes), t->charged);
	/* A child may take three quarters of it, not more. */
	b->limit = (atomic_long_read(&b->bytes) + SZ_1M) / 3 * 4;
	c = pgf_trace_alloc(task_active_pid_ns(current), PAGE_SIZE,
			    4 * PAGE_SIZE, b);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&b->bytes),
			t->charged + c->charged);
	KUNIT_EXPECT_TRUE(test, c->guest);
	KUNIT_EXPECT_FALSE(test, pgf_charge(c, SZ_1M, false));
	KUNIT_EXPECT_TRUE(test, pgf_charge(t, SZ_1M, false));
	pgf_uncharge(t, SZ_1M);
	pgf_budget_own(c);
	KUNIT_EXPECT_FALSE(test, c->guest);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&b->bytes), t->charged);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&c->budget->bytes), c->charged);
	pgf_trace_put(c);
	pgf_trace_put(t);
}
#endif

static void pgf_test_failed_fault_counts_as_other(struct kunit *test)
{
	struct pgf_trace *t = pgf_test_trace(test, PAGE_SIZE);
	struct pgf_rec rec;
	u64 n;

	n = pgf_test_fill(t);
	/* /proc/<pid>/stat does not count a failed fault: nor does LOST. */
	pgf_test_fault(t, &rec, n);
	pgf_test_emit_fault(t, &rec, PGF_KIND_OTHER);
	KUNIT_EXPECT_EQ(test, pgf_test_ring(t)->lost_faults, 1);
	KUNIT_EXPECT_EQ(test, pgf_test_ring(t)->lost_other, 1);
	KUNIT_EXPECT_EQ(test, pgf_test_ring(t)->total_lost_faults, 1);
	pgf_trace_put(t);
}

static void pgf_test_end_always_fits(struct kunit *test)
{
	struct pgf_trace *t = pgf_test_trace(test, PAGE_SIZE);
	struct pgf_exit_rec ex;
	bool kept;

	pgf_test_fill_ctl(t);
	/* Started and stopped over and over on a full ring... */
	spin_lock(&t->lock);
	for (int i = 0; i < 100; i++)
		__pgf_control(t, i & 1 ? PGF_REC_STOP : PGF_REC_START, 0, 0, 0);
	KUNIT_EXPECT_GT(test, t->ctl.lost_other, 0);
	/* ...the last record still fits, with the LOST before it. */
	pgf_rec_init(t, &ex.rec, PGF_REC_EXIT, sizeof(ex));
	kept = __pgf_write(&t->ctl, &ex.rec, PGF_KIND_FINAL, ktime_get_ns());
	spin_unlock(&t->lock);
	KUNIT_EXPECT_TRUE(test, kept);
	KUNIT_EXPECT_EQ(test, t->ctl.lost_faults + t->ctl.lost_other, 0);
	pgf_trace_put(t);
}

/* Emit faults @from to @to - 1. */
static void pgf_test_emit(struct pgf_trace *t, u64 from, u64 to)
{
	struct pgf_rec rec;

	for (; from < to; from++) {
		pgf_test_fault(t, &rec, from);
		pgf_test_emit_fault(t, &rec, PGF_KIND_FAULT);
	}
}

static void pgf_test_unread_comes_first(struct kunit *test)
{
	struct pgf_trace *t = pgf_test_trace(test, PAGE_SIZE);
	size_t size = 2 * PGF_REC_MAX, rec = sizeof(struct pgf_rec);
	void *mine = kunit_kmalloc(test, size, GFP_KERNEL);
	void *given = kmalloc(size, GFP_KERNEL);
	u64 next, lost = 0;
	bool eof;

	KUNIT_ASSERT_NOT_NULL(test, mine);
	KUNIT_ASSERT_NOT_NULL(test, given);
	pgf_test_emit(t, 0, 10);
	KUNIT_ASSERT_EQ(test, pgf_pop(t, given, size, &eof), 10 * rec);
	/* A reader read 0..2 and closed: 3..9 come before 10..14. */
	KUNIT_ASSERT_TRUE(test, pgf_unread(t, given, size, 3 * rec, 7 * rec));
	pgf_test_emit(t, 10, 15);
	next = 3;
	KUNIT_EXPECT_EQ(test, pgf_test_drain(test, t, &next, &lost), 12);
	KUNIT_EXPECT_EQ(test, next, 15);
	KUNIT_EXPECT_NULL(test, t->unread);

	/* Given back again; the next reader takes a part and gives back some. */
	given = kmalloc(size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, given);
	KUNIT_ASSERT_EQ(test, pgf_pop(t, given, size, &eof), 0);
	pgf_test_emit(t, 15, 25);
	KUNIT_ASSERT_EQ(test, pgf_pop(t, given, size, &eof), 10 * rec);
	KUNIT_ASSERT_TRUE(test, pgf_unread(t, given, size, 0, 10 * rec));
	pgf_test_emit(t, 25, 26);
	KUNIT_ASSERT_EQ(test, pgf_pop(t, mine, 4 * rec, &eof), 4 * rec);
	KUNIT_EXPECT_EQ(test, ((struct pgf_rec *)mine)->a, 15);
	/* ...it read 15 and 16 of them: 17..24 are still first, then 25. */
	KUNIT_EXPECT_FALSE(test, pgf_unread(t, mine, size, 2 * rec, 2 * rec));
	next = 17;
	KUNIT_EXPECT_EQ(test, pgf_test_drain(test, t, &next, &lost), 9);
	KUNIT_EXPECT_EQ(test, next, 26);
	KUNIT_EXPECT_EQ(test, lost, 0);
	pgf_trace_put(t);
}

/*
 * Records written to the control ring and to two CPU rings (one on a
 * uniprocessor), interleaved: read back as one stream in time order.
 */
static void pgf_test_merge_in_time_order(struct kunit *test)
{
	struct pgf_trace *t = pgf_test_trace(test, PAGE_SIZE);
	unsigned int second = cpumask_next(cpumask_first(cpu_possible_mask),
					   cpu_possible_mask);
	struct pgf_cpu *c[2] = { pgf_test_cpu(t), pgf_test_cpu(t) };
	u64 n, next = 0, lost = 0;
	struct pgf_rec rec;

	if (second < nr_cpu_ids)
		c[1] = per_cpu_ptr(t->cpu, second);
	for (n = 0; n < 60; n++) {
		pgf_test_fault(t, &rec, n);
		if (n % 3 == 0)
			KUNIT_ASSERT_TRUE(test, pgf_emit(t, &rec, PGF_KIND_OTHER));
		else
			KUNIT_ASSERT_TRUE(test,
					  pgf_emit_fault_to(t, c[n % 3 - 1],
							    &rec,
							    PGF_KIND_FAULT));
	}
	KUNIT_EXPECT_EQ(test, pgf_test_drain(test, t, &next, &lost), 60);
	KUNIT_EXPECT_EQ(test, next, 60);
	KUNIT_EXPECT_EQ(test, lost, 0);
	pgf_trace_put(t);
}

/* A look at a trace under rcu_read_lock(), as pgf_trace_of_owner() takes. */
struct pgf_test_look {
	struct pgf_trace *t;
	long traces;			/* pgf_nr_traces before the last put */
	struct completion in, out;
	bool freeing;			/* the free work started in time */
	bool took;			/* refcount_inc_not_zero() succeeded */
};

static int pgf_test_look_fn(void *arg)
{
	struct pgf_test_look *x = arg;
	int i;

	rcu_read_lock();
	complete(&x->in);
	/* The last put comes now; its free work runs on the other CPU. */
	for (i = 0; i < 1000; i++) {
		if (atomic_long_read(&pgf_nr_traces) < x->traces)
			break;
		mdelay(1);
	}
	x->freeing = i < 1000;
	mdelay(50);			/* pgf_trace_free() runs to its end */
	x->took = refcount_inc_not_zero(&x->t->ref);
	rcu_read_unlock();
	complete(&x->out);
	return 0;
}

/*
 * A trace found under rcu_read_lock() (another process of the mm finds
 * it through the mm's owner, whose exec may end it meanwhile) stays until
 * the reader is done: its last put and its free work may run, and the
 * look only fails to take a reference. Where it was freed at once, KASAN
 * reports the look as a use after free. Needs a second CPU, where the
 * free work runs while the look holds its read section.
 */
static void pgf_test_freed_after_a_grace_period(struct kunit *test)
{
	struct pgf_trace *t;
	struct pgf_test_look *x;
	struct task_struct *k;
	unsigned int cpu;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, x);
	t = pgf_test_trace(test, PAGE_SIZE);
	x->t = t;
	init_completion(&x->in);
	init_completion(&x->out);
	/* The free work is queued on this CPU; the look runs on another. */
	migrate_disable();
	cpu = cpumask_any_but(cpu_online_mask, smp_processor_id());
	k = kthread_create(pgf_test_look_fn, x, "pgf-test-look");
	if (IS_ERR(k)) {
		migrate_enable();
		pgf_trace_put(t);
		KUNIT_FAIL(test, "no kthread: %ld", PTR_ERR(k));
		return;
	}
	kthread_bind(k, cpu);
	x->traces = atomic_long_read(&pgf_nr_traces);
	wake_up_process(k);
	wait_for_completion(&x->in);
	pgf_trace_put(t);		/* the last reference */
	migrate_enable();
	wait_for_completion(&x->out);
	KUNIT_EXPECT_TRUE(test, x->freeing);
	KUNIT_EXPECT_FALSE(test, x->took);
	rcu_barrier();			/* the structure is freed before the next test */
}

/*
 * pgf_write_fault(), the fault path's writer, keeps the rules that
 * pgf_emit_fault() keeps: records in order, a full ring's losses counted
 * and reported before the next record kept, the reserve left free; and
 * its limits follow the ring's state (__pgf_set_fast()).
 */
static void pgf_test_fast_writer(struct kunit *test)
{
	struct pgf_trace *t = pgf_test_trace(test, PAGE_SIZE);
	u64 n = 0, next = 0, lost = 0, got = 0;
	struct pgf_ring *r;
	u32 i, nr, full;
	int round;

	migrate_disable();	/* pgf_write_fault() writes this CPU's ring */
	r = &raw_cpu_ptr(t->cpu)->ring;
	full = r->buf->size / sizeof(struct pgf_rec);
	KUNIT_EXPECT_EQ(test, r->fast_room, r->buf->size - PGF_RESERVE);
	KUNIT_EXPECT_EQ(test, r->fast_wake, r->buf->size / 2);
	for (round = 0; round < 20; round++) {
		/* Every other round fills the ring past full. */
		nr = round % 2 ? full + 3 : 7 + round;
		for (i = 0; i < nr; i++, n++)
			pgf_write_fault(t, 0, n, ~n);
		KUNIT_EXPECT_LE(test, r->buf->used,
				r->buf->size - PGF_RESERVE);
		if (round % 2) {
			KUNIT_EXPECT_GT(test, r->lost_faults, 0);
			KUNIT_EXPECT_EQ(test, r->fast_room, 0);
		}
		got += pgf_test_drain(test, t, &next, &lost);
		KUNIT_EXPECT_EQ(test, r->lost_faults, 0);
		KUNIT_EXPECT_EQ(test, r->fast_room,
				r->buf->size - PGF_RESERVE);
	}
	/* A waiting reader: records end the long way, which wakes it. */
	KUNIT_EXPECT_FALSE(test, pgf_readable(t));
	KUNIT_EXPECT_EQ(test, r->fast_wake, 0);
	pgf_write_fault(t, 0, n, ~n);
	n++;
	got += pgf_test_drain(test, t, &next, &lost);
	KUNIT_EXPECT_EQ(test, r->fast_wake, r->buf->size / 2);
	/* A stopped trace's fault is not written. */
	WRITE_ONCE(t->active, false);
	pgf_write_fault(t, 0, n, ~n);
	KUNIT_EXPECT_EQ(test, r->buf->used, 0);
	migrate_enable();
	KUNIT_EXPECT_GT(test, lost, 0);
	KUNIT_EXPECT_EQ(test, got + lost, n);
	KUNIT_EXPECT_EQ(test, next, n);
	KUNIT_EXPECT_EQ(test, r->nr_faults + r->total_lost_faults, n);
	pgf_trace_put(t);
}

static struct kunit_case pgf_test_cases[] = {
	KUNIT_CASE(pgf_test_order_and_wrap),
	KUNIT_CASE(pgf_test_fast_writer),
	KUNIT_CASE(pgf_test_full_counts_every_loss),
	KUNIT_CASE(pgf_test_lost_before_next_record),
	KUNIT_CASE(pgf_test_reserve_for_control),
	KUNIT_CASE(pgf_test_grows_in_order),
	KUNIT_CASE(pgf_test_grows_when_wrapped_behind_a_pad),
	KUNIT_CASE(pgf_test_producer_never_grows),
	KUNIT_CASE(pgf_test_eof_when_dead_and_drained),
#ifdef PGF_STAGE_REGIONS
	KUNIT_CASE(pgf_test_regions_all_or_nothing),
#endif
	KUNIT_CASE(pgf_test_failed_fault_counts_as_other),
	KUNIT_CASE(pgf_test_end_always_fits),
	KUNIT_CASE(pgf_test_unread_comes_first),
	KUNIT_CASE(pgf_test_merge_in_time_order),
	KUNIT_CASE(pgf_test_freed_after_a_grace_period),
#ifdef PGF_STAGE_INHERIT
	KUNIT_CASE(pgf_test_budget_covers_children),
#endif
	{},
};

static struct kunit_suite pgf_test_suite = {
	.name = "pgfault_history",
	.test_cases = pgf_test_cases,
};

kunit_test_suite(pgf_test_suite);

#endif /* _PGFAULT_HISTORY_KUNIT_H */
#endif /* CONFIG_PGFAULT_HISTORY_KUNIT_TEST */
