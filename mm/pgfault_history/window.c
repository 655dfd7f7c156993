// SPDX-License-Identifier: GPL-2.0
/*
 * pgfault_history: window mode, where at most K pages of a traced process
 * stay accessible and every reference outside them faults (Tapeworm,
 * kVMTrace).
 *
 * DOC: pgfault_history window mode
 *
 * "1 window=K" starts a trace in which each fault of the process on its own
 * address space admits the faulting page to a window of K pages, first in,
 * first out; once more than K are admitted, the page admitted longest ago
 * leaves the window and is re-armed (see mm/pgfault_history/rearm.c), so
 * its next access faults again. The start re-arms every page, so the
 * window starts empty. The faults of the trace are then the references
 * that miss in a K-page FIFO of page addresses.
 *
 * The window: a ring of page addresses in admission order (&pgf_window.fifo,
 * entries @out to @in), whose newest K entries are the window and whose
 * older ones are evictions waiting to be re-armed, and an open-addressing
 * hash set of the addresses in the window (&pgf_window.set, linear probing,
 * deletion by backward shift, at most half full). A fault on a page already
 * in the window (a write after a read that mapped the zero page, a page
 * unmapped and mapped again) is recorded but admits nothing, as a FIFO hit.
 *
 * Locks: the fault path admits under &pgf_window.lock, a spinlock that every
 * thread of the process takes. It is the one exception to the rule that the
 * threads of a process share no lock in the fault path (each records into
 * its own CPU's ring): a FIFO window of the whole process is one order that
 * all of its threads' faults go into. The window itself is freed under
 * &pgf_trace.mutex, after an RCU grace period for the fault path.
 *
 * Deferred re-arms: the fault path may hold only the per-VMA lock of the
 * faulting VMA, under which no other VMA's page table may be walked. The
 * re-arm of an evicted page is therefore deferred to a task work that the
 * faulting thread runs on its way back to user mode, under the mmap lock
 * for reading (and &pgf_trace.mutex, which keeps the window). The
 * deviation from the FIFO model that this brings is bounded:
 *
 * - A thread's user-mode references never see it: the re-arms of a fault
 *   are done before the thread returns to the instruction that faulted.
 * - Within one system call, pages the kernel touches for the process (a
 *   read() into a buffer) are admitted as they fault, and the pages they
 *   evict stay accessible until the call returns: a second kernel access
 *   to such a page in the same call does not fault.
 * - Another thread of the process may use an evicted page without a fault
 *   until the evicting thread returns to user mode.
 * - Evictions waiting at once are bounded by PGF_WINDOW_SLACK; one more
 *   overruns the window, which is then emptied: every page re-armed, as at
 *   the start, and a "rearm ... window" record says so.
 *
 * At most PGF_WINDOW_TWORKS threads have a re-arm task work queued at once;
 * a thread that finds none free takes one back from a thread that sleeps
 * (a system call that faulted in the kernel, then waits: it would not
 * return to user mode for as long), else leaves its evictions to them.
 *
 * What else the model leaves out, and why: pages a fault maps besides its
 * own (a transparent huge page mapped whole at its first touch) enter
 * without being admitted; file read faults map no neighbours while a
 * re-reference mode runs (should_fault_around()). Pages of mappings that
 * cannot be re-armed (hugetlb, VM_PFNMAP, VM_IO) are admitted when they
 * fault and never fault again. mremap() re-arms what it moved, and
 * mprotect() keeps re-armed pages re-armed (pgfault_history_moved(),
 * pgfault_history_mprotect_pte()); a page the kernel itself maps
 * accessible again (migration, KSM) is not followed: write "rearm" to
 * empty the window and start over.
 */
#define pr_fmt(fmt) "pgfault: " fmt

#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/pgfault_history.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/task_work.h>

#include "internal.h"

/* Evictions that may wait for their re-arm before the window overruns. */
#define PGF_WINDOW_SLACK	1024

/* Addresses a drain takes from the window at a time. */
#define PGF_WINDOW_BATCH	32

/**
 * struct pgf_window - the pages that stay accessible in window mode
 * @lock: everything below; taken in the fault path
 * @k: the window's size in pages
 * @cap: slots of @fifo, @k + PGF_WINDOW_SLACK
 * @in: admissions so far; the newest entry is @fifo[(@in - 1) % @cap]
 * @out: entries before this one have been taken for re-arming
 * @overrun: evictions overran @fifo: empty the window at the next drain
 * @set_bits: @set has 1 << @set_bits slots
 * @fifo: page addresses in the order they were admitted
 * @set: the addresses of the window, each with bit 0 set; 0 is a free slot
 * @rcu: frees the window after the fault path is done with it
 */
struct pgf_window {
	spinlock_t lock;	/* the rest; taken in the fault path */
	unsigned int k;
	unsigned int cap;
	u64 in;
	u64 out;
	bool overrun;
	unsigned int set_bits;
	unsigned long *fifo;
	unsigned long *set;
	struct rcu_head rcu;
};

static unsigned long *pgf_set_slot(struct pgf_window *w, unsigned long key)
{
	unsigned long mask = (1UL << w->set_bits) - 1;
	unsigned long i = hash_long(key >> PAGE_SHIFT, w->set_bits);

	while (w->set[i] && w->set[i] != key)
		i = (i + 1) & mask;
	return &w->set[i];
}

static bool __pgf_set_has(struct pgf_window *w, unsigned long addr)
{
	return *pgf_set_slot(w, addr | 1);
}

static void __pgf_set_add(struct pgf_window *w, unsigned long addr)
{
	*pgf_set_slot(w, addr | 1) = addr | 1;
}

/* Remove @addr, shifting back the entries that probed past its slot. */
static void __pgf_set_del(struct pgf_window *w, unsigned long addr)
{
	unsigned long mask = (1UL << w->set_bits) - 1;
	unsigned long *slot = pgf_set_slot(w, addr | 1);
	unsigned long hole, i, home;

	if (!*slot)
		return;
	hole = slot - w->set;
	for (i = (hole + 1) & mask; w->set[i]; i = (i + 1) & mask) {
		home = hash_long(w->set[i] >> PAGE_SHIFT, w->set_bits);
		/* Can the entry at i move back to the hole? */
		if (((i - home) & mask) >= ((i - hole) & mask)) {
			w->set[hole] = w->set[i];
			hole = i;
		}
	}
	w->set[hole] = 0;
}

/**
 * pgf_window_alloc() - a window of @k pages, empty
 * @k: its size, PGF_WINDOW_MIN to PGF_WINDOW_MAX
 *
 * Return: the window, or NULL without memory.
 */
struct pgf_window *pgf_window_alloc(unsigned int k)
{
	unsigned int set_bits = ilog2(roundup_pow_of_two(2 * k));
	unsigned int cap = k + PGF_WINDOW_SLACK;
	struct pgf_window *w;

	w = kzalloc(sizeof(*w), GFP_KERNEL_ACCOUNT);
	if (!w)
		return NULL;
	w->fifo = kvmalloc_array(cap, sizeof(*w->fifo), GFP_KERNEL_ACCOUNT);
	w->set = kvcalloc(1UL << set_bits, sizeof(*w->set),
			  GFP_KERNEL_ACCOUNT);
	if (!w->fifo || !w->set) {
		pgf_window_free(w);
		return NULL;
	}
	spin_lock_init(&w->lock);
	w->k = k;
	w->cap = cap;
	w->set_bits = set_bits;
	return w;
}

/**
 * pgf_window_free() - free a window nobody can reach
 * @w: the window, or NULL
 */
void pgf_window_free(struct pgf_window *w)
{
	if (!w)
		return;
	kvfree(w->fifo);
	kvfree(w->set);
	kfree(w);
}

static void pgf_window_free_rcu(struct rcu_head *head)
{
	pgf_window_free(container_of(head, struct pgf_window, rcu));
}

/**
 * __pgf_window_set() - install or remove the window of a trace
 * @t: the trace
 * @w: the new window, or NULL for none
 *
 * The old one is freed once the fault path cannot be using it.
 *
 * Context: &pgf_trace.mutex held.
 */
void __pgf_window_set(struct pgf_trace *t, struct pgf_window *w)
{
	struct pgf_window *old;

	lockdep_assert_held(&t->mutex);
	old = rcu_replace_pointer(t->window, w, lockdep_is_held(&t->mutex));
	/* The fault path's word: a fault in window mode goes the long way. */
	WRITE_ONCE(t->windowed, !!w);
	if (old)
		call_rcu(&old->rcu, pgf_window_free_rcu);
}

/* Empty the window; the caller re-arms every page. */
static void pgf_window_clear(struct pgf_window *w)
{
	spin_lock(&w->lock);
	memset(w->set, 0, sizeof(*w->set) << w->set_bits);
	w->out = w->in;
	w->overrun = false;
	spin_unlock(&w->lock);
}

/**
 * __pgf_window_empty() - empty the window of a trace, if it has one
 * @t: the trace; every page of its process is about to be re-armed
 *
 * Context: &pgf_trace.mutex held.
 */
void __pgf_window_empty(struct pgf_trace *t)
{
	struct pgf_window *w;

	w = rcu_dereference_protected(t->window, lockdep_is_held(&t->mutex));
	if (w)
		pgf_window_clear(w);
}

static void pgf_window_task_work(struct callback_head *head);

/*
 * Queue slot @i, which current owns (its bit set, a reference to the trace
 * taken for it), on current; false if current is exiting.
 */
static bool pgf_window_queue_slot(struct pgf_trace *t, int i)
{
	struct pgf_twork *tw = &t->window_twork[i];

	get_task_struct(current);
	WRITE_ONCE(tw->task, current);
	init_task_work(&tw->head, pgf_window_task_work);
	if (!task_work_add(current, &tw->head, TWA_RESUME))
		return true;
	WRITE_ONCE(tw->task, NULL);
	put_task_struct(current);
	return false;
}

/*
 * Every slot is queued: take one back from a thread that sleeps, for
 * current to queue. One task_work_cancel() succeeds; a work that runs
 * already, or was queued again since, stays. A task read from a slot is
 * there until it runs the work, before it exits: under rcu_read_lock(),
 * it is not freed before the look ends. Returns the slot (its bit and its
 * reference to the trace now current's), or -1.
 */
static int pgf_window_take_slot(struct pgf_trace *t)
{
	struct task_struct *task;
	struct pgf_twork *tw;
	int i;

	rcu_read_lock();
	for (i = 0; i < PGF_WINDOW_TWORKS; i++) {
		tw = &t->window_twork[i];
		task = READ_ONCE(tw->task);
		if (!task || task == current || task_is_running(task) ||
		    !task_work_cancel(task, &tw->head))
			continue;
		rcu_read_unlock();
		/* Cancelled: nobody runs it, nobody queues it meanwhile. */
		WRITE_ONCE(tw->task, NULL);
		put_task_struct(task);		/* the slot's */
		return i;
	}
	rcu_read_unlock();
	return -1;
}

/*
 * Have current re-arm what the window evicted before it returns to user.
 * Not a user worker (io_uring, vhost): it never returns to user mode, and
 * a slot parked on it would stay taken; the next fault of another thread
 * re-arms what it evicted.
 */
static void pgf_window_queue(struct pgf_trace *t)
{
	int i;

	if (current->flags & (PF_USER_WORKER | PF_IO_WORKER))
		return;

	for (i = 0; i < PGF_WINDOW_TWORKS; i++) {
		if (test_and_set_bit(PGF_WINDOW_TWORK0 + i, &t->bits))
			continue;
		refcount_inc(&t->ref);
		goto queue;
	}
	/* All queued on other threads: they re-arm these too, if they run. */
	i = pgf_window_take_slot(t);
	if (i < 0)
		return;
queue:
	if (pgf_window_queue_slot(t, i))
		return;
	/* Exiting: nothing to return to. Not the last reference. */
	refcount_dec(&t->ref);
	clear_bit(PGF_WINDOW_TWORK0 + i, &t->bits);
}

/**
 * __pgf_window_admit() - a fault made a page accessible: admit it
 * @t: the trace of current's process
 * @addr: the faulting address, in current's mm
 *
 * Context: the fault path, any lock of the fault held.
 */
void __pgf_window_admit(struct pgf_trace *t, unsigned long addr)
{
	struct pgf_window *w;
	bool evicted = false;

	addr &= PAGE_MASK;
	rcu_read_lock();
	w = rcu_dereference(t->window);
	if (!w)
		goto out_unlock_rcu;
	spin_lock(&w->lock);
	if (__pgf_set_has(w, addr))
		goto out_unlock;	/* a hit: the window is unchanged */
	if (w->in - w->out == w->cap) {
		/* The oldest waiting eviction is dropped: start over. */
		w->out++;
		w->overrun = true;
	}
	w->fifo[w->in++ % w->cap] = addr;
	__pgf_set_add(w, addr);
	if (w->in - w->out > w->k) {
		/* The page admitted K admissions ago leaves the window. */
		__pgf_set_del(w, w->fifo[(w->in - w->k - 1) % w->cap]);
		evicted = true;
	}
out_unlock:
	spin_unlock(&w->lock);
out_unlock_rcu:
	rcu_read_unlock();
	if (evicted)
		pgf_window_queue(t);
}

/*
 * Take up to PGF_WINDOW_BATCH evicted pages to re-arm into @addrs, leaving
 * out those admitted again since; returns how many, or -1 if the window
 * overran and was emptied instead.
 */
static int pgf_window_take(struct pgf_window *w, unsigned long *addrs)
{
	unsigned long addr;
	int n = 0;

	spin_lock(&w->lock);
	if (w->overrun) {
		spin_unlock(&w->lock);
		pgf_window_clear(w);
		return -1;
	}
	while (n < PGF_WINDOW_BATCH && w->in - w->out > w->k) {
		addr = w->fifo[w->out++ % w->cap];
		if (!__pgf_set_has(w, addr))
			addrs[n++] = addr;
	}
	spin_unlock(&w->lock);
	return n;
}

/*
 * Re-arm what the window of @t evicted; mmap lock and mutex held. The
 * mutex is let go between batches (pgf_walk_pause()): the drain ends if
 * the trace stopped or started again meanwhile, its window then gone.
 */
static void __pgf_window_drain(struct pgf_trace *t, struct mm_struct *mm)
{
	unsigned long addrs[PGF_WINDOW_BATCH];
	unsigned long pages, run = t->runs;
	struct pgf_window *w;
	int err, i, n;

	w = rcu_dereference_protected(t->window, lockdep_is_held(&t->mutex));
	if (!w)
		return;
	while ((n = pgf_window_take(w, addrs)) != 0) {
		if (n < 0) {
			/* Overran: every page, as at the start. */
			err = pgf_rearm_mm(mm, &pages, t);
			if (err == -ESRCH)
				return;
			if (!err)
				__pgf_rearm_record(t, pages, PGF_REARM_WINDOW);
			continue;
		}
		for (i = 0; i < n; i++)
			pgf_rearm_page(mm, addrs[i]);
		if (pgf_walk_pause(mm, t, run))
			return;
	}
}

/* The task work: a thread of the process, on its way to user mode. */
static void pgf_window_task_work(struct callback_head *head)
{
	struct pgf_twork *tw = container_of(head, struct pgf_twork, head);
	struct pgf_trace *t = tw->t;
	struct mm_struct *mm = current->mm;

	/* Free for the next eviction; this drain takes what is there. */
	WRITE_ONCE(tw->task, NULL);
	put_task_struct(current);	/* the slot's; current holds its own */
	clear_bit(PGF_WINDOW_TWORK0 + (tw - t->window_twork), &t->bits);
	if (!mm || (current->flags & PF_EXITING) ||
	    mmap_read_lock_killable(mm))
		goto out_put;
	mutex_lock(&t->mutex);
	if (READ_ONCE(t->active) && t->mm == mm)
		__pgf_window_drain(t, mm);
	mutex_unlock(&t->mutex);
	mmap_read_unlock(mm);
out_put:
	pgf_trace_put(t);
}

/**
 * pgf_window_twork_init() - set up the task works of a new trace
 * @t: the trace
 */
void pgf_window_twork_init(struct pgf_trace *t)
{
	int i;

	for (i = 0; i < PGF_WINDOW_TWORKS; i++)
		t->window_twork[i].t = t;
}

/**
 * __pgf_window_restart() - empty the window of a new address space
 * @t: the trace; an exec has just given current's process a new mm
 *
 * The pages the exec made (the arguments, the stack) are re-armed by
 * current before it returns to user mode, with a "rearm ... window"
 * record.
 *
 * Context: &pgf_trace.mutex held.
 */
void __pgf_window_restart(struct pgf_trace *t)
{
	struct pgf_window *w;

	w = rcu_dereference_protected(t->window, lockdep_is_held(&t->mutex));
	if (!w)
		return;
	pgf_window_clear(w);
	spin_lock(&w->lock);
	w->overrun = true;	/* the drain re-arms every page */
	spin_unlock(&w->lock);
	pgf_window_queue(t);
}
