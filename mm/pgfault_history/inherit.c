// SPDX-License-Identifier: GPL-2.0
/*
 * pgfault_history process trees: the traces of the processes a traced
 * process creates, when it is traced with inheritance ("1 inherit").
 *
 * DOC: pgfault_history process trees
 *
 * A trace started with "inherit" gives every process its process creates
 * (fork(), vfork(), clone() without CLONE_THREAD) a trace of its own, in
 * the same mode, inheritance included, so children's children are traced
 * too. Threads are not new processes: they share their process's trace.
 *
 * - pgfault_history_fork(), where copy_process() can still fail and may
 *   sleep, once the child has its mm and its pid: the child's trace is
 *   made, charged to the creator's memory cgroup (the child's, unless
 *   CLONE_INTO_CGROUP moves it), and started as pgf_start() would: the
 *   start record and the child's whole layout, taken under its mmap lock.
 *   It is active before the child can run, so every fault the child takes
 *   from its first instruction is recorded. If it cannot be made (no
 *   memory), the child is not traced; the fork never fails for tracing.
 * - pgfault_history_forked(), past the last point of failure, once the
 *   child is in /proc and before it is woken: the creator's trace gets a
 *   "child" record (its time, the creating thread, the child's pid, and
 *   "untraced" if it got no trace), a control record that may use the
 *   ring's reserve; and the child's trace joins the creator's list of
 *   children, holding a reference.
 * - pgfault_history_fork_cancel(): copy_process() failed after the first
 *   hook: the child's trace ends, with no record, and goes with its
 *   signal_struct. The creator's trace never heard of it.
 *
 * The reader of the creator's trace claims a child's trace from that list
 * with the PGFAULT_HISTORY_IOC_CHILD ioctl, which returns a new file
 * reading it (see proc.c): this works whether the child
 * still runs, has exited, or has been reaped and its /proc directory is
 * gone, so a reader that follows the "child" records misses no process
 * and no record. The list holds each child's trace, records and all,
 * until it is claimed or the creator's trace is freed (its process reaped
 * and its reader gone). Permission: the claim is made through a file that
 * is the creator's reader, opened by someone allowed to ptrace-attach to
 * it; the child was created with the creator's credentials, and an exec
 * that raises the child's ends its trace there, as for any process.
 *
 * A child created with CLONE_VM (vfork(), posix_spawn()) shares its
 * creator's mm until it execs or exits: its faults go to its own trace
 * (the fault hook looks at current's process), and so do the region
 * changes its threads make; the other trace records them before one of
 * its threads next returns to user space or takes a traced fault (the
 * changes are noted in the mm, and two traces of one mm compare the whole
 * tree: see the DOC: in mm/pgfault_history/regions.c). In window
 * mode the shared mm is not re-armed for the child's empty window.
 */
#define pr_fmt(fmt) "pgfault: " fmt

#include <linux/list.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/pgfault_history.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>

#include "internal.h"

void pgf_fork(struct task_struct *p, struct pid *pid, u64 clone_flags)
{
	struct pgf_trace *pt = pgf_trace_of(current->signal), *t;
	struct mm_struct *mm = p->mm;
	struct pgf_window *w = NULL;
	struct pgf_mode mode = {};
	long shadow;
	bool inherit;
	int err;

	if (!pt || !mm || (p->flags & PF_KTHREAD))
		return;
	/*
	 * Fork copies PTEs as they are: the copy of a re-armed mm holds its
	 * re-armed pages, inaccessible, for a process that nobody may trace.
	 * They are restored before it runs (a trace of its own re-arms them
	 * itself).
	 */
	if (!(clone_flags & CLONE_VM) && current->mm &&
	    READ_ONCE(current->mm->pgf.armed)) {
		mmap_write_lock(mm);
		pgf_unarm_mm(mm);
		mmap_write_unlock(mm);
	}
	mutex_lock(&pt->mutex);
	inherit = READ_ONCE(pt->active) && pt->inherit;
	mode.interval_ms = pt->interval_ms;
	mode.window = pt->window_pages;
	mode.sample_ms = pt->sample_ms;
	mode.inherit = true;
#ifdef PGF_STAGE_FILES
	mode.files = pt->files;
#endif
	mutex_unlock(&pt->mutex);
	if (!inherit)
		return;
	if (mode.window) {
		w = pgf_window_alloc(mode.window);
		if (!w)
			return;
	}
	/* Paid for by the creator's budget until a reader claims it. */
	t = pgf_trace_new(pt->pid_ns, pt->budget);
	if (!t)
		goto out_free_window;
	t->tgid = get_pid(pid);
	t->child_nr = pid_nr_ns(pid, pt->pid_ns);
	/*
	 * Read by whoever claims it through its creator's reader: held to
	 * that reader's credentials, else to its creator's starter's.
	 */
	t->start_cred = pgf_trace_get_cred(pt);
#ifdef PGF_STAGE_PHYS
	/* And may see frames as they do. */
	t->start_frames = READ_ONCE(pt->hooks.frames);
	t->hooks.frames = t->start_frames;
#endif
	/* The child's cgroups are set up later: the creator's memcg. */
	t->memcg = get_mem_cgroup_from_current();
	/*
	 * Its region shadow, an entry a VMA, is made now and paid for by the
	 * same budget (each entry as it is made, pgf_region_alloc()): held
	 * for it meanwhile, so that a child whose shadow would not fit is
	 * not traced, as for its buffers.
	 */
	shadow = (long)READ_ONCE(mm->map_count) * sizeof(struct pgf_region);
	if (!pgf_charge(t, shadow, false)) {
		pgf_trace_put(t);
		goto out_free_window;
	}
	/* The trace holds it while active; no lock held, may patch text. */
	static_branch_deferred_inc(&pgf_tracing_key);
	mmap_read_lock(mm);
	mutex_lock(&t->mutex);
	err = __pgf_activate(t, p->signal, mm, &mode, &w,
			     clone_flags & CLONE_VM);
	mutex_unlock(&t->mutex);
	mmap_read_unlock(mm);
	pgf_uncharge(t, shadow);
	if (err) {
		static_branch_slow_dec_deferred(&pgf_tracing_key);
		pgf_trace_put(t);
		goto out_free_window;
	}
	/* Nobody else sees the child yet; the hooks read it unlocked. */
	smp_store_release(&p->signal->pgf_trace, t);
out_free_window:
	pgf_window_free(w);	/* not taken over */
}

void pgf_forked(struct task_struct *p)
{
	struct pgf_trace *pt = pgf_trace_of(current->signal);
	struct pgf_trace *t = p->signal->pgf_trace;
	struct pgf_rec rec;

	if (!pt)
		return;
	/*
	 * No trace made at the fork hook, and no inheriting trace now: no
	 * child record. A trace made at the hook is listed and recorded even
	 * if tracing stopped since (its record then follows "stop"); one that
	 * started since records the child as untraced.
	 */
	if (!t && !(READ_ONCE(pt->active) && READ_ONCE(pt->inherit)))
		return;
	if (t) {
		/* Listed before it is told of: a reader can claim it at once. */
		refcount_inc(&t->ref);
		spin_lock(&pt->lock);
		list_add_tail(&t->child_node, &pt->children);
		spin_unlock(&pt->lock);
	}
	pgf_rec_init(pt, &rec, PGF_REC_CHILD, sizeof(rec));
	rec.flags = t ? 0 : PGF_CHILD_UNTRACED;
	rec.a = t ? t->child_nr : pid_nr_ns(task_tgid(p), pt->pid_ns);
	pgf_emit(pt, &rec, PGF_KIND_CONTROL);
}

void pgf_fork_cancel(struct task_struct *p)
{
	/* The signal_struct's reference goes with it. */
	pgf_trace_end(p->signal->pgf_trace, NULL);
}

/**
 * pgf_child_claim() - take a child's trace from its creator's list
 * @t: the creator's trace, of which the caller is the reader
 * @nr: the child's pid in @t's pid namespace, or 0 for the oldest
 * @cp: set to the child's trace, of which the caller is now the reader,
 *      with the list's reference
 *
 * Return: 0; -ENOENT if no such child is listed (never created, already
 * claimed, or created before the trace was inherited); -EBUSY if another
 * file reads its trace (through /proc/<child>/pgfault_history): it is
 * taken off the list all the same.
 */
int pgf_child_claim(struct pgf_trace *t, u32 nr, struct pgf_trace **cp)
{
	struct pgf_trace *c = NULL, *i;
	bool busy;

	spin_lock(&t->lock);
	list_for_each_entry(i, &t->children, child_node) {
		if (!nr || i->child_nr == nr) {
			c = i;
			list_del_init(&c->child_node);
			break;
		}
	}
	spin_unlock(&t->lock);
	if (!c)
		return -ENOENT;
	spin_lock(&c->lock);
	busy = c->reader;
	c->reader = true;
	spin_unlock(&c->lock);
	if (busy) {
		pgf_trace_put(c);
		return -EBUSY;
	}
	/* Claimed: off its creator's budget, onto one of its own. */
	pgf_budget_own(c);
	*cp = c;
	return 0;
}

/**
 * pgf_children_free() - drop the traces of unclaimed children
 * @t: a trace being freed
 */
void pgf_children_free(struct pgf_trace *t)
{
	struct pgf_trace *c, *n;

	list_for_each_entry_safe(c, n, &t->children, child_node) {
		list_del_init(&c->child_node);
		pgf_trace_put(c);
	}
}
