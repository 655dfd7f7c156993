// SPDX-License-Identifier: GPL-2.0
/*
 * pgfault_history: the trace buffer, a byte ring of variable-length
 * records with one producer lock, written by the traced process and read
 * by the proc file.
 *
 * DOC: pgfault_history trace buffer
 *
 * The buffer (&struct pgf_buf) is one allocation whose start holds the
 * meta information (size, head, tail, bytes used) followed by a byte ring
 * of variable-length records (&struct pgf_rec, multiples of 8 bytes, never
 * split: a PAD record fills the end when one does not fit). It starts at
 * 64 KiB and doubles, up to the limit taken from the sysctl
 * vm.pgfault_history_buffer_kb (default 64) when tracing starts. Every
 * allocation is charged to the memory cgroup of the task that causes it
 * (the growth of the ring to the traced process's, from a work item).
 *
 * Locking: &pgf_trace.lock, a spinlock taken in process context only,
 * protects the buffer and the trace's state flags. Producers are the
 * faulting threads, the region code, start, stop, exec and exit; the
 * consumer is the reader of the proc file. Neither ever sleeps or touches
 * user memory with the lock held: the reader moves whole records into a
 * kernel buffer under the lock and formats and copies them out after
 * dropping it, so a reader that faults on its own buffer cannot deadlock
 * with a producer. A producer never allocates, frees or waits: when the
 * ring is half full, a work item (pgf_grow_work()) allocates the next
 * size outside the lock and moves the records over under it; records that
 * come while the ring is full before that are dropped and counted, as at
 * the limit. Region records, written where sleeping or GFP_NOWAIT is
 * allowed, may grow it themselves.
 *
 * Readers sleep on &pgf_trace.wait; producers wake them only when the
 * reader said it is about to sleep (a flag set under the lock by the wait
 * condition, after the reader queued itself), and then in batches: when
 * the ring is a quarter full, or one tick after the first record or loss
 * (a timer). No barrier in the fault path, no wake-up per record; a stop
 * and the end of the trace wake the reader at once.
 *
 * When the buffer is full at the limit a record is dropped and counted:
 * records of faults that /proc/<pid>/stat counts apart from all others.
 * Before the next record that is kept, a LOST record carrying the exact
 * counts is written; if the loss is the last thing that happens, the
 * reader makes the LOST record itself once the ring is empty. A small
 * reserve at the end of the ring is kept for the control records (start,
 * stop, exit, lost), and a part of it for the last record alone, so the
 * end of a trace always shows. A buffer that fails to grow (no memory, or
 * the memory cgroup's limit) stays at its size. The region
 * records of one change, or a whole layout, go in together or not at all
 * (pgf_emit_regions()); while the reader lacks a layout, fault records
 * are dropped and counted, so every fault kept lies in a region the reader
 * knows. A reader takes records out in batches and formats them as it is
 * read; what it took and did not read when it closes its file goes back in
 * front of the ring for the next reader (pgf_unread()). Nothing is lost
 * silently: the records read plus the lost counts equal what happened.
 */
#define pr_fmt(fmt) "pgfault: " fmt

#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/pgfault_history.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>

/*
 * Bytes of the ring kept for the last record of a trace (an EXIT, or a
 * STOP for credentials) with the LOST before it, twice over for the PAD a
 * wrap may need in front of them; and as much again for the other control
 * records (start, stop), so that a trace started and stopped over and over
 * on a full ring cannot crowd its end out.
 */
#define PGF_FINAL_RESERVE	(2 * (sizeof(struct pgf_rec) + sizeof(struct pgf_exit_rec)))
#define PGF_RESERVE		(2 * PGF_FINAL_RESERVE)

/* Bytes of buffers held by all traces, for /sys/kernel/debug/pgfault_history. */
atomic_long_t pgf_nr_buf_bytes = ATOMIC_LONG_INIT(0);

/**
 * pgf_buf_alloc() - allocate an empty ring
 * @bytes: its size, meta information included
 * @gfp: allocation flags
 *
 * Return: the ring, or NULL.
 */
struct pgf_buf *pgf_buf_alloc(size_t bytes, gfp_t gfp)
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

/* Room for @len more bytes, wrapping with a PAD record if needed. */
static struct pgf_rec *__pgf_reserve(struct pgf_trace *t, u32 len,
				     enum pgf_kind kind)
{
	struct pgf_buf *b = t->buf;
	u32 room = b->size - b->used;
	u32 keep = kind == PGF_KIND_FINAL ? 0 : kind == PGF_KIND_CONTROL ?
		   PGF_FINAL_RESERVE : PGF_RESERVE;
	u32 to_end, need;
	struct pgf_rec *rec;

	lockdep_assert_held(&t->lock);
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

/* Copy the ring, in order, into a bigger buffer. */
static void __pgf_move(struct pgf_buf *to, const struct pgf_buf *from)
{
	u32 first;

	if (!from->used)
		return;
	if (from->tail < from->head) {
		memcpy(to->data, from->data + from->tail, from->used);
	} else {
		first = from->size - from->tail;
		memcpy(to->data, from->data + from->tail, first);
		memcpy(to->data + first, from->data, from->head);
	}
	to->used = from->used;
	to->head = from->used == to->size ? 0 : from->used;
}

/*
 * Grow the buffer to the next size, allocating with @gfp. Called and
 * returns with t->lock held, drops it to allocate. Returns false if the
 * buffer cannot grow.
 */
static bool __pgf_grow(struct pgf_trace *t, gfp_t gfp)
{
	struct pgf_buf *nb, *old;
	size_t want;

	lockdep_assert_held(&t->lock);
	if (t->growing || t->alloc >= t->limit)
		return false;
	want = min(t->alloc * 2, t->limit);
	t->growing = true;
	spin_unlock(&t->lock);
	nb = pgf_buf_alloc(want, gfp | __GFP_NOWARN | __GFP_NORETRY);
	spin_lock(&t->lock);
	t->growing = false;
	if (!nb && gfpflags_allow_blocking(gfp)) {
		/*
		 * No memory (or the memory cgroup's limit): the buffer stays
		 * at this size, rather than every later record trying again.
		 */
		t->limit = t->alloc;
		return false;
	}
	if (!nb)
		return false;	/* could not wait: a later record tries */
	old = t->buf;
	__pgf_move(nb, old);
	t->buf = nb;
	atomic_long_add(want - t->alloc, &pgf_nr_buf_bytes);
	t->alloc = want;
	spin_unlock(&t->lock);
	kvfree(old);
	spin_lock(&t->lock);
	return true;
}

/**
 * __pgf_count_lost() - count a record that was dropped
 * @t: the trace, its lock held
 * @kind: what the record counts as
 */
void __pgf_count_lost(struct pgf_trace *t, enum pgf_kind kind)
{
	lockdep_assert_held(&t->lock);
	if (kind == PGF_KIND_FAULT) {
		t->lost_faults++;
		t->total_lost_faults++;
	} else {
		t->lost_other++;
	}
}

/**
 * __pgf_write() - write a record into the ring as it is
 * @t: the trace, its lock held
 * @src: the record
 * @kind: what it counts as
 *
 * The LOST record that a loss before it calls for goes first, in the same
 * reservation, so that either both are written or, when they do not fit,
 * nothing is: a full ring never fills its reserve with LOST records.
 *
 * Return: false if nothing was written.
 */
bool __pgf_write(struct pgf_trace *t, const struct pgf_rec *src,
		 enum pgf_kind kind)
{
	u32 lost = t->lost_faults || t->lost_other ? sizeof(struct pgf_rec) : 0;
	struct pgf_rec *rec;

	lockdep_assert_held(&t->lock);
	rec = __pgf_reserve(t, lost + src->len, kind);
	if (!rec)
		return false;
	if (lost) {
		*rec = (struct pgf_rec) {
			.type = PGF_REC_LOST, .len = sizeof(*rec),
			.a = t->lost_faults, .b = t->lost_other,
		};
		t->lost_faults = 0;
		t->lost_other = 0;
		rec++;
	}
	/* Fault records, the bulk, are one fixed-size copy. */
	if (src->len == sizeof(*src))
		*rec = *src;
	else
		memcpy(rec, src, src->len);
	if (kind == PGF_KIND_FAULT)
		t->nr_faults++;
	return true;
}

/* Write @nr records of @len bytes in all, all or none; the lock held. */
static bool __pgf_write_all(struct pgf_trace *t, const void *recs, size_t len)
{
	struct pgf_buf *b = t->buf;
	u32 head = b->head, tail = b->tail, used = b->used;
	u64 lost_faults = t->lost_faults, lost_other = t->lost_other;
	const struct pgf_rec *r;
	size_t off;

	lockdep_assert_held(&t->lock);
	for (off = 0; off < len; off += r->len) {
		r = recs + off;
		if (!__pgf_write(t, r, PGF_KIND_OTHER)) {
			/* Undo: the reader cannot have seen any of it. */
			b->head = head;
			b->tail = tail;
			b->used = used;
			t->lost_faults = lost_faults;
			t->lost_other = lost_other;
			return false;
		}
	}
	return true;
}

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
 * Does a record just written (or dropped) need to wake the reader? Only if
 * the reader said it is going to sleep (pgf_readable() found nothing,
 * after it had queued itself on t->wait), and then not at once: when the
 * ring is a quarter full, or else one tick later (t->wake_timer, armed
 * once). So the fault path pays no memory barrier, and a reader that keeps
 * up is woken for batches, not once per record. @arm is set when the
 * caller must arm the timer; the reference it takes is the timer's.
 */
static bool __pgf_want_wake(struct pgf_trace *t, bool *arm)
{
	lockdep_assert_held(&t->lock);
	*arm = false;
	if (!t->reader_sleeps)
		return false;
	if (t->buf->used >= t->buf->size / 4) {
		t->reader_sleeps = false;
		return true;
	}
	if (!READ_ONCE(t->wake_armed)) {
		WRITE_ONCE(t->wake_armed, true);
		refcount_inc(&t->ref);
		*arm = true;
	}
	return false;
}

/**
 * pgf_wake_timer() - the deferred wake-up of the reader
 * @timer: &pgf_trace.wake_timer
 *
 * It runs in softirq context, where t->lock (taken with plain spin_lock()
 * in process context) must not be taken: it clears wake_armed before
 * waking, so a record written after the reader has woken and gone back to
 * sleep arms the timer again.
 */
void pgf_wake_timer(struct timer_list *timer)
{
	struct pgf_trace *t = from_timer(t, timer, wake_timer);

	WRITE_ONCE(t->wake_armed, false);
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
 * The ring is half full and may grow: have a work item grow it (once at a
 * time, holding a reference), so that the producer, a faulting thread,
 * never allocates or frees memory itself.
 */
static void __pgf_want_grow(struct pgf_trace *t)
{
	lockdep_assert_held(&t->lock);
	if (t->grow_queued || t->growing || t->alloc >= t->limit || t->dead ||
	    t->buf->used < t->buf->size / 2)
		return;
	t->grow_queued = true;
	refcount_inc(&t->ref);
	/* Any CPU: the producer's may stay busy faulting until the tick. */
	queue_work(system_unbound_wq, &t->grow_work);
}

/**
 * pgf_grow_work() - grow a trace's ring, as a producer asked
 * @work: &pgf_trace.grow_work
 *
 * Context: a worker; may sleep.
 */
void pgf_grow_work(struct work_struct *work)
{
	struct pgf_trace *t = container_of(work, struct pgf_trace, grow_work);

	struct mem_cgroup *old = set_active_memcg(t->memcg);

	spin_lock(&t->lock);
	if (!t->dead)
		__pgf_grow(t, GFP_KERNEL_ACCOUNT);
	t->grow_queued = false;
	spin_unlock(&t->lock);
	set_active_memcg(old);
	pgf_trace_put(t);
}

/**
 * pgf_emit() - append a record to a trace
 * @t: the trace
 * @src: the record
 * @kind: what to count it as if it has to be dropped
 *
 * Counts the record as lost if the ring is full; a fault record is also
 * dropped, and counted, while the reader lacks a layout to place it in.
 * It never allocates, frees or waits: once the ring is half full, a work
 * item grows it (pgf_grow_work()), up to the limit. Nothing is written to
 * a trace that has ended.
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
	if (src->type != PGF_REC_FAULT || !t->need_layout)
		kept = __pgf_write(t, src, kind);
	if (!kept)
		__pgf_count_lost(t, kind);
	__pgf_want_grow(t);
	wake = __pgf_want_wake(t, &arm);
out_unlock:
	spin_unlock(&t->lock);
	pgf_after_write(t, wake, arm);
	return kept;
}

/**
 * pgf_emit_regions() - append the region records of one change
 * @t: the trace
 * @recs: the records, back to back
 * @len: their total length in bytes
 * @nr: how many there are
 * @layout: they are a whole layout (a LAYOUT record and its MAPs)
 * @gfp: how the buffer may grow for them (GFP_NOWAIT under the mmap
 *       write lock)
 *
 * All of them are written or none: if they do not fit in the buffer at its
 * limit, all @nr are counted as lost and the reader is owed a layout;
 * fault records are dropped until it has one. A layout that is written
 * settles that debt. A change is written only while the trace is active
 * (a stop may have come since it was built); a layout is the start's.
 *
 * Context: process context, the traced mm's mmap lock held.
 * Return: true if the records were kept.
 */
bool pgf_emit_regions(struct pgf_trace *t, const void *recs, size_t len,
		      unsigned int nr, bool layout, gfp_t gfp)
{
	bool kept = false, wake = false, arm = false;

	spin_lock(&t->lock);
	if (t->dead || (!layout && !t->active))
		goto out_unlock;
	for (;;) {
		kept = __pgf_write_all(t, recs, len);
		if (kept || !__pgf_grow(t, gfp) || t->dead)
			break;
	}
	if (kept && layout) {
		t->need_layout = false;
	} else if (!kept && !t->dead) {
		t->lost_other += nr;
		t->need_layout = true;
	}
	__pgf_want_grow(t);
	if (!t->dead)
		wake = __pgf_want_wake(t, &arm);
out_unlock:
	spin_unlock(&t->lock);
	pgf_after_write(t, wake, arm);
	return kept;
}

/**
 * __pgf_control() - write a start, stop or exit record
 * @t: the trace, its lock held
 * @type: the record type
 * @flags: its flags
 * @a: its first value
 * @b: its second value
 *
 * Control records may use the reserve and never grow the buffer; the
 * last record of a trace (a STOP for credentials) may use all of it.
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
	if (!__pgf_write(t, &rec, kind))
		__pgf_count_lost(t, kind);
}

/**
 * pgf_readable() - is there something for the reader to do
 * @t: the trace
 *
 * Context: the caller has queued itself on @t->wait (a wait condition, or
 * poll after poll_wait()): when nothing is there, the next record written
 * wakes it.
 * Return: true if records (or a pending loss count) wait, or the trace has
 * ended (the reader gets EOF).
 */
bool pgf_readable(struct pgf_trace *t)
{
	bool ret;

	spin_lock(&t->lock);
	ret = t->buf->used || t->unread_len || t->lost_faults ||
	      t->lost_other || t->dead;
	/* The caller is on t->wait: the next record must wake it. */
	if (!ret)
		t->reader_sleeps = true;
	spin_unlock(&t->lock);
	return ret;
}

/*
 * Take whole records given back by a reader that closed (pgf_unread()):
 * they come before everything in the ring. Returns the bytes taken; the
 * ring is not to be read while some are left.
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
	}
	return n;
}

/**
 * pgf_pop() - take whole records out of the trace
 * @t: the trace
 * @out: kernel buffer for the records
 * @size: its size, at least PGF_REC_MAX bytes
 * @eof: set when the trace has ended and everything has been taken
 *
 * Return: the number of bytes of records copied to @out.
 */
size_t pgf_pop(struct pgf_trace *t, void *out, size_t size, bool *eof)
{
	struct pgf_buf *b;
	struct pgf_rec *rec;
	size_t done = 0;

	spin_lock(&t->lock);
	b = t->buf;
	if (t->unread_len) {
		done = __pgf_pop_unread(t, out, size);
		if (t->unread_len)
			goto out_unlock;
	}
	while (b->used) {
		rec = (struct pgf_rec *)(b->data + b->tail);
		if (rec->type != PGF_REC_PAD) {
			if (rec->len > size - done)
				break;
			memcpy(out + done, rec, rec->len);
			done += rec->len;
		}
		b->tail += rec->len;
		if (b->tail == b->size)
			b->tail = 0;
		b->used -= rec->len;
	}
	/* A loss with nothing kept after it: report it now. */
	if (!b->used && (t->lost_faults || t->lost_other) &&
	    size - done >= sizeof(*rec)) {
		rec = out + done;
		*rec = (struct pgf_rec) {
			.type = PGF_REC_LOST, .len = sizeof(*rec),
			.a = t->lost_faults, .b = t->lost_other,
		};
		t->lost_faults = 0;
		t->lost_other = 0;
		done += sizeof(*rec);
	}
out_unlock:
	*eof = t->dead && !b->used && !t->unread_len && !t->lost_faults &&
	       !t->lost_other;
	spin_unlock(&t->lock);
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
 * A reader takes records out of the ring in batches and formats them as it
 * is read; when it closes its file before reading them all, they go back in
 * front of everything else, so that the next reader reads them first and
 * nothing is lost. The trace keeps @recs for that (then the caller must not
 * free it) unless it still holds records given back before, which the
 * closing reader had not taken all of: then those are all it can hold in
 * front of, and @recs stays the caller's.
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
	} else if (!WARN_ON_ONCE(len > t->unread_cap - t->unread_len)) {
		/* They were taken from the ones given back: room for both. */
		memmove(t->unread + len, t->unread, t->unread_len);
		memcpy(t->unread, recs + off, len);
		t->unread_len += len;
	}
	spin_unlock(&t->lock);
	return taken;
}
