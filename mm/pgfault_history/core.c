// SPDX-License-Identifier: GPL-2.0
/*
 * Per-process page fault tracing: the life of a trace, starting and
 * stopping, permission, and the hooks that fault, exec and exit call.
 *
 * The ring buffer is ring.c. The /proc/<pid>/pgfault_history file that
 * drives it all is proc.c, and format.c writes the records as text.
 */
#define pr_fmt(fmt) "pgfault: " fmt

#include <linux/binfmts.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/oom.h>
#include <linux/pgfault_history.h>
#include <linux/pid_namespace.h>
#include <linux/poll.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysctl.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <asm/syscall.h>

#include "internal.h"

/**
 * DOC: pgfault_history traces
 *
 * One &struct pgf_trace per traced process (thread group), hung off its
 * &struct signal_struct, so it is shared by all threads, survives exec and
 * is not inherited by fork (a new process gets a new, zeroed
 * signal_struct; a trace started with "inherit" gives each new process a
 * trace of its own, see the DOC: in mm/pgfault_history/inherit.c). The
 * pointer is published once, under the siglock, with
 * release semantics; the hooks read it without a lock. The fault path
 * tests it behind the static key pgf_tracing_key, enabled while any trace
 * is active (its last disable deferred by a second, so that starting and
 * stopping in a loop does not patch kernel text each time). There is no
 * per-thread state: a thread records when its process's trace is active,
 * so no thread has to be told, interrupted or woken to start.
 *
 * Locks, outermost first:
 *
 * - &signal_struct.exec_update_lock (read): start, stop and a reader's
 *   attach check permission under it, with the opener's credentials, as
 *   mm_access() and perf do. Exec holds it for writing from the switch of
 *   the mm to past commit_creds(), where pgf_exec() runs: a permission
 *   check and the exec it might race are ordered.
 * - the mmap lock of the traced mm: VMA changes are noted under it
 *   (write) and recorded under it (read), with the mutex below, by the
 *   changing thread before it returns to user space or by a traced fault
 *   (see the DOC: in mm/pgfault_history/regions.c); the layout is taken
 *   under it (read); the region shadow is under it (see &struct
 *   pgf_shadow).
 * - &pgf_trace.mutex: start, stop, exec, exit, which mm is followed.
 * - &pgf_trace.lock: the ring and the state flags (see the DOC: in
 *   mm/pgfault_history/ring.c).
 *
 * Credentials: every exec that makes the process non-dumpable or raises
 * its privileges increments &signal_struct.pgf_exec_gen, traced or not. A
 * file records the generation it was opened in and can neither start nor
 * stop tracing nor become a reader in another (-EACCES), so a descriptor
 * handed to a set-uid program, or kept across its exec, sees nothing of
 * it. A trace running at such an exec ends there: "stop credentials", then
 * EOF; the process loses it, and a new start makes a new trace.
 *
 * Lifetime: the trace is reference counted. The signal_struct holds one
 * reference until it is freed (the process has been reaped), every reader
 * holds one, and so does a pending wake-up timer. The last reference may
 * be dropped in atomic context (put_task_struct()), so the memory is freed
 * from a work item. The end of a process is decided by
 * &signal_struct.pgf_live, which counts the threads not yet past
 * exit_mm(): the thread that brings it to zero is the last that can
 * fault, and it writes the exit record, marks the trace dead (the reader
 * drains it and gets EOF) and frees the region shadow. A start
 * checks the same counter under &pgf_trace.mutex, which the exit takes, so
 * a process racing its own exit is either traced and gets its exit record,
 * or refused with -ESRCH.
 */

#define PGF_MIN_KB	4
#define PGF_MAX_KB	(64 * 1024)

DEFINE_STATIC_KEY_DEFERRED_FALSE(pgf_tracing_key, HZ);
/*
 * The vm_flags modifiers of <linux/mm.h> (vm_flags_set() and the rest)
 * test it and call pgf_mm_changed() inline, and drivers' mmap handlers
 * call them from modules of any licence: both are exported, as other
 * keys of inline mm helpers are, so that no module stops loading.
 */
EXPORT_SYMBOL(pgf_tracing_key);

static unsigned int pgf_buffer_kb = 64;
static unsigned int pgf_min_kb = PGF_MIN_KB;
static unsigned int pgf_max_kb = PGF_MAX_KB;

/* A trace tree's budget: rings, unclaimed children, reader buffers. */
#define PGF_BUDGET_MIN_KB	1024
#define PGF_BUDGET_MAX_KB	(16 * 1024 * 1024)

static unsigned int pgf_budget_kb = 64 * 1024;
static unsigned int pgf_budget_min_kb = PGF_BUDGET_MIN_KB;
static unsigned int pgf_budget_max_kb = PGF_BUDGET_MAX_KB;

static struct ctl_table pgf_sysctls[] = {
	{
		.procname	= "pgfault_history_buffer_kb",
		.data		= &pgf_buffer_kb,
		.maxlen		= sizeof(pgf_buffer_kb),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= &pgf_min_kb,
		.extra2		= &pgf_max_kb,
	},
	{
		.procname	= "pgfault_history_budget_kb",
		.data		= &pgf_budget_kb,
		.maxlen		= sizeof(pgf_budget_kb),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= &pgf_budget_min_kb,
		.extra2		= &pgf_budget_max_kb,
	},
};

/* Kernel memory held and traces running, for /sys/kernel/debug/pgfault_history. */
static atomic_long_t pgf_nr_traces = ATOMIC_LONG_INIT(0);
static atomic_long_t pgf_nr_active = ATOMIC_LONG_INIT(0);

#ifdef PGF_STAGE_REGIONS
static int pgf_stats_show(struct seq_file *m, void *v)
{
	seq_printf(m, "traces %ld\nactive %ld\nkey %d\nbuffer_bytes %ld\ntrace_bytes %zu\nregion_bytes %zu\nshadow_bytes %ld\nmemcg_held %ld\n",
		   atomic_long_read(&pgf_nr_traces),
		   atomic_long_read(&pgf_nr_active),
		   static_key_count(&pgf_tracing_key.key.key),
		   atomic_long_read(&pgf_nr_buf_bytes),
		   sizeof(struct pgf_trace), sizeof(struct pgf_region),
		   atomic_long_read(&pgf_nr_region_bytes),
		   atomic_long_read(&pgf_nr_memcg_held));
	return 0;
}
#else
static int pgf_stats_show(struct seq_file *m, void *v)
{
	seq_printf(m, "traces %ld\nactive %ld\nkey %d\nbuffer_bytes %ld\ntrace_bytes %zu\nmemcg_held %ld\n",
		   atomic_long_read(&pgf_nr_traces),
		   atomic_long_read(&pgf_nr_active),
		   static_key_count(&pgf_tracing_key.key.key),
		   atomic_long_read(&pgf_nr_buf_bytes),
		   sizeof(struct pgf_trace),
		   atomic_long_read(&pgf_nr_memcg_held));
	return 0;
}
#endif

/* A trace stopped running: its hold on the static key goes, deferred. */
void pgf_key_put(void)
{
	atomic_long_dec(&pgf_nr_active);
	static_branch_slow_dec_deferred(&pgf_tracing_key);
}
DEFINE_SHOW_ATTRIBUTE(pgf_stats);

static int __init pgf_init(void)
{
	register_sysctl_init("vm", pgf_sysctls);
	debugfs_create_file("pgfault_history", 0444, NULL, NULL,
			    &pgf_stats_fops);
	return 0;
}
subsys_initcall(pgf_init);

static void pgf_trace_free(struct work_struct *work)
{
	struct pgf_trace *t = container_of(work, struct pgf_trace, free_work);

	atomic_long_dec(&pgf_nr_traces);
#ifdef PGF_STAGE_INHERIT
	pgf_children_free(t);
#endif
#ifdef PGF_STAGE_REGIONS
	pgf_regions_free(t);
#endif
#ifdef PGF_STAGE_FILES
	pgf_files_free(t);
#endif
#ifdef PGF_STAGE_WINDOW
	pgf_window_free(rcu_dereference_protected(t->window, true));
#endif
	mem_cgroup_put(t->memcg);
	pgf_rings_free(t);
	kfree(t->unread);
	pgf_uncharge(t, t->charged);
	pgf_budget_put(t->budget);
	if (t->start_cred)
		put_cred(t->start_cred);
	if (t->reader_cred)
		put_cred(t->reader_cred);
	put_pid(t->tgid);
	put_pid_ns(t->pid_ns);
	/*
	 * Another process sharing the mm may have found the trace through
	 * the mm's owner under rcu_read_lock() (pgf_trace_of_owner()), before
	 * the owner's exec unpublished it: it takes a reference only if one is
	 * left, and the structure stays until it is done looking.
	 */
	kfree_rcu(t, rcu);
}

/*
 * The bytes the fault rings of a trace start at, shared among the CPUs (a
 * page each at least; the limit at most): room for a burst of 2,000
 * faults before the work item that grows a ring gets to run, as it may
 * not on a busy CPU until the next tick. The control ring starts at a
 * quarter of that.
 */
#define PGF_BUF_START	SZ_64K

/**
 * pgf_budget_new() - a budget of vm.pgfault_history_budget_kb
 * @ring_limit: the most each ring of the trace may grow to
 *
 * At least four times what the trace's own rings may reach (a ring per
 * online CPU and the control ring, each at @ring_limit): its own rings
 * always reach their limit within the quarter that the children it
 * creates leave it.
 *
 * Return: the budget, with one reference, or NULL.
 */
struct pgf_budget *pgf_budget_new(size_t ring_limit)
{
	struct pgf_budget *b = kmalloc(sizeof(*b), GFP_KERNEL_ACCOUNT);
	long rings = 4L * (num_online_cpus() + 1) * ring_limit;

	if (!b)
		return NULL;
	refcount_set(&b->ref, 1);
	atomic_long_set(&b->bytes, 0);
	b->limit = max((long)READ_ONCE(pgf_budget_kb) * SZ_1K, rings);
	return b;
}

void pgf_budget_put(struct pgf_budget *b)
{
	if (b && refcount_dec_and_test(&b->ref))
		kfree(b);
}

#ifdef PGF_STAGE_REGIONS
/*
 * What a trace holds besides its rings, charged to its budget as they
 * are: the structure and the room for a region's name.
 */
#define PGF_TRACE_BYTES	(sizeof(struct pgf_trace) + PATH_MAX)
#else
/*
 * What a trace holds besides its rings, charged to its budget as they
 * are: the structure.
 */
#define PGF_TRACE_BYTES	sizeof(struct pgf_trace)
#endif

/*
 * A trace whose fault rings start at @start bytes in all, and whose rings
 * may each grow to @limit, paid for by @budget (a new one if NULL).
 */
static struct pgf_trace *pgf_trace_alloc(struct pid_namespace *ns,
					 size_t start, size_t limit,
					 struct pgf_budget *budget)
{
	struct pgf_trace *t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);
	size_t cpu_start, ctl_start;

	if (!t)
		return NULL;
	spin_lock_init(&t->budget_lock);
	t->guest = budget;
	if (budget)
		refcount_inc(&budget->ref);
	else
		budget = pgf_budget_new(max_t(size_t, PAGE_SIZE, limit));
	t->budget = budget;
	if (!budget) {
		kfree(t);
		return NULL;
	}
	t->limit = max_t(size_t, PAGE_SIZE, limit);
	cpu_start = clamp_t(size_t, start / num_possible_cpus(), PAGE_SIZE,
			    t->limit);
	ctl_start = clamp_t(size_t, start / 4, PAGE_SIZE, t->limit);
	spin_lock_init(&t->lock);
#ifdef PGF_STAGE_INHERIT
	INIT_LIST_HEAD(&t->children);
	INIT_LIST_HEAD(&t->child_node);
#endif
#ifdef PGF_STAGE_FILES
	mutex_init(&t->files_mutex);
	spin_lock_init(&t->files_lock);
	t->files_tree = RB_ROOT;
#endif
	if (!pgf_charge(t, PGF_TRACE_BYTES, false))
		goto out_free_rings;
	if (pgf_rings_alloc(t, ctl_start, cpu_start))
		goto out_free_rings;
#ifdef PGF_STAGE_REGIONS
	if (pgf_regions_init(t))
		goto out_free_rings;
#endif
	atomic_long_inc(&pgf_nr_traces);
	t->pid_ns = get_pid_ns(ns);
	init_waitqueue_head(&t->wait);
	timer_setup(&t->wake_timer, pgf_wake_timer, 0);
	INIT_WORK(&t->free_work, pgf_trace_free);
	INIT_WORK(&t->grow_work, pgf_grow_work);
#ifdef PGF_STAGE_REARM
	INIT_DELAYED_WORK(&t->rearm_work, pgf_rearm_work);
#endif
#ifdef PGF_STAGE_WINDOW
	pgf_window_twork_init(t);
#endif
	mutex_init(&t->mutex);
	refcount_set(&t->ref, 1);
	return t;

out_free_rings:
	pgf_rings_free(t);
#ifdef PGF_STAGE_REGIONS
	kfree(t->shadow.path);
#endif
	pgf_uncharge(t, t->charged);
	pgf_budget_put(t->budget);
	kfree(t);
	return NULL;
}

/**
 * pgf_trace_new() - a new trace, its rings at the start size
 * @ns: the pid namespace its thread ids are numbers in
 * @budget: the budget that pays for its buffers (its creator's, for a
 *          child's trace), or NULL for a new one
 *
 * Its rings may each grow to vm.pgfault_history_buffer_kb, as far as the
 * budget allows.
 *
 * Context: process context, may sleep; charged to current's memcg.
 * Return: the trace, with one reference, or NULL (no memory, or the
 * budget is spent).
 */
struct pgf_trace *pgf_trace_new(struct pid_namespace *ns,
				struct pgf_budget *budget)
{
	size_t limit = (size_t)READ_ONCE(pgf_buffer_kb) * SZ_1K;

	return pgf_trace_alloc(ns, PGF_BUF_START, limit, budget);
}

/**
 * pgf_trace_put() - drop a reference to a trace, freeing it with the last
 * @t: the trace
 *
 * Context: any but NMI; the memory is freed from a work item, so the last
 * reference may go where sleeping is not allowed, and the structure
 * itself an RCU grace period after that.
 */
void pgf_trace_put(struct pgf_trace *t)
{
	if (refcount_dec_and_test(&t->ref))
		schedule_work(&t->free_work);
}

/* Is the opener of a file, with @cred, allowed to trace @task? */
static int __pgf_may_trace(struct task_struct *task, const struct cred *cred)
{
	const struct cred *old;
	bool ok;

	lockdep_assert_held(&task->signal->exec_update_lock);
	if (task->flags & PF_KTHREAD)
		return -EINVAL;
	old = override_creds(cred);
	ok = ptrace_may_access(task, PTRACE_MODE_ATTACH_FSCREDS);
	revert_creds(old);
	return ok ? 0 : -EACCES;
}

/**
 * pgf_trace_hold_cred() - hold the trace to the credentials of a file
 * @t: the trace
 * @cred: the credentials of the file, NULL for none
 * @reader: the file reads the trace; else it started it
 *
 * A start does not replace the reader's credentials, nor a reader the
 * starter's: the exec check (pgf_exec()) tests the reader's.
 */
void pgf_trace_hold_cred(struct pgf_trace *t, const struct cred *cred,
			 bool reader)
{
	const struct cred **slot = reader ? &t->reader_cred : &t->start_cred;
	const struct cred *old;
#ifdef PGF_STAGE_PHYS
	bool frames = cred && pgf_cred_sees_frames(cred);
#endif

	if (cred)
		get_cred(cred);
	spin_lock(&t->lock);
	old = *slot;
	*slot = cred;
#ifdef PGF_STAGE_PHYS
	if (reader)
		t->reader_frames = frames;
	else
		t->start_frames = frames;
	/* Recorded while the credentials the trace is held to may see them. */
	WRITE_ONCE(t->hooks.frames,
		   t->reader_cred ? t->reader_frames : t->start_frames);
#endif
	spin_unlock(&t->lock);
	if (old)
		put_cred(old);
}

/**
 * pgf_trace_get_cred() - the credentials an exec of the process is checked
 * against: its reader's, else its starter's
 * @t: the trace
 *
 * Return: a reference to them (put_cred()), or NULL
 */
const struct cred *pgf_trace_get_cred(struct pgf_trace *t)
{
	const struct cred *cred;

	spin_lock(&t->lock);
	cred = t->reader_cred ?: t->start_cred;
	if (cred)
		get_cred(cred);
	spin_unlock(&t->lock);
	return cred;
}

/*
 * Does @cred hold CAP_SYS_PTRACE in @ns? Asked of credentials that are not
 * current's own, in the traced task's context: without auditing, and
 * without marking current as having used a privilege (PF_SUPERPRIV), as
 * ptrace_has_cap() asks with PTRACE_MODE_NOAUDIT.
 */
static bool pgf_cred_may_ptrace(const struct cred *cred,
				struct user_namespace *ns)
{
	return !security_capable(cred, ns, CAP_SYS_PTRACE, CAP_OPT_NOAUDIT);
}

/*
 * May the holder of @cred still ptrace-attach @task, current, whose exec
 * has just committed its credentials and installed its mm? As
 * __ptrace_may_access() decides for another task (which skips the checks
 * for its own thread group): the ids, CAP_SYS_PTRACE, dumpability, then
 * the security modules, all with @cred as the tracer's and nothing
 * audited or marked in current's name (PTRACE_MODE_NOAUDIT).
 */
static bool pgf_may_still_trace(struct task_struct *task,
				const struct cred *cred)
{
	const struct cred *tcred, *old;
	struct mm_struct *mm = task->mm;
	bool ok;

	old = override_creds(cred);
	rcu_read_lock();
	tcred = __task_cred(task);
	ok = (uid_eq(cred->fsuid, tcred->euid) &&
	      uid_eq(cred->fsuid, tcred->suid) &&
	      uid_eq(cred->fsuid, tcred->uid) &&
	      gid_eq(cred->fsgid, tcred->egid) &&
	      gid_eq(cred->fsgid, tcred->sgid) &&
	      gid_eq(cred->fsgid, tcred->gid)) ||
	     pgf_cred_may_ptrace(cred, tcred->user_ns);
	rcu_read_unlock();
	if (ok && mm && get_dumpable(mm) != SUID_DUMP_USER)
		ok = pgf_cred_may_ptrace(cred, mm->user_ns);
	if (ok)
		ok = !security_ptrace_access_check(task,
						   PTRACE_MODE_ATTACH_FSCREDS |
						   PTRACE_MODE_NOAUDIT);
	revert_creds(old);
	return ok;
}

/* The same, for a file bound to credential generation @gen. */
static int __pgf_may_use(struct task_struct *task, const struct cred *cred,
			 u64 gen)
{
	if (READ_ONCE(task->signal->pgf_exec_gen) != gen)
		return -EACCES;
	return __pgf_may_trace(task, cred);
}

/*
 * Take the exec_update_lock of @task's process for reading and check, under
 * it, that @cred (which opened the file in credential generation
 * @exec_gen) may still use the trace (__pgf_may_use()): the prologue of
 * everything a writer or reader does to a trace, so that no check races
 * an exec. Returns 0 with the lock held, else an error with it released.
 */
static int pgf_lock_may_use(struct task_struct *task, const struct cred *cred,
			    u64 exec_gen)
{
	struct signal_struct *sig = task->signal;
	int err = down_read_killable(&sig->exec_update_lock);

	if (err)
		return err;
	err = __pgf_may_use(task, cred, exec_gen);
	if (err)
		up_read(&sig->exec_update_lock);
	return err;
}

/**
 * pgf_check_access() - may a file being opened trace a process
 * @task: any thread of the process
 * @cred: the opener's credentials
 * @exec_gen: set to the credential generation the answer holds for
 *
 * As /proc/<pid>/mem: the right to ptrace-attach, checked under
 * exec_update_lock so that the generation and the answer go together.
 *
 * Return: 0, -EACCES, -EINVAL for a kernel thread, -EINTR.
 */
int pgf_check_access(struct task_struct *task, const struct cred *cred,
		     u64 *exec_gen)
{
	struct signal_struct *sig = task->signal;
	int err;

	err = down_read_killable(&sig->exec_update_lock);
	if (err)
		return err;
	err = __pgf_may_trace(task, cred);
	*exec_gen = READ_ONCE(sig->pgf_exec_gen);
	up_read(&sig->exec_update_lock);
	return err;
}

/* The trace of @task's process, made if it has none, with a reference. */
static struct pgf_trace *pgf_trace_install(struct task_struct *task,
					   struct pid_namespace *ns)
{
	struct signal_struct *sig = task->signal;
	struct pgf_trace *t, *fresh;
	unsigned long flags;

	lockdep_assert_held(&sig->exec_update_lock);
	fresh = pgf_trace_new(ns, NULL);
	if (!fresh)
		return ERR_PTR(-ENOMEM);
	if (!lock_task_sighand(task, &flags)) {
		pgf_trace_put(fresh);
		return ERR_PTR(-ESRCH);
	}
	t = sig->pgf_trace;
	if (!t) {
		fresh->tgid = get_pid(task_tgid(task));
		/* The hooks read it without a lock: initialised first. */
		smp_store_release(&sig->pgf_trace, fresh);
		t = fresh;
		fresh = NULL;
	}
	refcount_inc(&t->ref);
	unlock_task_sighand(task, &flags);
	if (fresh)
		pgf_trace_put(fresh);
	return t;
}

/* The mm of a thread of @task's process that still has one, or NULL. */
static struct mm_struct *pgf_live_mm(struct task_struct *task)
{
	struct task_struct *p = find_lock_task_mm(task);
	struct mm_struct *mm;

	if (!p)
		return NULL;
	mm = p->mm;
	mmget(mm);
	task_unlock(p);
	return mm;
}

/* Has every thread of the process passed the exit hook? */
static bool pgf_all_exited(struct signal_struct *sig)
{
	return atomic_read(&sig->pgf_live) == 0;
}

#ifdef PGF_STAGE_REARM
/* Is @t, active, recording in @mode? */
static bool pgf_same_mode(const struct pgf_trace *t,
			  const struct pgf_mode *mode)
{
	if (mode->interval_ms != t->interval_ms)
		return false;
#ifdef PGF_STAGE_WINDOW
	if (mode->window != t->window_pages)
		return false;
#endif
#ifdef PGF_STAGE_SAMPLE
	if (mode->sample_ms != t->sample_ms)
		return false;
#endif
#ifdef PGF_STAGE_INHERIT
	if (mode->inherit != t->inherit)
		return false;
#endif
#ifdef PGF_STAGE_FILES
	if (mode->files != t->files)
		return false;
#endif
	return true;
}

#endif
#if defined(PGF_STAGE_INHERIT)
/**
 * __pgf_activate() - start a trace
 * @t: the trace, its mutex held
 * @sig: its process
 * @mm: the process's mm, its mmap lock held; NULL if it has none left
 * @mode: the mode to start in
 * @wp: in window mode, the window, taken over (*@wp set to NULL)
 * @shared_mm: @mm is another process's too (CLONE_VM): it is not
 *             re-armed for the window, nor sampled
 *
 * The start record, the layout, then faults; in interval mode, the
 * re-arms; in window mode, the window, after a re-arm of every page; in
 * sampling mode, the baseline scan, then a scan every interval.
 *
 * Return: 0, -ESRCH (exited or exiting), -EALREADY (active in @mode),
 * -EBUSY (active in another mode).
 */
int __pgf_activate(struct pgf_trace *t, struct signal_struct *sig,
		   struct mm_struct *mm, const struct pgf_mode *mode,
		   struct pgf_window **wp, bool shared_mm)
#elif defined(PGF_STAGE_SAMPLE)
/**
 * __pgf_activate() - start a trace
 * @t: the trace, its mutex held
 * @sig: its process
 * @mm: the process's mm, its mmap lock held; NULL if it has none left
 * @mode: the mode to start in
 * @wp: in window mode, the window, taken over (*@wp set to NULL)
 *
 * The start record, the layout, then faults; in interval mode, the
 * re-arms; in window mode, the window, after a re-arm of every page; in
 * sampling mode, the baseline scan, then a scan every interval.
 *
 * Return: 0, -ESRCH (exited or exiting), -EALREADY (active in @mode),
 * -EBUSY (active in another mode).
 */
int __pgf_activate(struct pgf_trace *t, struct signal_struct *sig,
		   struct mm_struct *mm, const struct pgf_mode *mode,
		   struct pgf_window **wp)
#elif defined(PGF_STAGE_WINDOW)
/**
 * __pgf_activate() - start a trace
 * @t: the trace, its mutex held
 * @sig: its process
 * @mm: the process's mm, its mmap lock held; NULL if it has none left
 * @mode: the mode to start in
 * @wp: in window mode, the window, taken over (*@wp set to NULL)
 *
 * The start record, the layout, then faults; in interval mode, the
 * re-arms; in window mode, the window, after a re-arm of every page.
 *
 * Return: 0, -ESRCH (exited or exiting), -EALREADY (active in @mode),
 * -EBUSY (active in another mode).
 */
int __pgf_activate(struct pgf_trace *t, struct signal_struct *sig,
		   struct mm_struct *mm, const struct pgf_mode *mode,
		   struct pgf_window **wp)
#elif defined(PGF_STAGE_REARM)
/**
 * __pgf_activate() - start a trace
 * @t: the trace, its mutex held
 * @sig: its process
 * @mm: the process's mm, its mmap lock held; NULL if it has none left
 * @mode: the mode to start in
 *
 * The start record, the layout, then faults; in interval mode, the
 * re-arms.
 *
 * Return: 0, -ESRCH (exited or exiting), -EALREADY (active in @mode),
 * -EBUSY (active in another mode).
 */
int __pgf_activate(struct pgf_trace *t, struct signal_struct *sig,
		   struct mm_struct *mm, const struct pgf_mode *mode)
#elif defined(PGF_STAGE_REGIONS)
/**
 * __pgf_activate() - start a trace
 * @t: the trace, its mutex held
 * @sig: its process
 * @mm: the process's mm, its mmap lock held; NULL if it has none left
 *
 * The start record, the layout, then faults.
 *
 * Return: 0, -ESRCH (exited or exiting), -EALREADY (active already).
 */
int __pgf_activate(struct pgf_trace *t, struct signal_struct *sig,
		   struct mm_struct *mm)
#else
/**
 * __pgf_activate() - start a trace
 * @t: the trace, its mutex held
 * @sig: its process
 * @mm: the process's mm; NULL if it has none left
 *
 * The start record, then faults.
 *
 * Return: 0, -ESRCH (exited or exiting), -EALREADY (active already).
 */
int __pgf_activate(struct pgf_trace *t, struct signal_struct *sig,
		   struct mm_struct *mm)
#endif
{
#ifdef PGF_STAGE_WINDOW
	unsigned long pages;
#endif
#ifdef PGF_STAGE_REARM
	unsigned long run;

#endif
	lockdep_assert_held(&t->mutex);
	/* The trace is published: pairs with pgfault_history_exit(). */
	smp_mb();
	if (t->dead || !mm || pgf_all_exited(sig)) {
		/* Exited, or exiting with no thread left to fault. */
		spin_lock(&t->lock);
		if (!t->started)
			t->dead = true;	/* a reader gets EOF */
		spin_unlock(&t->lock);
		return -ESRCH;
	}
	if (READ_ONCE(t->active))
#ifdef PGF_STAGE_REARM
		return pgf_same_mode(t, mode) ? -EALREADY : -EBUSY;
#else
		return -EALREADY;
#endif
	/* The ring grows in a worker, charged to the process's memcg. */
	if (!t->memcg)
		t->memcg = get_mem_cgroup_from_mm(mm);
#ifdef PGF_STAGE_REARM
	t->interval_ms = mode->interval_ms;
	/* Nothing re-armed in this start yet: pgf_may_have_rearmed(). */
	WRITE_ONCE(t->rearmed, false);
	/* A walk that lets go of the mutex ends at a new start. */
	run = ++t->runs;
#endif
#ifdef PGF_STAGE_WINDOW
	t->window_pages = mode->window;
#endif
#ifdef PGF_STAGE_SAMPLE
	t->sample_ms = mode->sample_ms;
#endif
#ifdef PGF_STAGE_INHERIT
	t->clock_off = mode->sample_ms && shared_mm;
	t->inherit = mode->inherit;
#endif
#ifdef PGF_STAGE_FILES
	WRITE_ONCE(t->files, mode->files);
	t->files_seen |= mode->files;
#endif
	spin_lock(&t->lock);
#if defined(PGF_STAGE_FILES)
	__pgf_control(t, PGF_REC_START,
		      (mode->inherit ? PGF_START_INHERIT : 0) |
		      (mode->sample_ms ? PGF_START_SAMPLE : 0) |
		      (mode->files ? PGF_START_FILES : 0),
		      mode->interval_ms ?: mode->sample_ms, mode->window);
#elif defined(PGF_STAGE_INHERIT)
	__pgf_control(t, PGF_REC_START,
		      (mode->inherit ? PGF_START_INHERIT : 0) |
		      (mode->sample_ms ? PGF_START_SAMPLE : 0),
		      mode->interval_ms ?: mode->sample_ms, mode->window);
#elif defined(PGF_STAGE_SAMPLE)
	__pgf_control(t, PGF_REC_START,
		      mode->sample_ms ? PGF_START_SAMPLE : 0,
		      mode->interval_ms ?: mode->sample_ms, mode->window);
#elif defined(PGF_STAGE_WINDOW)
	__pgf_control(t, PGF_REC_START, 0, mode->interval_ms, mode->window);
#elif defined(PGF_STAGE_REARM)
	__pgf_control(t, PGF_REC_START, 0, mode->interval_ms, 0);
#else
	__pgf_control(t, PGF_REC_START, 0, 0, 0);
#endif
	t->started = true;
	spin_unlock(&t->lock);
#ifdef PGF_STAGE_REGIONS
	/*
	 * The layout under the mmap lock, before any fault is recorded: every
	 * fault kept falls in a region the reader knows, and a change made
	 * from now on is noted where it is made and recorded before the
	 * thread that made it returns to user space, or before a fault.
	 */
	pgf_regions_bind(t, mm, false);
	/* As many parts as the buffer takes; the reader asks for the rest. */
	while (pgf_regions_layout(t, mm, false) && t->shadow.sending)
		;
#endif
#ifdef PGF_STAGE_WINDOW
	if (*wp) {
		__pgf_window_set(t, *wp);
		*wp = NULL;
	}
#endif
	spin_lock(&t->lock);
	WRITE_ONCE(t->active, true);
	spin_unlock(&t->lock);
	atomic_long_inc(&pgf_nr_active);
#ifdef PGF_STAGE_WINDOW
#ifdef PGF_STAGE_INHERIT
	if (t->window_pages && !shared_mm) {
#else
	if (t->window_pages) {
#endif
		/*
		 * The window starts empty. Faults from now on are admitted;
		 * one taken during the walk may see its page re-armed while
		 * in the window: it faults once more, as a hit.
		 */
		if (pgf_rearm_mm(mm, &pages, t) != -ESRCH)
			__pgf_rearm_record(t, pages, PGF_REARM_WINDOW);
	}
#endif
#if defined(PGF_STAGE_INHERIT)
	if (t->sample_ms && !shared_mm)
		__pgf_sample(t, mm, PGF_SAMPLE_BASELINE);
#elif defined(PGF_STAGE_SAMPLE)
	if (t->sample_ms)
		__pgf_sample(t, mm, PGF_SAMPLE_BASELINE);
#endif
#ifdef PGF_STAGE_REARM
	/*
	 * The clock once the walks above are done: they let go of the mutex
	 * between their pieces, and a tick's walk must not run among them.
	 * A stop meanwhile stopped this start.
	 */
	if (READ_ONCE(t->active) && t->runs == run)
		__pgf_interval_start(t);
#endif
	return 0;
}

static void pgf_mmput(struct mm_struct *mm)
{
	if (mm)
		mmput(mm);
}

DEFINE_FREE(pgf_mmput, struct mm_struct *, pgf_mmput(_T))

#if defined(PGF_STAGE_WINDOW)
/*
 * pgf_start() under @task's exec_update_lock: install the trace and start
 * it with the layout of a live thread's mm, taking over *@w.
 */
static int __pgf_start(struct task_struct *task, const struct cred *cred,
		       struct pid_namespace *ns, const struct pgf_mode *mode,
		       struct pgf_window **w)
#elif defined(PGF_STAGE_REARM)
/*
 * pgf_start() under @task's exec_update_lock: install the trace and start
 * it with the layout of a live thread's mm.
 */
static int __pgf_start(struct task_struct *task, const struct cred *cred,
		       struct pid_namespace *ns, const struct pgf_mode *mode)
#elif defined(PGF_STAGE_REGIONS)
/*
 * pgf_start() under @task's exec_update_lock: install the trace and start
 * it with the layout of a live thread's mm.
 */
static int __pgf_start(struct task_struct *task, const struct cred *cred,
		       struct pid_namespace *ns)
#else
/*
 * pgf_start() under @task's exec_update_lock: install the trace and start
 * it, if a thread of the process still has an mm.
 */
static int __pgf_start(struct task_struct *task, const struct cred *cred,
		       struct pid_namespace *ns)
#endif
{
	struct mm_struct *mm __free(pgf_mmput) = NULL;
	struct pgf_trace *t __free(pgf_trace) = pgf_trace_install(task, ns);
	int err;

	if (IS_ERR(t))
		return PTR_ERR(t);
	mm = pgf_live_mm(task);
#ifdef PGF_STAGE_REGIONS
	if (mm && mmap_read_lock_killable(mm))
		return -EINTR;
#endif
	mutex_lock(&t->mutex);
#ifdef PGF_STAGE_PHYS
	/* Held before the first fault: it says whether faults carry frames. */
	if (!t->active)
		pgf_trace_hold_cred(t, cred, false);
#endif
#if defined(PGF_STAGE_INHERIT)
	err = __pgf_activate(t, task->signal, mm, mode, w, false);
#elif defined(PGF_STAGE_WINDOW)
	err = __pgf_activate(t, task->signal, mm, mode, w);
#elif defined(PGF_STAGE_REARM)
	err = __pgf_activate(t, task->signal, mm, mode);
#else
	err = __pgf_activate(t, task->signal, mm);
#endif
	mutex_unlock(&t->mutex);
#ifdef PGF_STAGE_REGIONS
	if (mm)
		mmap_read_unlock(mm);
#endif
	if (!err)
		pgf_trace_hold_cred(t, cred, false);
	return err;
}

#if defined(PGF_STAGE_SAMPLE)
/**
 * pgf_start() - start tracing a process
 * @task: any thread of the process (the caller holds a reference)
 * @cred: the credentials of the file's opener
 * @exec_gen: the credential generation the file was opened in
 * @ns: the pid namespace thread ids are written in, if the trace is new
 * @mode: interval, window or sampling mode, or none (all 0)
 *
 * Starting a traced process again in the same mode does nothing; in
 * another, -EBUSY (stop first). The first start makes the trace; a restart
 * after a stop continues the same stream.
 *
 * Context: process context, may sleep.
 * Return: 0, -EACCES, -EINVAL (kernel thread), -ESRCH if the process has
 * exited or is exiting, -EBUSY, -EOPNOTSUPP (interval or window mode where
 * pages cannot be re-armed), -ENOMEM, -EINTR.
 */
#elif defined(PGF_STAGE_WINDOW)
/**
 * pgf_start() - start tracing a process
 * @task: any thread of the process (the caller holds a reference)
 * @cred: the credentials of the file's opener
 * @exec_gen: the credential generation the file was opened in
 * @ns: the pid namespace thread ids are written in, if the trace is new
 * @mode: interval or window mode, or none (all 0)
 *
 * Starting a traced process again in the same mode does nothing; in
 * another, -EBUSY (stop first). The first start makes the trace; a restart
 * after a stop continues the same stream.
 *
 * Context: process context, may sleep.
 * Return: 0, -EACCES, -EINVAL (kernel thread), -ESRCH if the process has
 * exited or is exiting, -EBUSY, -EOPNOTSUPP (interval or window mode where
 * pages cannot be re-armed), -ENOMEM, -EINTR.
 */
#elif defined(PGF_STAGE_REARM)
/**
 * pgf_start() - start tracing a process
 * @task: any thread of the process (the caller holds a reference)
 * @cred: the credentials of the file's opener
 * @exec_gen: the credential generation the file was opened in
 * @ns: the pid namespace thread ids are written in, if the trace is new
 * @mode: interval mode, or none (all 0)
 *
 * Starting a traced process again in the same mode does nothing; in
 * another, -EBUSY (stop first). The first start makes the trace; a restart
 * after a stop continues the same stream.
 *
 * Context: process context, may sleep.
 * Return: 0, -EACCES, -EINVAL (kernel thread), -ESRCH if the process has
 * exited or is exiting, -EBUSY, -EOPNOTSUPP (interval mode where pages
 * cannot be re-armed), -ENOMEM, -EINTR.
 */
#else
/**
 * pgf_start() - start tracing a process
 * @task: any thread of the process (the caller holds a reference)
 * @cred: the credentials of the file's opener
 * @exec_gen: the credential generation the file was opened in
 * @ns: the pid namespace thread ids are written in, if the trace is new
 *
 * Starting a traced process again does nothing. The first start makes the
 * trace; a restart after a stop continues the same stream.
 *
 * Context: process context, may sleep.
 * Return: 0, -EACCES, -EINVAL (kernel thread), -ESRCH if the process has
 * exited or is exiting, -ENOMEM, -EINTR.
 */
#endif
#ifdef PGF_STAGE_REARM
int pgf_start(struct task_struct *task, const struct cred *cred,
	      u64 exec_gen, struct pid_namespace *ns,
	      const struct pgf_mode *mode)
#else
int pgf_start(struct task_struct *task, const struct cred *cred,
	      u64 exec_gen, struct pid_namespace *ns)
#endif
{
#ifdef PGF_STAGE_WINDOW
	struct pgf_window *w __free(pgf_window) = NULL;
#endif
	int err;

#if defined(PGF_STAGE_WINDOW)
	if ((mode->interval_ms || mode->window) && !pgf_rearm_supported())
		return -EOPNOTSUPP;
	if (mode->window) {
		w = pgf_window_alloc(mode->window);
		if (!w)
			return -ENOMEM;
	}
#elif defined(PGF_STAGE_REARM)
	if (mode->interval_ms && !pgf_rearm_supported())
		return -EOPNOTSUPP;
#endif
	/*
	 * Refused before the key is touched: turning it on patches the
	 * kernel's text on every CPU and the hooks of every process, which
	 * is not for someone who may not trace @task. Checked again under
	 * the lock below, which the increment may not be taken under.
	 */
	err = pgf_lock_may_use(task, cred, exec_gen);
	if (err)
		return err;
	up_read(&task->signal->exec_update_lock);
	/* Patches text at most once a second: no lock held here. */
	static_branch_deferred_inc(&pgf_tracing_key);
	err = pgf_lock_may_use(task, cred, exec_gen);
	if (!err) {
#if defined(PGF_STAGE_WINDOW)
		err = __pgf_start(task, cred, ns, mode, &w);
#elif defined(PGF_STAGE_REARM)
		err = __pgf_start(task, cred, ns, mode);
#else
		err = __pgf_start(task, cred, ns);
#endif
		up_read(&task->signal->exec_update_lock);
	}
	if (err == -EALREADY)
		err = 0;
	else if (!err)
		return 0;	/* the active trace keeps the key */
	static_branch_slow_dec_deferred(&pgf_tracing_key);
	return err;
}

#ifdef PGF_STAGE_REARM
/*
 * Stop recording into @t: mark it inactive, stop its clock, and wait until
 * no producer is inside a ring (pgf_rings_sync()), so that what the caller
 * writes next comes after every fault. Returns whether it was active.
 * Mutex held.
 */
#else
/*
 * Stop recording into @t: mark it inactive and wait until no producer is
 * inside a ring (pgf_rings_sync()), so that what the caller writes next
 * comes after every fault. Returns whether it was active. Mutex held.
 */
#endif

static bool __pgf_quiesce(struct pgf_trace *t)
{
	bool was;

	lockdep_assert_held(&t->mutex);
	spin_lock(&t->lock);
	was = t->active;
	WRITE_ONCE(t->active, false);
	spin_unlock(&t->lock);
#ifdef PGF_STAGE_REARM
	__pgf_clock_stop(t);
#endif
	pgf_rings_sync(t);
	return was;
}

/*
 * Let go of what @t holds only while it records: the region shadow's
 * binding to the mm (changes are no longer noted), with @end the shadow
 * itself (it goes with the process, not with the last reader), and the
 * window. The one teardown of a stop (__pgf_deactivate()) and of an end
 * (pgf_trace_finish()). Mutex held.
 */
static void __pgf_release(struct pgf_trace *t, bool end)
{
#ifdef PGF_STAGE_REGIONS
	if (end)
		pgf_regions_reset(t);
	pgf_regions_bind(t, NULL, false);
#endif
#ifdef PGF_STAGE_WINDOW
	__pgf_window_set(t, NULL);
#endif
}

/*
 * Mark @t inactive with a stop record; returns true if it was active (the
 * caller drops the key). Mutex held.
 */
static bool __pgf_deactivate(struct pgf_trace *t, u8 reason)
{
	bool was;

	/* The faults recorded so far, then the stop. */
	was = __pgf_quiesce(t);
	if (was) {
		spin_lock(&t->lock);
#ifdef PGF_STAGE_REGIONS
		/* A layout cut short: its untold regions count as one lost. */
		if (t->need_layout)
			__pgf_count_lost(&t->ctl, PGF_KIND_OTHER);
#endif
		__pgf_control(t, PGF_REC_STOP, reason, 0, 0);
		spin_unlock(&t->lock);
	}
	/* A restart sends a new layout. */
	__pgf_release(t, false);
#ifdef PGF_STAGE_PHYS
	/* Its hooks have nothing to keep until a start holds credentials. */
	WRITE_ONCE(t->hooks.frames, false);
#endif
	if (was)
		pgf_wake(t, EPOLLIN | EPOLLRDNORM);
	return was;
}

/**
 * pgf_stop() - stop tracing a process
 * @task: any thread of the process
 * @cred: the credentials of the file's opener
 * @exec_gen: the credential generation the file was opened in
 *
 * Stopping an untraced process does nothing. A fault already past the
 * test of the trace may still be recorded before the stop record. Pages
 * re-arming left inaccessible are made accessible again (pgf_rearm_end()),
 * unless another trace follows the mm.
 *
 * Context: process context, may sleep.
 * Return: 0, -EACCES, -EINVAL, -EINTR.
 */
int pgf_stop(struct task_struct *task, const struct cred *cred, u64 exec_gen)
{
	struct signal_struct *sig = task->signal;
	struct pgf_trace *t;
	bool was = false;
	int err;

	err = pgf_lock_may_use(task, cred, exec_gen);
	if (err)
		return err;
	t = pgf_trace_of(sig);
	if (t) {
#ifdef PGF_STAGE_REARM
		struct mm_struct *mm __free(pgf_mmput) = pgf_live_mm(task);

#endif
		mutex_lock(&t->mutex);
		was = __pgf_deactivate(t, PGF_STOP_USER);
		mutex_unlock(&t->mutex);
#ifdef PGF_STAGE_REARM
		if (mm)
			pgf_rearm_end(mm);
#endif
	}
	up_read(&sig->exec_update_lock);
	if (was)
		pgf_key_put();
	return err;
}

#ifdef PGF_STAGE_REARM
/* pgf_rearm() under @task's exec_update_lock, @t its process's trace. */
static int __pgf_rearm(struct task_struct *task, struct pgf_trace *t)
{
	struct mm_struct *mm __free(pgf_mmput) = NULL;
	unsigned long pages = 0;
	int err;

	if (!t || !READ_ONCE(t->active))
		return -ESRCH;
	mm = pgf_live_mm(task);
	if (!mm)
		return -ESRCH;
	err = mmap_read_lock_killable(mm);
	if (err)
		return err;
	/*
	 * A stop since the test above restores what this walk would re-arm
	 * once it has the mmap lock for writing: no walk after it.
	 */
	mutex_lock(&t->mutex);
	if (!READ_ONCE(t->active) || t->mm != mm) {
		mutex_unlock(&t->mutex);
		mmap_read_unlock(mm);
		return -ESRCH;
	}
#ifdef PGF_STAGE_WINDOW
	/* In window mode, the window starts again, empty. */
	__pgf_window_empty(t);
#endif
	WRITE_ONCE(t->rearmed, true);
	mutex_unlock(&t->mutex);
	err = pgf_rearm_mm(mm, &pages, NULL);
	mmap_read_unlock(mm);
	if (!err)
		pgf_rearm_record(t, mm, pages, PGF_REARM_USER);
	return err;
}

/**
 * pgf_rearm() - re-arm every page of a traced process ("rearm" written)
 * @task: any thread of the process
 * @cred: the writer's credentials, as for pgf_start()
 * @exec_gen: the credential generation the file was opened under
 *
 * Anyone who may start tracing the process may re-arm it, the process
 * itself included. When it returns, the next access to every page the
 * process has mapped faults and is recorded; a REARM record with the
 * number of pages re-armed follows the walk (faults of other threads
 * during the walk may come just before it: a fault is a re-reference by
 * its result, not by its place).
 *
 * Return: 0; -ESRCH if the process is not being traced or has no address
 * space left; -EACCES, -EINVAL as pgf_start(); -EOPNOTSUPP if this kernel
 * cannot re-arm pages; -EINTR.
 */
int pgf_rearm(struct task_struct *task, const struct cred *cred, u64 exec_gen)
{
	int err;

	if (!pgf_rearm_supported())
		return -EOPNOTSUPP;
	err = pgf_lock_may_use(task, cred, exec_gen);
	if (err)
		return err;
	err = __pgf_rearm(task, pgf_trace_of(task->signal));
	up_read(&task->signal->exec_update_lock);
	return err;
}
#endif

#ifdef PGF_STAGE_REARM
/* Does @t re-arm pages or clear accessed bits by itself? */
static bool pgf_rearming_mode(const struct pgf_trace *t)
{
	if (t->interval_ms)
		return true;
#ifdef PGF_STAGE_WINDOW
	if (t->window_pages)
		return true;
#endif
#ifdef PGF_STAGE_SAMPLE
	if (t->sample_ms)
		return true;
#endif
	return false;
}

/*
 * Can a fault that only made a present page accessible again be this
 * trace's re-arming? In interval, window and sampling mode, or once
 * "rearm" was written since the trace was last started. Otherwise it was
 * the kernel's own doing (NUMA balancing's hinting faults; where software
 * keeps the accessed bit, a page reclaim aged): a minor fault, not a
 * re-reference.
 */
static bool pgf_may_have_rearmed(struct pgf_trace *t)
{
	/* The modes change under t->mutex, only while the trace is stopped. */
	return READ_ONCE(t->rearmed) ||
	       /* as above */
	       data_race(pgf_rearming_mode(t));
}

#endif
/*
 * Was it the kernel touching user memory for the process? FAULT_FLAG_USER
 * tells on real hardware. UML resolves uaccess by faulting pages in with
 * FAULT_FLAG_USER set (arch/um/kernel/skas/uaccess.c), but the thread is
 * then inside a system call, which a UML user-mode fault never is.
 */
static bool pgf_kernel_mode(unsigned int flags)
{
	if (!(flags & FAULT_FLAG_USER))
		return true;
	return IS_ENABLED(CONFIG_UML) &&
	       syscall_get_nr(current, task_pt_regs(current)) >= 0;
}

/*
 * What pgf_record_fault() takes its own way: a fault that is not a plain
 * minor one (retried, completed elsewhere, failed, major, a re-arm's) and
 * a fault on another mm.
 */
#ifdef PGF_STAGE_REARM
#define PGF_FAULT_UNUSUAL	(VM_FAULT_RETRY | VM_FAULT_COMPLETED | \
				 VM_FAULT_ERROR | VM_FAULT_MAJOR | \
				 VM_FAULT_HINTING)
#elif defined(PGF_STAGE_REGIONS)
#define PGF_FAULT_UNUSUAL	(VM_FAULT_RETRY | VM_FAULT_COMPLETED | \
				 VM_FAULT_ERROR | VM_FAULT_MAJOR)
#else
#define PGF_FAULT_UNUSUAL	(VM_FAULT_RETRY | VM_FAULT_ERROR | \
				 VM_FAULT_MAJOR)
#endif

/* The access and mode flags of a fault's record. */
static __always_inline unsigned int pgf_fault_flags(unsigned int flags)
{
	unsigned int rflags = 0;

	if (flags & FAULT_FLAG_INSTRUCTION)
		rflags |= PGF_ACCESS_EXEC;
	else if (flags & FAULT_FLAG_WRITE)
		rflags |= PGF_ACCESS_WRITE;
	if (pgf_kernel_mode(flags))
		rflags |= PGF_FAULT_KERNEL;
	return rflags;
}

/* Where the access was: never a kernel address (for kernel mode, the syscall's). */
static __always_inline unsigned long pgf_fault_ip(struct pt_regs *regs)
{
	if (regs && user_mode(regs))
		return instruction_pointer(regs);
	return instruction_pointer(task_pt_regs(current));
}

/* pgf_record_fault()'s way for the faults above. */
static noinline void pgf_record_unusual(struct pgf_trace *t,
					struct mm_struct *mm,
					unsigned long address,
					unsigned int flags, vm_fault_t ret,
					struct pt_regs *regs)
{
	enum pgf_kind kind = PGF_KIND_FAULT;
#ifdef PGF_STAGE_PHYS
	struct pgf_fault_rec fr __uninitialized;	/* pgf_rec_init() fills it */
	struct pgf_rec *rec = &fr.rec;
	u64 frame = pgf_take_frame();
#else
	struct pgf_rec buf __uninitialized, *rec = &buf;
#endif
	u8 result;

	/* Recorded once, when the retried fault completes. */
	if ((ret & VM_FAULT_RETRY) || !READ_ONCE(t->active))
		return;
#ifdef PGF_STAGE_REGIONS
	/*
	 * Completed with its lock released (fault_dirty_shared_page()): it
	 * was recorded before, under the lock, in order with its region.
	 */
	if (ret & VM_FAULT_COMPLETED)
		return;
#endif

	if (ret & VM_FAULT_OOM)
		result = PGF_RESULT_OOM;
	else if (ret & (VM_FAULT_SIGBUS | VM_FAULT_HWPOISON |
			VM_FAULT_HWPOISON_LARGE))
		result = PGF_RESULT_SIGBUS;
	else if (ret & VM_FAULT_SIGSEGV)
		result = PGF_RESULT_SIGSEGV;
	else if ((ret & VM_FAULT_MAJOR) || (flags & FAULT_FLAG_TRIED))
		result = PGF_RESULT_MAJOR;	/* as mm_account_fault() counts */
#ifdef PGF_STAGE_REARM
	else if ((ret & VM_FAULT_HINTING) && pgf_may_have_rearmed(t))
		result = PGF_RESULT_REREF;	/* counted as minor */
#endif
	else
		result = PGF_RESULT_MINOR;	/* NUMA hinting, when not ours */
	/* /proc/<pid>/stat counts successful faults only. */
	if (result > PGF_RESULT_COUNTED_MAX)
		kind = PGF_KIND_OTHER;

	/*
	 * A fault on another mm (process_vm_readv(), ptrace, the new image's
	 * arguments during execve()) is counted by /proc/<pid>/stat: it is
	 * recorded, without its address, which belongs to the other mm.
	 */
	if (mm != current->mm) {
		pgf_rec_init(t, rec, PGF_REC_REMOTE, sizeof(*rec));
		rec->flags = result << PGF_FAULT_RESULT_SHIFT;
		if (flags & FAULT_FLAG_WRITE)
			rec->flags |= PGF_ACCESS_WRITE;
		pgf_emit_fault(t, rec, kind);
		return;
	}

	pgf_rec_init(t, rec, PGF_REC_FAULT, sizeof(*rec));
	rec->flags = result << PGF_FAULT_RESULT_SHIFT | pgf_fault_flags(flags);
	rec->a = address;
	rec->b = pgf_fault_ip(regs);
#ifdef PGF_STAGE_PHYS
	if (frame && kind == PGF_KIND_FAULT && pgf_trace_frames(t)) {
		fr.frame = frame;
		rec->len = sizeof(fr);
	}
#endif
	pgf_emit_fault(t, rec, kind);
#ifdef PGF_STAGE_WINDOW
	/* Window mode: the page is accessible now. */
	if (kind == PGF_KIND_FAULT && rcu_access_pointer(t->window))
		__pgf_window_admit(t, address);
#endif
}

/**
 * pgf_record_fault() - record a fault of a traced process
 * @t: the process's trace (current->signal->pgf_trace)
 * @mm: the mm the fault was handled in
 * @address: the faulting address
 * @flags: FAULT_FLAG_* it was handled with
 * @ret: what handling it returned
 * @regs: the registers at the fault, or NULL
 *
 * For pgfault_history_fault(). A minor fault on the process's own mm,
 * nearly every fault, is written by pgf_write_fault() from here; the
 * others go through pgf_record_unusual().
 */
void pgf_record_fault(struct pgf_trace *t, struct mm_struct *mm,
		      unsigned long address, unsigned int flags, vm_fault_t ret,
		      struct pt_regs *regs)
{
	if (unlikely((ret & PGF_FAULT_UNUSUAL) || (flags & FAULT_FLAG_TRIED) ||
		     mm != current->mm)) {
		pgf_record_unusual(t, mm, address, flags, ret, regs);
		return;
	}
	pgf_write_fault(t, PGF_RESULT_MINOR << PGF_FAULT_RESULT_SHIFT |
			pgf_fault_flags(flags), address, pgf_fault_ip(regs));
}

/**
 * pgf_record_minor() - pgf_write_fault() for a trace not simply recording
 * @t: the trace
 * @flags: the record's flags
 * @addr: the faulting address
 * @ip: the instruction pointer of the access
 *
 * A minor fault on the process's own mm while the trace is stopped, owes
 * its reader a layout or is in window mode, or on a CPU that has no ring
 * yet: as pgf_record_unusual() records it.
 */
noinline void pgf_record_minor(struct pgf_trace *t, unsigned int flags,
			       unsigned long addr, unsigned long ip)
{
	u64 frame = 0;

	if (!READ_ONCE(t->active))
		return;
#ifdef PGF_STAGE_PHYS
	frame = pgf_take_frame();
	if (!pgf_trace_frames(t))
		frame = 0;
#endif
	pgf_write_fault_slow(t, flags, addr, ip, frame);
#ifdef PGF_STAGE_WINDOW
	/* Window mode: the page is accessible now. */
	if (rcu_access_pointer(t->window))
		__pgf_window_admit(t, addr);
#endif
}

/* An ordinary exec: the exec record; the old address space is gone. */
static void pgf_exec_record(struct pgf_trace *t, struct linux_binprm *bprm)
{
	const char *path = bprm->filename;
	struct pgf_rec *rec = NULL;
	size_t n, len;

	mutex_lock(&t->mutex);
#ifdef PGF_STAGE_CHANGES
	/* No change to the old mm may come after the exec record. */
	pgf_changes_bind(t, NULL);
#endif
	if (!READ_ONCE(t->active))
		goto out_reset;
	n = strnlen(path, PATH_MAX - 1);
	len = round_up(sizeof(*rec) + n + 1, PGF_REC_ALIGN);
	rec = kmalloc(len, GFP_KERNEL_ACCOUNT);
	if (!rec) {
		spin_lock(&t->lock);
		__pgf_count_lost(&t->ctl, PGF_KIND_OTHER);
#ifdef PGF_STAGE_REGIONS
		/* The reader is owed the new address space in full. */
		WRITE_ONCE(t->need_layout, true);
#endif
		spin_unlock(&t->lock);
		goto out_reset;
	}
	pgf_rec_init(t, rec, PGF_REC_EXEC, len);
	memcpy(rec->data, path, n);
	memset(rec->data + n, 0, len - sizeof(*rec) - n);
	pgf_emit(t, rec, PGF_KIND_OTHER);
out_reset:
#ifdef PGF_STAGE_REGIONS
	/* The new one is announced by map records as it is built. */
	pgf_regions_reset(t);
	pgf_regions_bind(t, READ_ONCE(t->active) ? current->mm : NULL, true);
#endif
#ifdef PGF_STAGE_WINDOW
	if (READ_ONCE(t->active))
		__pgf_window_restart(t);
#endif
	mutex_unlock(&t->mutex);
	kfree(rec);
}

/*
 * End @t for good: nothing more is recorded after its last record, the
 * exit record @ex (its totals filled in here) or, without one, a stop for
 * changed credentials if @credentials; the reader drains it and gets EOF.
 * Returns whether it was active (the caller drops the key).
 */
static bool pgf_trace_finish(struct pgf_trace *t, struct pgf_exit_rec *ex,
			     bool credentials)
{
	bool was;

	mutex_lock(&t->mutex);
	was = __pgf_quiesce(t);
	if (ex) {
		pgf_fault_totals(t, &ex->rec.b, &ex->lost);
#ifdef PGF_STAGE_REGIONS
		ex->regions = t->shadow.next_id;
#else
		ex->regions = 0;
#endif
#ifdef PGF_STAGE_FILES
		pgf_cache_totals(t, &ex->cache, &ex->cache_lost);
		if (t->files_seen)
			ex->rec.flags |= PGF_EXIT_CACHE;
#endif
	}
	spin_lock(&t->lock);
	if (t->started && !t->dead) {
		if (ex && !__pgf_write(&t->ctl, &ex->rec, PGF_KIND_FINAL,
				       ktime_get_ns()))
			__pgf_count_lost(&t->ctl, PGF_KIND_FINAL);
		else if (!ex && credentials)
			__pgf_control(t, PGF_REC_STOP, PGF_STOP_CREDENTIALS,
				      0, 0);
	}
	t->dead = true;
	spin_unlock(&t->lock);
	__pgf_release(t, true);
	mutex_unlock(&t->mutex);
	pgf_wake(t, EPOLLIN | EPOLLRDNORM | EPOLLHUP);
	return was;
}

/* A credential-changing exec: the trace ends and the process loses it. */
static void pgf_exec_end(struct pgf_trace *t, struct signal_struct *sig)
{
	bool was = pgf_trace_finish(t, NULL, true);

	spin_lock_irq(&current->sighand->siglock);
	WRITE_ONCE(sig->pgf_trace, NULL);
	spin_unlock_irq(&current->sighand->siglock);
	pgf_trace_put(t);		/* the process's reference */
	if (was)
		pgf_key_put();
}

/**
 * pgf_exec() - an exec has committed its credentials
 * @bprm: the exec
 *
 * Context: begin_new_exec(), exec_update_lock held for writing, the new
 * mm installed, every other thread gone.
 */
void pgf_exec(struct linux_binprm *bprm)
{
	struct signal_struct *sig = current->signal;
	const struct cred *cred = NULL;
	struct pgf_trace *t;
	bool cred_change;

	lockdep_assert_held_write(&sig->exec_update_lock);
	cred_change = bprm->secureexec ||
		      (bprm->interp_flags & BINPRM_FLAGS_ENFORCE_NONDUMP) ||
		      get_dumpable(current->mm) != SUID_DUMP_USER;
	t = pgf_trace_of(sig);
	if (t && !cred_change) {
		/*
		 * Whoever reads the trace must still be allowed to ptrace
		 * the new image, as to open /proc/<pid>/mem now: a change
		 * of user or of security domain made without AT_SECURE
		 * (setresuid() before the exec, an LSM transition) ends it.
		 */
		cred = pgf_trace_get_cred(t);
		if (cred && !pgf_may_still_trace(current, cred))
			cred_change = true;
		if (cred)
			put_cred(cred);
	}
	if (cred_change)
		WRITE_ONCE(sig->pgf_exec_gen, sig->pgf_exec_gen + 1);
	if (!t)
		return;
	if (cred_change)
		pgf_exec_end(t, sig);
	else
		pgf_exec_record(t, bprm);
}

/**
 * pgf_trace_end() - the traced process is gone, or will never run
 * @t: its trace
 * @ex: the exit record to end the trace with, its totals filled in here;
 *      NULL for none (a fork that failed)
 *
 * Nothing more is recorded; the reader drains the trace and gets EOF.
 */
void pgf_trace_end(struct pgf_trace *t, struct pgf_exit_rec *ex)
{
	if (pgf_trace_finish(t, ex, false))
		pgf_key_put();
}

void pgf_exit(struct task_struct *tsk)
{
	struct signal_struct *sig = tsk->signal;
	struct pgf_exit_rec ex;
	long code;

	/* The wait status the parent will see. */
	code = sig->flags & SIGNAL_GROUP_EXIT ? sig->group_exit_code :
						tsk->group_leader->exit_code;
	pgf_rec_init(pgf_trace_of(sig), &ex.rec, PGF_REC_EXIT, sizeof(ex));
	ex.rec.a = (u32)code;
	pgf_trace_end(pgf_trace_of(sig), &ex);
}

#ifdef PGF_STAGE_REGIONS
/*
 * The last thread is leaving, its mm still there: a change still noted is
 * recorded, and the layout the reader is owed goes in now, as far as the
 * control ring at its limit holds it, for the trace to end with every
 * region known. The exit cannot wait for a reader: what does not fit is
 * counted lost, and no ring grows past its limit, the budget or the
 * memory cgroup's headroom for it. Nothing changes the VMAs any more:
 * every thread exits.
 */
void pgf_group_exit(struct task_struct *tsk)
{
	struct pgf_trace *t = pgf_trace_of(tsk->signal);
	struct mm_struct *mm = tsk->mm;

	if (!t || !mm || !READ_ONCE(t->active) ||
	    (!READ_ONCE(t->need_layout) && !READ_ONCE(mm->pgf.nr)))
		return;
	mmap_read_lock(mm);
	/* A change no thread will return to user space to record. */
	pgf_regions_catch_up(t, mm, false);
	mutex_lock(&t->mutex);
	while (READ_ONCE(t->active) && READ_ONCE(t->need_layout) &&
	       t->mm == mm && pgf_regions_layout(t, mm, true))
		cond_resched();
	mutex_unlock(&t->mutex);
	mmap_read_unlock(mm);
}
#endif

void pgf_signal_free(struct signal_struct *sig)
{
	struct pgf_trace *t = sig->pgf_trace;

	sig->pgf_trace = NULL;
	pgf_trace_put(t);
}

/**
 * pgf_reader_attach() - become the reader of a process's trace
 * @task: any thread of the process
 * @cred: the credentials of the file's opener
 * @exec_gen: the credential generation the file was opened in
 * @tp: set to the trace, with a reference, on success
 *
 * Return: 0, -ESRCH if the process has no trace, -EBUSY if another open
 * file is reading it, -EACCES, -EINVAL, -EINTR.
 */
int pgf_reader_attach(struct task_struct *task, const struct cred *cred,
		      u64 exec_gen, struct pgf_trace **tp)
{
	struct signal_struct *sig = task->signal;
	struct pgf_trace *t;
	int err;

	err = pgf_lock_may_use(task, cred, exec_gen);
	if (err)
		return err;
	t = pgf_trace_of(sig);
	err = -ESRCH;
	if (!t)
		goto out_unlock;
	spin_lock(&t->lock);
	err = t->reader ? -EBUSY : 0;
	if (!err) {
		t->reader = true;
		refcount_inc(&t->ref);
		*tp = t;
	}
	spin_unlock(&t->lock);
	if (!err)
		pgf_trace_hold_cred(t, cred, true);
out_unlock:
	up_read(&sig->exec_update_lock);
	return err;
}

/**
 * pgf_reader_detach() - the reader closed its file
 * @t: the trace; the reader's reference is dropped
 */
void pgf_reader_detach(struct pgf_trace *t)
{
	pgf_trace_hold_cred(t, NULL, true);
	spin_lock(&t->lock);
	t->reader = false;
	spin_unlock(&t->lock);
	pgf_trace_put(t);
}

#ifdef PGF_STAGE_REGIONS
/* pgf_resend_layout() under @task's exec_update_lock. */
static int __pgf_resend_layout(struct pgf_trace *t, struct task_struct *task)
{
	struct mm_struct *mm __free(pgf_mmput) = NULL;
	int ret = 0;

	if (pgf_trace_of(task->signal) != t)
		return 0;
	mm = pgf_live_mm(task);
	if (!mm)
		return 0;
	if (mmap_read_lock_killable(mm))
		return -EINTR;
	scoped_guard(mutex, &t->mutex) {
		/* As many parts as the buffer takes. */
		while (READ_ONCE(t->active) && READ_ONCE(t->need_layout) &&
		       t->mm == mm && pgf_regions_layout(t, mm, false)) {
			ret = 1;
			cond_resched();
		}
	}
	mmap_read_unlock(mm);
	return ret;
}

/**
 * pgf_resend_layout() - send the layout the reader is owed, or its next part
 * @t: the trace, which lost a region record or is sending a layout
 * @pid: its process
 *
 * Called by the reader once it has drained the rings: the layout is taken
 * under the mmap lock of a live thread's mm, ordered against exec. A
 * layout larger than the control ring comes in parts, as many per call as
 * the ring takes (pgf_regions_layout()).
 *
 * Context: process context, may sleep.
 * Return: 1 if records went into the trace, 0 if not, or -EINTR.
 */
int pgf_resend_layout(struct pgf_trace *t, struct pid *pid)
{
	struct task_struct *task __free(put_task) =
		get_pid_task(pid, PIDTYPE_TGID);
	int ret;

	if (!task)
		return 0;
	ret = down_read_killable(&task->signal->exec_update_lock);
	if (ret)
		return ret;
	ret = __pgf_resend_layout(t, task);
	up_read(&task->signal->exec_update_lock);
	return ret;
}
#endif

#ifdef CONFIG_PGFAULT_HISTORY_KUNIT_TEST
#include "tests/core-kunit.h"
#endif
