// SPDX-License-Identifier: GPL-2.0
/*
 * pgfault_history: the trace's rings of records, a ring of fault records
 * per CPU and one of control and region records, written by the traced
 * process and merged in time order by the reader of the proc file.
 *
 * DOC: pgfault_history trace buffer
 *
 * A trace has a ring per CPU (&struct pgf_cpu) for the fault records of
 * the threads running there, made for the CPUs online when the trace is
 * made and, for a CPU that comes online later, by a work item once a
 * thread of the process faults there (its records go to the first CPU's
 * ring meanwhile: the lock, not the CPU, keeps a ring right), and a
 * control ring
 * (&pgf_trace.ctl) for start, stop, exec, exit and region records. Each
 * ring (&struct pgf_ring) is a byte ring of variable-length records
 * (&struct pgf_rec, multiples of 8 bytes, never split: a PAD record fills
 * the end when one does not fit) in one allocation whose start holds the
 * meta information (size, head, tail, bytes used). The CPU rings start at
 * 64 KiB shared among the CPUs (a page at least), the control ring at 16
 * KiB, and each doubles up to the limit taken from the sysctl
 * vm.pgfault_history_buffer_kb (default 64) when tracing starts (the
 * control ring to 16 KiB at least: a region record with a PATH_MAX name
 * must fit in half of it). Every
 * allocation is charged to the memory cgroup of the task that causes it
 * (a ring's growth to the traced process's, from a work item), and
 * counted against the trace's budget (&struct pgf_budget, pgf_charge()),
 * which the traces of the children it created share until a reader
 * claims them: a ring at the budget stays at its size, and a child's
 * trace that would take it past three quarters is not made.
 *
 * Locking: a CPU's ring is under its own spinlock, which only the threads
 * faulting on that CPU and the reader take: no lock is shared by the
 * threads of a process in the fault path. The control ring and the
 * trace's state flags are under &pgf_trace.lock. All are taken in process
 * context only. Neither producers nor the reader ever sleep or touch user
 * memory with a ring's lock held: the reader moves whole records into a
 * kernel buffer under the lock and formats and copies them out after
 * dropping it, so a reader that faults on its own buffer cannot deadlock
 * with a producer. A fault producer never allocates, frees or waits: when
 * its ring is half full, a work item (pgf_grow_work()) allocates the next
 * size outside the lock and moves the records over under it; records that
 * come while the ring is full before that are dropped and counted, as at
 * the limit. Region records, written where sleeping or GFP_NOWAIT is
 * allowed, may grow the control ring themselves.
 *
 * Order: a record's time is read under its ring's lock, as it is written,
 * so each ring is in time order; the clock (CLOCK_MONOTONIC) is the same
 * on every CPU. The reader (pgf_pop()) reads the clock, then looks at the
 * first record of every ring under its lock: a record written to a ring
 * after that has a later time, so the records up to the time read can be
 * merged, oldest first, into one stream in time order; the rest wait for
 * the next read. Records of the same time go control ring first, then by
 * CPU. A fault in a region always follows the region's record, and a change
 * to a region follows the faults in it before: the two are ordered by the
 * mmap lock (or the VMA's lock), and so are their times. Stop, exec and
 * exit mark the trace inactive and then take and release every CPU's lock
 * (pgf_rings_sync()): no fault record comes after their record.
 *
 * Readers sleep on &pgf_trace.wait; producers wake them only when the
 * reader said it is about to sleep (a flag set under each ring's lock by
 * the wait condition, after the reader queued itself), and then in
 * batches: when the ring is a quarter full, or one tick after the first
 * record or loss (a timer). No barrier in the fault path, no wake-up per
 * record; a stop and the end of the trace wake the reader at once.
 *
 * When a ring is full at the limit a record is dropped and counted, per
 * ring: records of faults that /proc/<pid>/stat counts apart from all
 * others. Before the next record that ring keeps, a LOST record carrying
 * the exact counts is written; if the loss is the last thing that happens
 * in it, the reader makes the LOST record itself once the ring is empty.
 * A small reserve at the end of the control ring is kept for the control
 * records (start, stop, exit, lost), and a part of it for the last record
 * alone, so the end of a trace always shows. A ring that fails to grow
 * (no memory, or the memory cgroup's limit) stays at its size, and so does
 * one whose growth would leave its memory cgroup less than a quarter of
 * its limit free (pgf_memcg_room()): the trace must not make the traced
 * program's cgroup reclaim, throttle or kill it. The region
 * records of one change, or of a part of a layout, go in together or not
 * at all (pgf_emit_regions()); while the reader lacks a whole layout,
 * fault records are dropped and counted, so every fault kept lies in a
 * region the reader knows. A reader takes records out in batches and formats them as it is
 * read; what it took and did not read when it closes its file goes back in
 * front of the rings for the next reader (pgf_unread()). Nothing is lost
 * silently: the records read plus the lost counts equal what happened.
 */
#define pr_fmt(fmt) "pgfault: " fmt

#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/sched/mm.h>
#include <linux/pgfault_history.h>
#include <linux/poll.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>
#include <linux/wait_bit.h>

#include "internal.h"

static_assert(2 * (PGF_REC_MAX + PGF_REC_ALIGN) + PGF_RESERVE <= PGF_CTL_MIN);

/* The most ring @r of @t may grow to. */
static size_t pgf_ring_limit(const struct pgf_trace *t,
			     const struct pgf_ring *r)
{
	return r == &t->ctl ? max_t(size_t, t->limit, PGF_CTL_MIN) : t->limit;
}

/* Bytes of buffers held by all traces, for /sys/kernel/debug/pgfault_history. */
atomic_long_t pgf_nr_buf_bytes = ATOMIC_LONG_INIT(0);

/* Growths held back for a memory cgroup's headroom (pgf_memcg_room()). */
atomic_long_t pgf_nr_memcg_held = ATOMIC_LONG_INIT(0);

/*
 * The rings of a trace, the control ring first:
 * for (cpu = -1, r = &t->ctl; r; r = pgf_next_ring(t, &cpu)).
 * The ring after the one of @cpu (-1 for the control ring), or NULL.
 */
static struct pgf_ring *pgf_next_ring(struct pgf_trace *t, int *cpu)
{
	*cpu = cpumask_next(*cpu, cpu_possible_mask);
	return *cpu < nr_cpu_ids ? &per_cpu_ptr(t->cpu, *cpu)->ring : NULL;
}

/* An empty ring of @bytes, meta information included. */
static struct pgf_buf *pgf_buf_alloc(size_t bytes, gfp_t gfp)
{
	struct pgf_buf *b = kvmalloc(bytes, gfp);

	if (!b)
		return NULL;
	b->size = round_down(bytes - sizeof(*b), PGF_REC_ALIGN);
	b->head = 0;
	b->tail = 0;
	b->used = 0;
	return b;
}

static int pgf_ring_init(struct pgf_trace *t, struct pgf_ring *r,
			 spinlock_t *lock, size_t bytes)
{
	r->lock = lock;
	if (!pgf_charge(t, bytes, false))
		return -ENOMEM;
	r->buf = pgf_buf_alloc(bytes, GFP_KERNEL_ACCOUNT);
	if (!r->buf) {
		pgf_uncharge(t, bytes);
		return -ENOMEM;
	}
	r->alloc = bytes;
	spin_lock(lock);
	__pgf_set_fast(r);
	spin_unlock(lock);
	atomic_long_add(bytes, &pgf_nr_buf_bytes);
	return 0;
}

/**
 * pgf_rings_alloc() - allocate the rings of a new trace
 * @t: the trace, its limit set
 * @ctl_bytes: the control ring's first size
 * @cpu_bytes: each CPU ring's first size
 *
 * Return: 0 or -ENOMEM; pgf_rings_free() frees what was allocated.
 */
int pgf_rings_alloc(struct pgf_trace *t, size_t ctl_bytes, size_t cpu_bytes)
{
	struct pgf_cpu *c;
	int cpu;

	t->cpu = alloc_percpu_gfp(struct pgf_cpu, GFP_KERNEL_ACCOUNT);
	if (!t->cpu)
		return -ENOMEM;
	if (pgf_ring_init(t, &t->ctl, &t->lock, ctl_bytes))
		return -ENOMEM;
	t->cpu_start = cpu_bytes;
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(t->cpu, cpu);
		spin_lock_init(&c->lock);
		c->ring.lock = &c->lock;
		/* Online CPUs only: another gets its ring when it is used. */
		if (!cpu_online(cpu) && t->fallback)
			continue;
		if (pgf_ring_init(t, &c->ring, &c->lock, cpu_bytes))
			return -ENOMEM;
		if (!t->fallback)
			t->fallback = c;
	}
	return 0;
}

/*
 * A thread faulted on a CPU that has no ring: have the work item make it
 * (pgf_grow_work()); the record goes to the fallback ring meanwhile.
 */
static void pgf_want_ring(struct pgf_trace *t, struct pgf_cpu *c)
{
	if (READ_ONCE(c->want_ring) || READ_ONCE(t->dead))
		return;
	WRITE_ONCE(c->want_ring, true);
	if (test_and_set_bit(PGF_GROW_QUEUED, &t->bits))
		return;
	refcount_inc(&t->ref);
	queue_work(system_unbound_wq, &t->grow_work);
}

/* Make the rings the CPUs that came online asked for. */
static void pgf_make_rings(struct pgf_trace *t)
{
	struct pgf_buf *nb;
	struct pgf_cpu *c;
	int cpu;

	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(t->cpu, cpu);
		if (!READ_ONCE(c->want_ring) || READ_ONCE(c->ring.buf))
			continue;
		/* Not retried if the budget or memory refuses: the fallback. */
		if (!pgf_charge(t, t->cpu_start, false))
			continue;
		nb = pgf_buf_alloc(t->cpu_start, GFP_KERNEL_ACCOUNT);
		if (!nb) {
			pgf_uncharge(t, t->cpu_start);
			continue;
		}
		spin_lock(&c->lock);
		c->ring.alloc = t->cpu_start;
		WRITE_ONCE(c->ring.buf, nb);
		__pgf_set_fast(&c->ring);
		spin_unlock(&c->lock);
		atomic_long_add(t->cpu_start, &pgf_nr_buf_bytes);
	}
}

/**
 * pgf_charge() - count bytes a trace's buffers take against its budget
 * @t: the trace
 * @bytes: how many
 * @force: count them even past the budget (a reader's buffers, records
 *         given back: never refused)
 *
 * A child's trace on its creator's budget may take it to three quarters
 * only: the rest keeps room for the creator's own rings, whose records
 * tell the reader of the children.
 *
 * Return: false, nothing counted, if they would take the budget past its
 * limit.
 */
bool pgf_charge(struct pgf_trace *t, long bytes, bool force)
{
	struct pgf_budget *b;
	bool ok = true;
	long limit;

	spin_lock(&t->budget_lock);
	b = t->budget;
	limit = t->guest ? b->limit / 4 * 3 : b->limit;
	if (atomic_long_add_return(bytes, &b->bytes) > limit && !force) {
		atomic_long_sub(bytes, &b->bytes);
		ok = false;
	} else {
		t->charged += bytes;
	}
	spin_unlock(&t->budget_lock);
	return ok;
}

/**
 * pgf_uncharge() - the bytes a trace's buffers took are free
 * @t: the trace
 * @bytes: how many
 */
void pgf_uncharge(struct pgf_trace *t, long bytes)
{
	spin_lock(&t->budget_lock);
	atomic_long_sub(bytes, &t->budget->bytes);
	t->charged -= bytes;
	spin_unlock(&t->budget_lock);
}

#ifdef PGF_STAGE_INHERIT
/**
 * pgf_budget_own() - a claimed child's trace pays for itself from now on
 * @t: the child's trace, just claimed by a reader
 *
 * It moves what it holds off its creator's budget, onto a new one; if
 * that cannot be made, it stays on its creator's.
 */
void pgf_budget_own(struct pgf_trace *t)
{
	struct pgf_budget *nb = pgf_budget_new(t->limit), *old;

	if (!nb)
		return;
	spin_lock(&t->budget_lock);
	old = t->budget;
	atomic_long_sub(t->charged, &old->bytes);
	atomic_long_add(t->charged, &nb->bytes);
	t->budget = nb;
	t->guest = false;
	spin_unlock(&t->budget_lock);
	pgf_budget_put(old);
}
#endif

/**
 * pgf_rings_free() - free the rings of a trace
 * @t: the trace, no longer used
 */
void pgf_rings_free(struct pgf_trace *t)
{
	struct pgf_ring *r;
	int cpu;

	if (!t->cpu) {
		kvfree(t->ctl.buf);
		return;
	}
	for (cpu = -1, r = &t->ctl; r; r = pgf_next_ring(t, &cpu)) {
		if (!r->buf)
			continue;
		atomic_long_sub(r->alloc, &pgf_nr_buf_bytes);
		kvfree(r->buf);
	}
	free_percpu(t->cpu);
}

/**
 * pgf_rings_sync() - wait for the fault records being written
 * @t: the trace, just marked inactive (or dead)
 *
 * A fault producer checks that the trace is active under its CPU's lock:
 * once every CPU's lock has been taken and released after the trace was
 * marked inactive, no fault record can be written any more, and a record
 * written after this has a later time than all of them.
 */
void pgf_rings_sync(struct pgf_trace *t)
{
	struct pgf_cpu *c;
	int cpu;

	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(t->cpu, cpu);
		spin_lock(&c->lock);
		spin_unlock(&c->lock);
	}
}

/**
 * pgf_fault_totals() - the counted faults kept and lost, over all rings
 * @t: the trace
 * @kept: set to those kept
 * @lost: set to those lost
 */
void pgf_fault_totals(struct pgf_trace *t, u64 *kept, u64 *lost)
{
	struct pgf_ring *r;
	int cpu;

	*kept = 0;
	*lost = 0;
	for (cpu = -1, r = &t->ctl; r; r = pgf_next_ring(t, &cpu)) {
		spin_lock(r->lock);
		*kept += r->nr_faults;
		*lost += r->total_lost_faults;
		spin_unlock(r->lock);
	}
}

/* Room for @len more bytes, wrapping with a PAD record if needed. */
static struct pgf_rec *__pgf_reserve(struct pgf_ring *r, u32 len,
				     enum pgf_kind kind)
{
	struct pgf_buf *b = r->buf;
	u32 room = b->size - b->used;
	u32 keep = kind == PGF_KIND_FINAL ? 0 : kind == PGF_KIND_CONTROL ?
		   PGF_FINAL_RESERVE : PGF_RESERVE;
	u32 to_end, need;
	struct pgf_rec *rec;

	lockdep_assert_held(r->lock);
	room = room > keep ? room - keep : 0;
	if (!b->used) {
		b->head = 0;
		b->tail = 0;
	}
	to_end = b->size - b->head;
	need = len <= to_end ? len : to_end + len;
	if (need > room)
		return NULL;
	if (len > to_end) {
		rec = (struct pgf_rec *)(b->data + b->head);
		rec->type = PGF_REC_PAD;
		rec->len = to_end;
		b->used += to_end;
		b->head = 0;
	}
	rec = (struct pgf_rec *)(b->data + b->head);
	b->head += len;
	if (b->head == b->size)
		b->head = 0;
	b->used += len;
	return rec;
}

/*
 * Copy the ring, in order, into a bigger buffer. Records that wrapped
 * left a PAD at the end of @from: it is not copied, a PAD anywhere but at
 * the end of a buffer would send the reader back to its start.
 */
static void __pgf_move(struct pgf_buf *to, const struct pgf_buf *from)
{
	const struct pgf_rec *rec;
	u32 first, end;

	if (!from->used)
		return;
	if (from->tail < from->head) {
		memcpy(to->data, from->data + from->tail, from->used);
		to->used = from->used;
	} else {
		for (end = from->tail; end < from->size; end += rec->len) {
			rec = (const struct pgf_rec *)(from->data + end);
			if (rec->type == PGF_REC_PAD)
				break;
		}
		first = end - from->tail;
		memcpy(to->data, from->data + from->tail, first);
		memcpy(to->data + first, from->data, from->head);
		to->used = first + from->head;
	}
	to->head = to->used == to->size ? 0 : to->used;
}

/*
 * Whether the memory cgroup @t's rings are charged to, and every cgroup
 * above it, can take @bytes more and still have a quarter of its limit
 * (memory.max, or memory.high if lower) free: a ring grows only into
 * memory the traced program is far from needing, so that the trace never
 * makes its cgroup reclaim, throttle or kill it. Racy by nature (the
 * program allocates meanwhile), which the quarter left free absorbs.
 */
static bool pgf_memcg_room(struct pgf_trace *t, size_t bytes)
{
#ifdef CONFIG_MEMCG
	unsigned long limit, pages = bytes >> PAGE_SHIFT;
	struct mem_cgroup *m;

	if (mem_cgroup_disabled())
		return true;
	for (m = t->memcg; m && !mem_cgroup_is_root(m);
	     m = parent_mem_cgroup(m)) {
		limit = min(READ_ONCE(m->memory.max),
			    READ_ONCE(m->memory.high));
		if (page_counter_read(&m->memory) + pages > limit - limit / 4)
			return false;
	}
#endif
	return true;
}

/*
 * Grow ring @r of @t to the next size, up to the trace's limit, allocating
 * with @gfp. Called and returns with its lock held, drops it to allocate.
 * Returns false if the ring cannot grow; true once it grew, or, for a
 * caller that may sleep, once another's growing ended: the caller tries
 * its write again. No record, the exit's layout included, takes a ring
 * past the limit, the budget or its memory cgroup's headroom.
 */
static bool __pgf_grow(struct pgf_trace *t, struct pgf_ring *r, gfp_t gfp)
{
	struct pgf_buf *nb, *old;
	size_t want;

	lockdep_assert_held(r->lock);
	if (r->growing) {
		/*
		 * Another grows it (the work item): a writer that may sleep
		 * waits for it and writes again, rather than losing what
		 * the bigger ring will hold (the exit's layout).
		 */
		if (!gfpflags_allow_blocking(gfp))
			return false;
		spin_unlock(r->lock);
		wait_var_event(&r->growing, !READ_ONCE(r->growing));
		spin_lock(r->lock);
		return true;
	}
	if (r->stuck || r->alloc >= pgf_ring_limit(t, r))
		return false;
	want = min(r->alloc * 2, pgf_ring_limit(t, r));
	/*
	 * The memory cgroup's headroom: a ring that would eat into it stays
	 * at its size, as one that cannot allocate.
	 */
	if (!pgf_memcg_room(t, want)) {
		atomic_long_inc(&pgf_nr_memcg_held);
		r->stuck = true;
		return false;
	}
	/* The budget: a ring at it stays at its size. */
	if (!pgf_charge(t, want - r->alloc, false))
		return false;
	WRITE_ONCE(r->growing, true);
	spin_unlock(r->lock);
	nb = pgf_buf_alloc(want, gfp | __GFP_NOWARN | __GFP_NORETRY);
	if (!nb)
		pgf_uncharge(t, want - r->alloc);
	spin_lock(r->lock);
	WRITE_ONCE(r->growing, false);
	smp_mb();	/* growing, then the waiters: pairs with wait_var_event() */
	wake_up_var(&r->growing);
	if (!nb && gfpflags_allow_blocking(gfp)) {
		/*
		 * No memory (or the memory cgroup's limit): the ring stays
		 * at this size, rather than every later record trying again.
		 */
		r->stuck = true;
		return false;
	}
	if (!nb)
		return false;	/* could not wait: a later record tries */
	old = r->buf;
	__pgf_move(nb, old);
	r->buf = nb;
	__pgf_set_fast(r);
	atomic_long_add(want - r->alloc, &pgf_nr_buf_bytes);
	r->alloc = want;
	spin_unlock(r->lock);
	kvfree(old);
	spin_lock(r->lock);
	return true;
}

/**
 * __pgf_count_lost() - count a record that was dropped
 * @r: the ring it was for, its lock held
 * @kind: what the record counts as
 */
void __pgf_count_lost(struct pgf_ring *r, enum pgf_kind kind)
{
	lockdep_assert_held(r->lock);
	if (kind == PGF_KIND_FAULT) {
		r->lost_faults++;
		r->total_lost_faults++;
	} else {
		r->lost_other++;
#ifdef PGF_STAGE_FILES
		if (kind == PGF_KIND_CACHE)
			r->total_lost_cache++;
#endif
	}
	__pgf_set_fast(r);
}

/**
 * __pgf_write() - write a record into a ring as it is, with its time
 * @r: the ring, its lock held
 * @src: the record
 * @kind: what it counts as
 * @time: its time, read under the lock
 *
 * The LOST record that a loss before it calls for goes first, in the same
 * reservation, so that either both are written or, when they do not fit,
 * nothing is: a full ring never fills its reserve with LOST records.
 *
 * Return: false if nothing was written.
 */
bool __pgf_write(struct pgf_ring *r, const struct pgf_rec *src,
		 enum pgf_kind kind, u64 time)
{
	u32 lost = r->lost_faults || r->lost_other ? sizeof(struct pgf_rec) : 0;
	struct pgf_rec *rec;

	lockdep_assert_held(r->lock);
	rec = __pgf_reserve(r, lost + src->len, kind);
	if (!rec)
		return false;
	if (lost) {
		*rec = (struct pgf_rec) {
			.type = PGF_REC_LOST, .len = sizeof(*rec), .time = time,
			.a = r->lost_faults, .b = r->lost_other,
		};
		r->lost_faults = 0;
		r->lost_other = 0;
		__pgf_set_fast(r);
		rec++;
	}
	/*
	 * Fault records, the bulk, are four word stores (a struct assignment
	 * may be a "rep movs", slow to start, when optimising for size).
	 */
#ifdef PGF_STAGE_PHYS
	if (src->len <= sizeof(struct pgf_fault_rec)) {
#else
	if (src->len == sizeof(*src)) {
#endif
		const u64 *from = (const u64 *)src;
		u64 *to = (u64 *)rec;

		to[0] = from[0];
		to[1] = from[1];
		to[2] = from[2];
		to[3] = from[3];
#ifdef PGF_STAGE_PHYS
		/* a fault's frame, a page cache record's pages */
		if (src->len > sizeof(*src))
			to[4] = from[4];
#endif
	} else {
		memcpy(rec, src, src->len);
	}
	rec->time = time;
	if (kind == PGF_KIND_FAULT)
		r->nr_faults++;
#ifdef PGF_STAGE_FILES
	else if (kind == PGF_KIND_CACHE)
		r->nr_cache++;
#endif
	return true;
}

#ifdef PGF_STAGE_REGIONS
/* Write records of @len bytes in all, all or none, at @time; lock held. */
static bool __pgf_write_all(struct pgf_ring *r, const void *recs, size_t len,
			    u64 time)
{
	struct pgf_buf *b = r->buf;
	u32 head = b->head, tail = b->tail, used = b->used;
	u64 lost_faults = r->lost_faults, lost_other = r->lost_other;
	const struct pgf_rec *rec;
	size_t off;

	lockdep_assert_held(r->lock);
	for (off = 0; off < len; off += rec->len) {
		rec = recs + off;
		if (!__pgf_write(r, rec, PGF_KIND_OTHER, time)) {
			/* Undo: the reader cannot have seen any of it. */
			b->head = head;
			b->tail = tail;
			b->used = used;
			r->lost_faults = lost_faults;
			r->lost_other = lost_other;
			__pgf_set_fast(r);
			return false;
		}
	}
	return true;
}
#endif

/**
 * pgf_wake() - wake the reader now
 * @t: the trace
 * @mask: the poll events
 */
void pgf_wake(struct pgf_trace *t, __poll_t mask)
{
	wake_up_interruptible_poll(&t->wait, mask);
}

/*
 * Does a record just written to (or dropped from) @r need to wake the
 * reader? Only if the reader said it is going to sleep (pgf_readable()
 * found nothing, after it had queued itself on t->wait), and then not at
 * once: when the ring is a quarter full, or else one tick later
 * (t->wake_timer, armed once for all rings). So the fault path pays no
 * memory barrier, and a reader that keeps up is woken for batches, not
 * once per record. @arm is set when the caller must arm the timer; the
 * reference it takes is the timer's.
 */
static bool __pgf_want_wake(struct pgf_trace *t, struct pgf_ring *r,
			    bool *arm)
{
	lockdep_assert_held(r->lock);
	*arm = false;
	if (!r->reader_sleeps)
		return false;
	if (r->buf->used >= r->buf->size / 4) {
		r->reader_sleeps = false;
		__pgf_set_fast(r);
		return true;
	}
	if (!test_bit(PGF_WAKE_ARMED, &t->bits) &&
	    !test_and_set_bit(PGF_WAKE_ARMED, &t->bits)) {
		refcount_inc(&t->ref);
		*arm = true;
	}
	return false;
}

/**
 * pgf_wake_timer() - the deferred wake-up of the reader
 * @timer: &pgf_trace.wake_timer
 *
 * It runs in softirq context, where the rings' locks (taken with plain
 * spin_lock() in process context) must not be taken: it clears
 * PGF_WAKE_ARMED before waking, so a record written after the reader has
 * woken and gone back to sleep arms the timer again.
 */
void pgf_wake_timer(struct timer_list *timer)
{
	struct pgf_trace *t = from_timer(t, timer, wake_timer);

	clear_bit(PGF_WAKE_ARMED, &t->bits);
	pgf_wake(t, EPOLLIN | EPOLLRDNORM);
	pgf_trace_put(t);
}

/* After a record was written or dropped: wake or arm the timer, unlocked. */
static void pgf_after_write(struct pgf_trace *t, bool wake, bool arm)
{
	if (wake)
		pgf_wake(t, EPOLLIN | EPOLLRDNORM);
	else if (arm)
		mod_timer(&t->wake_timer, jiffies + 1);
}

/*
 * Ring @r is half full and may grow: have the work item grow it (queued
 * once at a time, holding a reference), so that the producer, a faulting
 * thread, never allocates or frees memory itself.
 */
static void __pgf_want_grow(struct pgf_trace *t, struct pgf_ring *r)
{
	lockdep_assert_held(r->lock);
	if (r->want_grow || r->growing || r->stuck ||
	    r->alloc >= pgf_ring_limit(t, r) ||
	    r->buf->used < r->buf->size / 2 || READ_ONCE(t->dead))
		return;
	r->want_grow = true;
	if (test_and_set_bit(PGF_GROW_QUEUED, &t->bits))
		return;
	refcount_inc(&t->ref);
	/* Any CPU: the producer's may stay busy faulting until the tick. */
	queue_work(system_unbound_wq, &t->grow_work);
}

/**
 * pgf_grow_work() - grow the rings of a trace, as producers asked
 * @work: &pgf_trace.grow_work
 *
 * Context: a worker; may sleep.
 */
void pgf_grow_work(struct work_struct *work)
{
	struct pgf_trace *t = container_of(work, struct pgf_trace, grow_work);
	struct mem_cgroup *old = set_active_memcg(t->memcg);
	struct pgf_ring *r;
	int cpu;

	/* A ring that asks from now on queues the work again. */
	clear_bit(PGF_GROW_QUEUED, &t->bits);
	if (!READ_ONCE(t->dead))
		pgf_make_rings(t);
	for (cpu = -1, r = &t->ctl; r; r = pgf_next_ring(t, &cpu)) {
		spin_lock(r->lock);
		if (r->want_grow) {
			r->want_grow = false;
			if (!READ_ONCE(t->dead))
				__pgf_grow(t, r, GFP_KERNEL_ACCOUNT);
		}
		spin_unlock(r->lock);
	}
	set_active_memcg(old);
	pgf_trace_put(t);
}

/**
 * pgf_emit_fault_to() - append a fault record to a CPU's ring
 * @t: the trace
 * @c: the ring, normally the current CPU's
 * @src: the record
 * @kind: what to count it as if it has to be dropped
 *
 * The record is written, with its time, if the trace is active, or counted
 * as lost if the ring is full or the reader lacks a layout to place it in.
 * It never allocates, frees or waits, and takes no lock but @c's: once the
 * ring is half full, a work item grows it (pgf_grow_work()), up to the
 * limit.
 *
 * Context: process context; no spinlock held (the mmap lock may be).
 * Return: true if the record was kept.
 */
bool pgf_emit_fault_to(struct pgf_trace *t, struct pgf_cpu *c,
		       const struct pgf_rec *src, enum pgf_kind kind)
{
	struct pgf_ring *r = &c->ring;
	bool kept = false, wake = false, arm = false;

	spin_lock(&c->lock);
	/* Stop, exec and exit sync with this lock (pgf_rings_sync()). */
	if (!READ_ONCE(t->active))
		goto out_unlock;
#ifdef PGF_STAGE_REGIONS
#ifdef PGF_STAGE_FILES
	/* A page cache record names no region: it needs no layout. */
	if (kind == PGF_KIND_CACHE || !READ_ONCE(t->need_layout))
#else
	if (!READ_ONCE(t->need_layout))
#endif
		kept = __pgf_write(r, src, kind, ktime_get_ns());
#else
	kept = __pgf_write(r, src, kind, ktime_get_ns());
#endif
	if (!kept)
		__pgf_count_lost(r, kind);
	__pgf_want_grow(t, r);
	wake = __pgf_want_wake(t, r, &arm);
out_unlock:
	spin_unlock(&c->lock);
	pgf_after_write(t, wake, arm);
	return kept;
}

/**
 * pgf_emit_fault() - append a fault (or remote) record to a trace
 * @t: the trace
 * @src: the record
 * @kind: what to count it as if it has to be dropped
 *
 * Into the ring of the CPU the thread runs on (if it moves, the ring of
 * the one it left: the lock, not the CPU, keeps the ring right).
 *
 * Return: true if the record was kept.
 */
bool pgf_emit_fault(struct pgf_trace *t, const struct pgf_rec *src,
		    enum pgf_kind kind)
{
	struct pgf_cpu *c = raw_cpu_ptr(t->cpu);

	if (unlikely(!READ_ONCE(c->ring.buf))) {
		pgf_want_ring(t, c);
		c = t->fallback;
	}
	return pgf_emit_fault_to(t, c, src, kind);
}

/**
 * pgf_write_fault_slow() - pgf_write_fault() when the ring cannot take it as is
 * @t: the trace
 * @flags: the record's flags
 * @addr: the faulting address
 * @ip: the instruction pointer of the access
 * @frame: the frame the fault mapped, 0 for none (or a trace without them)
 *
 * The record is made on the stack and goes through pgf_emit_fault(),
 * which knows every case.
 *
 * Return: true if the record was kept.
 */
noinline bool pgf_write_fault_slow(struct pgf_trace *t, unsigned int flags,
				   unsigned long addr, unsigned long ip,
				   u64 frame)
{
#ifdef PGF_STAGE_PHYS
	struct pgf_fault_rec fr __uninitialized;
	struct pgf_rec *rec = &fr.rec;

	pgf_rec_init(t, rec, PGF_REC_FAULT, frame ? sizeof(fr) : sizeof(*rec));
	fr.frame = frame;
#else
	struct pgf_rec buf __uninitialized, *rec = &buf;

	pgf_rec_init(t, rec, PGF_REC_FAULT, sizeof(*rec));
#endif
	rec->flags = flags;
	rec->a = addr;
	rec->b = ip;
	return pgf_emit_fault(t, rec, PGF_KIND_FAULT);
}

/**
 * __pgf_fault_written() - the end of pgf_write_fault() for a ring half full
 * @t: the trace
 * @c: the ring, its lock held: released here
 * @rec: the record just written there, but for its time
 *
 * Also for a ring whose reader waits: @rec gets its time, the ring may
 * grow and the reader be woken, as pgf_emit_fault_to() does.
 */
noinline void __pgf_fault_written(struct pgf_trace *t, struct pgf_cpu *c,
				  struct pgf_rec *rec)
{
	bool wake, arm;

	lockdep_assert_held(&c->lock);
	rec->time = ktime_get_ns();
	__pgf_want_grow(t, &c->ring);
	wake = __pgf_want_wake(t, &c->ring, &arm);
	spin_unlock(&c->lock);
	pgf_after_write(t, wake, arm);
}

#ifdef PGF_STAGE_FILES
/**
 * pgf_emit_cache() - append a page cache record to a trace
 * @t: the trace
 * @src: the record
 *
 * Into the CPU's ring, as a fault record, whether the reader has a layout
 * or not; counted as PGF_KIND_CACHE if it has to be dropped.
 *
 * Return: true if the record was kept.
 */
bool pgf_emit_cache(struct pgf_trace *t, const struct pgf_rec *src)
{
	return pgf_emit_fault(t, src, PGF_KIND_CACHE);
}

/**
 * pgf_count_lost() - count a record that could not even be made
 * @t: the trace, active
 * @kind: what it counts as
 */
void pgf_count_lost(struct pgf_trace *t, enum pgf_kind kind)
{
	struct pgf_cpu *c = raw_cpu_ptr(t->cpu);
	bool wake = false, arm = false;

	if (unlikely(!READ_ONCE(c->ring.buf)))
		c = t->fallback;
	spin_lock(&c->lock);
	if (READ_ONCE(t->active)) {
		__pgf_count_lost(&c->ring, kind);
		wake = __pgf_want_wake(t, &c->ring, &arm);
	}
	spin_unlock(&c->lock);
	pgf_after_write(t, wake, arm);
}

/**
 * pgf_cache_totals() - the page cache records kept and lost, over all rings
 * @t: the trace
 * @kept: set to those kept
 * @lost: set to those lost
 */
void pgf_cache_totals(struct pgf_trace *t, u64 *kept, u64 *lost)
{
	struct pgf_ring *r;
	int cpu;

	*kept = 0;
	*lost = 0;
	for (cpu = -1, r = &t->ctl; r; r = pgf_next_ring(t, &cpu)) {
		spin_lock(r->lock);
		*kept += r->nr_cache;
		*lost += r->total_lost_cache;
		spin_unlock(r->lock);
	}
}
#endif

/**
 * pgf_emit() - append a record to a trace's control ring
 * @t: the trace
 * @src: the record
 * @kind: what to count it as if it has to be dropped
 *
 * Counts the record as lost if the ring is full. Nothing is written to a
 * trace that has ended.
 *
 * Context: process context; no spinlock held (the mmap lock may be).
 * Return: true if the record was kept.
 */
bool pgf_emit(struct pgf_trace *t, const struct pgf_rec *src,
	      enum pgf_kind kind)
{
	bool kept = false, wake = false, arm = false;

	spin_lock(&t->lock);
	if (t->dead)
		goto out_unlock;
	kept = __pgf_write(&t->ctl, src, kind, ktime_get_ns());
	if (!kept)
		__pgf_count_lost(&t->ctl, kind);
	__pgf_want_grow(t, &t->ctl);
	wake = __pgf_want_wake(t, &t->ctl, &arm);
out_unlock:
	spin_unlock(&t->lock);
	pgf_after_write(t, wake, arm);
	return kept;
}

#ifdef PGF_STAGE_REGIONS
/**
 * pgf_emit_regions() - append the region records of a change or a layout
 * @t: the trace
 * @recs: the records, back to back
 * @len: their total length in bytes
 * @nr: how many there are
 * @how: PGF_REGIONS_CHANGE, the records of a change, or a part of a
 *       layout (PGF_REGIONS_PART, PGF_REGIONS_LAST)
 * @gfp: how the ring may grow for them (GFP_NOWAIT under the mmap
 *       write lock)
 *
 * All of them are written or none, with one time. The records of a
 * change are written only while the trace is active (a stop may have
 * come since they were built); if they do not fit in the control ring at
 * its limit, all @nr are counted as lost and the reader is owed a layout:
 * fault records are dropped until it has one. A part of a layout is the
 * start's, the reader's or the exit's (t->mutex held, which a stop
 * takes): one that does not fit is not lost, it is sent again once the
 * reader has drained the ring (the exit's, which cannot wait, is counted
 * lost by its caller); the last part settles the debt.
 *
 * Context: process context, the traced mm's mmap lock held.
 * Return: true if the records were kept.
 */
bool pgf_emit_regions(struct pgf_trace *t, const void *recs, size_t len,
		      unsigned int nr, unsigned int how, gfp_t gfp)
{
	bool change = how == PGF_REGIONS_CHANGE;
	bool last = how & PGF_REGIONS_LAST;
	bool kept = false, wake = false, arm = false;

	spin_lock(&t->lock);
	if (t->dead || (change && !t->active))
		goto out_unlock;
	for (;;) {
		kept = __pgf_write_all(&t->ctl, recs, len, ktime_get_ns());
		if (kept || !__pgf_grow(t, &t->ctl, gfp) || t->dead)
			break;
		/* The lock was dropped to grow: a stop may have come. */
		if (change && !t->active)
			goto out_unlock;
	}
	if (kept && last) {
		WRITE_ONCE(t->need_layout, false);
	} else if (!t->dead && (!kept || (how & PGF_REGIONS_PART))) {
		if (!kept && change) {
			t->ctl.lost_other += nr;
			__pgf_set_fast(&t->ctl);
		}
		WRITE_ONCE(t->need_layout, true);
	}
	__pgf_want_grow(t, &t->ctl);
	if (!t->dead)
		wake = __pgf_want_wake(t, &t->ctl, &arm);
out_unlock:
	spin_unlock(&t->lock);
	pgf_after_write(t, wake, arm);
	return kept;
}
#endif

/**
 * __pgf_control() - write a start, stop or exit record
 * @t: the trace, its lock held
 * @type: the record type
 * @flags: its flags
 * @a: its first value
 * @b: its second value
 *
 * Control records may use the reserve and never grow the ring; the last
 * record of a trace (a STOP for credentials) may use all of it.
 */
void __pgf_control(struct pgf_trace *t, enum pgf_rec_type type, u8 flags,
		   u64 a, u64 b)
{
	enum pgf_kind kind = PGF_KIND_CONTROL;
	struct pgf_rec rec;

	lockdep_assert_held(&t->lock);
	if (type == PGF_REC_STOP && flags == PGF_STOP_CREDENTIALS)
		kind = PGF_KIND_FINAL;
	pgf_rec_init(t, &rec, type, sizeof(rec));
	rec.flags = flags;
	rec.a = a;
	rec.b = b;
	if (!__pgf_write(&t->ctl, &rec, kind, ktime_get_ns()))
		__pgf_count_lost(&t->ctl, kind);
}

/**
 * pgf_readable() - is there something for the reader to do
 * @t: the trace
 *
 * Context: the caller has queued itself on @t->wait (a wait condition, or
 * poll after poll_wait()): when nothing is there, the next record written
 * to any ring wakes it.
 * Return: true if records (or a pending loss count) wait, or the trace has
 * ended (the reader gets EOF).
 */
bool pgf_readable(struct pgf_trace *t)
{
	struct pgf_ring *r;
	bool ret = false;
	int cpu;

	spin_lock(&t->lock);
	ret = t->unread_len || t->dead;
	spin_unlock(&t->lock);
	for (cpu = -1, r = &t->ctl; r; r = pgf_next_ring(t, &cpu)) {
		spin_lock(r->lock);
		if ((r->buf && r->buf->used) || r->lost_faults || r->lost_other)
			ret = true;
		else	/* the caller is on t->wait: wake it */
			r->reader_sleeps = true;
		__pgf_set_fast(r);
		spin_unlock(r->lock);
	}
	return ret;
}

/*
 * Take whole records given back by a reader that closed (pgf_unread()):
 * they come before everything in the rings. Returns the bytes taken; the
 * rings are not to be read while some are left.
 */
static size_t __pgf_pop_unread(struct pgf_trace *t, void *out, size_t size)
{
	const struct pgf_rec *rec;
	size_t n = 0;

	lockdep_assert_held(&t->lock);
	while (n < t->unread_len) {
		rec = t->unread + n;
		if (rec->len > size - n)
			break;
		n += rec->len;
	}
	memcpy(out, t->unread, n);
	t->unread_len -= n;
	memmove(t->unread, t->unread + n, t->unread_len);
	if (!t->unread_len) {
		kfree(t->unread);
		t->unread = NULL;
		pgf_uncharge(t, t->unread_cap);
	}
	return n;
}

/* The first record of @r, past a PAD, or NULL; its lock held. */
static struct pgf_rec *__pgf_first(struct pgf_ring *r)
{
	struct pgf_buf *b = r->buf;
	struct pgf_rec *rec;

	lockdep_assert_held(r->lock);
	if (!b || !b->used)
		return NULL;
	rec = (struct pgf_rec *)(b->data + b->tail);
	if (rec->type != PGF_REC_PAD)
		return rec;
	/* A PAD is always followed by a record, at the start. */
	b->used -= rec->len;
	b->tail = 0;
	return b->used ? (struct pgf_rec *)b->data : NULL;
}

/*
 * The time of what comes first in @r: its first record; 0 for a loss with
 * nothing kept after it (reported at once); U64_MAX if there is nothing.
 */
static u64 __pgf_peek(struct pgf_ring *r)
{
	struct pgf_rec *rec = __pgf_first(r);

	if (rec)
		return rec->time;
	return r->lost_faults || r->lost_other ? 0 : U64_MAX;
}

/*
 * Move the records of @r that come before (@until, @cpu) and are no later
 * than @now into @out; then, if @r is empty and a loss is pending, the
 * LOST record. Returns the bytes moved; its lock held.
 */
static size_t __pgf_pop_ring(struct pgf_ring *r, int cpu, u64 until,
			     int until_cpu, u64 now, void *out, size_t size)
{
	struct pgf_buf *b = r->buf;
	struct pgf_rec *rec;
	size_t done = 0;

	while ((rec = __pgf_first(r))) {
		if (rec->time > now || rec->time > until ||
		    (rec->time == until && cpu > until_cpu))
			break;
		if (rec->len > size - done)
			break;
		memcpy(out + done, rec, rec->len);
		done += rec->len;
		b->tail += rec->len;
		if (b->tail == b->size)
			b->tail = 0;
		b->used -= rec->len;
	}
	if (!b->used && (r->lost_faults || r->lost_other) &&
	    size - done >= sizeof(*rec)) {
		rec = out + done;
		*rec = (struct pgf_rec) {
			.type = PGF_REC_LOST, .len = sizeof(*rec), .time = now,
			.a = r->lost_faults, .b = r->lost_other,
		};
		r->lost_faults = 0;
		r->lost_other = 0;
		__pgf_set_fast(r);
		done += sizeof(*rec);
	}
	r->peek = __pgf_peek(r);
	return done;
}

/*
 * Merge the rings' records up to the clock into @out, oldest first, a run
 * of one ring at a time up to the first record of another. Returns the
 * bytes moved; sets @empty if no ring holds anything.
 */
static size_t pgf_merge(struct pgf_trace *t, void *out, size_t size,
			bool *empty)
{
	int cpu, best_cpu, next_cpu;
	struct pgf_ring *r, *best;
	size_t done = 0, n;
	u64 now, next;

	/* A record written after its ring is looked at is later than now. */
	now = ktime_get_ns();
	for (cpu = -1, r = &t->ctl; r; r = pgf_next_ring(t, &cpu)) {
		spin_lock(r->lock);
		r->reader_sleeps = false;
		__pgf_set_fast(r);
		r->peek = __pgf_peek(r);
		spin_unlock(r->lock);
	}
	for (;;) {
		best = NULL;
		best_cpu = 0;
		next = U64_MAX;
		next_cpu = INT_MAX;
		for (cpu = -1, r = &t->ctl; r; r = pgf_next_ring(t, &cpu)) {
			if (r->peek > now)
				continue;
			if (!best || r->peek < best->peek) {
				if (best) {
					next = best->peek;
					next_cpu = best_cpu;
				}
				best = r;
				best_cpu = cpu;
			} else if (r->peek < next) {
				next = r->peek;
				next_cpu = cpu;
			}
		}
		if (!best)
			break;
		spin_lock(best->lock);
		n = __pgf_pop_ring(best, best_cpu, next, next_cpu, now,
				   out + done, size - done);
		spin_unlock(best->lock);
		if (!n)
			break;		/* @out is full */
		done += n;
	}
	*empty = true;
	for (cpu = -1, r = &t->ctl; r; r = pgf_next_ring(t, &cpu))
		*empty &= r->peek == U64_MAX;
	return done;
}

/**
 * pgf_pop() - take whole records out of the trace, in time order
 * @t: the trace
 * @out: kernel buffer for the records
 * @size: its size, at least PGF_REC_MAX bytes
 * @eof: set when the trace has ended and everything has been taken
 *
 * Records given back by a reader that closed come first. Then the rings
 * are merged (pgf_merge()): the clock is read, the first record of each
 * ring looked at under its lock, and the records no later than the clock
 * taken, oldest first. If there were only records written after the clock
 * was read, once more.
 *
 * Context: the trace's reader (one at a time).
 * Return: the number of bytes of records copied to @out.
 */
size_t pgf_pop(struct pgf_trace *t, void *out, size_t size, bool *eof)
{
	size_t done = 0;
	bool dead, empty;

	*eof = false;
	spin_lock(&t->lock);
	dead = t->dead;
	if (t->unread_len) {
		done = __pgf_pop_unread(t, out, size);
		if (t->unread_len) {
			spin_unlock(&t->lock);
			return done;
		}
	}
	spin_unlock(&t->lock);
	/* After dead was read: when it was set, nothing more comes. */
	done += pgf_merge(t, out + done, size - done, &empty);
	if (!done && !empty)
		done = pgf_merge(t, out, size, &empty);
	*eof = dead && empty;
	return done;
}

/**
 * pgf_unread() - give back records a reader took but did not read
 * @t: the trace, whose reader is closing its file
 * @recs: a buffer from kmalloc() holding the records
 * @cap: its size in bytes
 * @off: where in it the first record not read starts
 * @len: the bytes of records from there on, whole records
 *
 * A reader takes records out of the rings in batches and formats them as
 * it is read; when it closes its file before reading them all, they go
 * back in front of everything else, so that the next reader reads them
 * first and nothing is lost. The trace keeps @recs for that (then the
 * caller must not free it) unless it still holds records given back
 * before, which the closing reader had not taken all of: then those are
 * all it can hold in front of, and @recs stays the caller's.
 *
 * Return: true if the trace took @recs.
 */
bool pgf_unread(struct pgf_trace *t, void *recs, size_t cap, size_t off,
		size_t len)
{
	bool taken = false;

	spin_lock(&t->lock);
	if (!t->unread_len) {
		memmove(recs, recs + off, len);
		t->unread = recs;
		t->unread_cap = cap;
		t->unread_len = len;
		taken = true;
		pgf_charge(t, cap, true);
	} else if (!WARN_ON_ONCE(len > t->unread_cap - t->unread_len)) {
		/* They were taken from the ones given back: room for both. */
		memmove(t->unread + len, t->unread, t->unread_len);
		memcpy(t->unread, recs + off, len);
		t->unread_len += len;
	}
	spin_unlock(&t->lock);
	return taken;
}
