// SPDX-License-Identifier: GPL-2.0
/*
 * Per-process page fault tracing: the trace buffer, starting and stopping,
 * and the recording hooks.
 *
 * The /proc/<pid>/pgfault_history file that drives it and formats the
 * records is fs/proc/pgfault_history.c.
 */
#define pr_fmt(fmt) "pgfault: " fmt

#include <linux/binfmts.h>
#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/sched/mm.h>
#include <linux/pgfault_history.h>
#include <linux/poll.h>
#include <linux/ptrace.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysctl.h>
#include <linux/task_work.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>
#include <asm/syscall.h>

/**
 * DOC: pgfault_history trace buffer
 *
 * One &struct pgf_trace per traced process (thread group), hung off its
 * &struct signal_struct, so it is shared by all threads, survives exec and
 * is not inherited by fork (a new process gets a new, zeroed
 * signal_struct). Each thread that records carries PF_PGFAULT_HISTORY in
 * task_struct->flags; the fault path tests that flag behind the static key
 * pgf_tracing_key, which is enabled while any trace is active, so untraced
 * systems pay one patched-out branch. A task only ever changes its own
 * flags: the tracer sets the flag of the thread that writes "1" directly
 * and asks every other thread, with task_work (TWA_SIGNAL), to set its own.
 * New threads take the state of the trace in copy_process(), under the
 * siglock that pgf_start() also holds, so none is missed.
 *
 * The buffer (&struct pgf_buf) is one allocation whose start holds the
 * meta information (size, head, tail, bytes used) followed by a byte ring
 * of variable-length records (&struct pgf_rec, multiples of 8 bytes, never
 * split: a PAD record fills the end when one does not fit). It starts at
 * one page and doubles, up to the limit taken from the sysctl
 * vm.pgfault_history_buffer_kb (default 64) when tracing starts.
 *
 * Locking: &pgf_trace.lock, a spinlock, protects the buffer and the state.
 * Producers are the faulting threads, exec and exit; the consumer is the
 * reader of the proc file. Neither ever sleeps or touches user memory
 * with the lock held: the reader moves whole records into a kernel buffer
 * under the lock and formats and copies them out after dropping it, so a
 * reader that faults on its own buffer cannot deadlock with a producer.
 * The buffer grows outside the lock (the fault path may allocate; it never
 * waits for the reader). Readers sleep on &pgf_trace.wait; producers wake
 * them only when the reader said it is about to sleep (a flag set under the
 * lock by the wait condition, after the reader queued itself), and then in
 * batches: when the ring is a quarter full, or one tick after the first
 * record (a timer). No barrier in the fault path, no wake-up per record;
 * a stop and the exit wake the reader at once.
 *
 * When the buffer is full at the limit a record is dropped and counted
 * (faults and other records apart). Before the next record that is kept, a
 * LOST record carrying the exact counts is written; if the loss is the
 * last thing that happens, the reader makes the LOST record itself once
 * the ring is empty. A small reserve at the end of the ring is kept for
 * the control records (start, stop, exit, lost), so the end of a trace
 * always shows. Nothing is lost silently: the records read plus the lost
 * counts equal what happened.
 *
 * Lifetime: the trace is reference counted. The signal_struct holds one
 * reference until it is freed (the process has been reaped); every reader
 * holds one. When the last thread exits, the trace is marked dead and an
 * EXIT record written; readers then drain it and get EOF.
 */

/*
 * Bytes of the ring kept for control records: a LOST and an EXIT (the
 * largest control record) together, twice over for the PAD a wrap may
 * need in front of them.
 */
#define PGF_RESERVE	(2 * (sizeof(struct pgf_rec) + sizeof(struct pgf_exit_rec)))
#define PGF_MIN_KB	4
#define PGF_MAX_KB	(64 * 1024)

DEFINE_STATIC_KEY_FALSE(pgf_tracing_key);

static unsigned int pgf_buffer_kb = 64;
static unsigned int pgf_min_kb = PGF_MIN_KB;
static unsigned int pgf_max_kb = PGF_MAX_KB;

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
};

/* Kernel memory held, for /sys/kernel/debug/pgfault_history. */
static atomic_long_t pgf_nr_traces = ATOMIC_LONG_INIT(0);
static atomic_long_t pgf_nr_buf_bytes = ATOMIC_LONG_INIT(0);

static int pgf_stats_show(struct seq_file *m, void *v)
{
	seq_printf(m, "traces %ld\nbuffer_bytes %ld\ntrace_bytes %zu\nregion_bytes %zu\n",
		   atomic_long_read(&pgf_nr_traces),
		   atomic_long_read(&pgf_nr_buf_bytes),
		   sizeof(struct pgf_trace), sizeof(struct pgf_region));
	return 0;
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

static void pgf_wake_timer(struct timer_list *timer);

static struct pgf_trace *pgf_trace_alloc(void)
{
	struct pgf_trace *t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);

	if (!t)
		return NULL;
	t->buf = pgf_buf_alloc(PAGE_SIZE, GFP_KERNEL_ACCOUNT);
	if (!t->buf) {
		kfree(t);
		return NULL;
	}
	t->alloc = PAGE_SIZE;
	atomic_long_inc(&pgf_nr_traces);
	atomic_long_add(PAGE_SIZE, &pgf_nr_buf_bytes);
	t->limit = max_t(size_t, PAGE_SIZE, (size_t)READ_ONCE(pgf_buffer_kb) * SZ_1K);
	spin_lock_init(&t->lock);
	init_waitqueue_head(&t->wait);
	timer_setup(&t->wake_timer, pgf_wake_timer, 0);
	mutex_init(&t->shadow.lock);
	refcount_set(&t->ref, 1);
	return t;
}

/**
 * pgf_trace_put() - drop a reference to a trace, freeing it with the last
 * @t: the trace
 *
 * May be called from any context but NMI (the signal_struct's reference is
 * dropped from an RCU callback).
 */
void pgf_trace_put(struct pgf_trace *t)
{
	if (!refcount_dec_and_test(&t->ref))
		return;
	WARN_ON_ONCE(t->active);
	atomic_long_dec(&pgf_nr_traces);
	atomic_long_sub(t->alloc, &pgf_nr_buf_bytes);
	kvfree(t->shadow.v);
	kvfree(t->buf);
	kfree(t);
}

/**
 * pgf_trace_get() - the trace of a process, with a reference
 * @task: any thread of the process
 *
 * Return: the trace, or NULL if the process never traced (or is gone).
 */
struct pgf_trace *pgf_trace_get(struct task_struct *task)
{
	struct pgf_trace *t = NULL;
	unsigned long flags;

	if (!lock_task_sighand(task, &flags))
		return NULL;
	t = task->signal->pgf_trace;
	if (t)
		refcount_inc(&t->ref);
	unlock_task_sighand(task, &flags);
	return t;
}

/* Room for @len more bytes, wrapping with a PAD record if needed. */
static struct pgf_rec *__pgf_reserve(struct pgf_trace *t, u32 len, bool control)
{
	struct pgf_buf *b = t->buf;
	u32 room = b->size - b->used;
	u32 to_end, need;
	struct pgf_rec *rec;

	lockdep_assert_held(&t->lock);
	if (!control)
		room = room > PGF_RESERVE ? room - PGF_RESERVE : 0;
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
 * Grow the buffer to the next size. Called and returns with t->lock held,
 * drops it to allocate. Returns false if the buffer cannot grow.
 */
static bool __pgf_grow(struct pgf_trace *t)
{
	struct pgf_buf *nb, *old;
	size_t want;

	lockdep_assert_held(&t->lock);
	if (t->growing || t->alloc >= t->limit)
		return false;
	want = min(t->alloc * 2, t->limit);
	t->growing = true;
	spin_unlock(&t->lock);
	nb = pgf_buf_alloc(want, GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_NORETRY);
	spin_lock(&t->lock);
	t->growing = false;
	if (!nb)
		return false;
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

static void __pgf_count_lost(struct pgf_trace *t, enum pgf_kind kind)
{
	lockdep_assert_held(&t->lock);
	if (kind == PGF_KIND_FAULT) {
		t->lost_faults++;
		t->total_lost_faults++;
	} else {
		t->lost_other++;
	}
}

/*
 * Write @src into the ring as it is, after the LOST record that a loss
 * before it calls for. Both go in one reservation, so that either both are
 * written or, when they do not fit, nothing is: a full ring never fills
 * its reserve with LOST records. Returns false if nothing was written.
 */
static bool __pgf_write(struct pgf_trace *t, const struct pgf_rec *src,
			enum pgf_kind kind)
{
	u32 lost = t->lost_faults || t->lost_other ? sizeof(struct pgf_rec) : 0;
	struct pgf_rec *rec;

	lockdep_assert_held(&t->lock);
	rec = __pgf_reserve(t, lost + src->len, kind == PGF_KIND_CONTROL);
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

static void pgf_wake(struct pgf_trace *t)
{
	wake_up_interruptible_poll(&t->wait, EPOLLIN | EPOLLRDNORM);
}

/*
 * Does a record just written need to wake the reader? Only if the reader
 * said it is going to sleep (pgf_readable() found nothing, after it had
 * queued itself on t->wait), and then not at once: when the ring is a
 * quarter full, or else one tick later (t->wake_timer, armed once). So the
 * fault path pays no memory barrier, and a reader that keeps up is woken
 * for batches, not once per record. @arm is set when the caller must arm
 * the timer; the reference it takes is the timer's.
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

/*
 * The deferred wake-up. It runs in softirq context, where t->lock (taken
 * with plain spin_lock() in process context) must not be taken: it clears
 * wake_armed before waking, so a record written after the reader has
 * woken and gone back to sleep arms the timer again.
 */
static void pgf_wake_timer(struct timer_list *timer)
{
	struct pgf_trace *t = from_timer(t, timer, wake_timer);

	WRITE_ONCE(t->wake_armed, false);
	pgf_wake(t);
	pgf_trace_put(t);
}

/**
 * pgf_emit() - append a record to a trace
 * @t: the trace
 * @src: the record
 * @kind: what to count it as if it has to be dropped
 *
 * Grows the buffer if it is full and may grow; counts the record as lost
 * otherwise. It may allocate, but never waits for the reader.
 *
 * Context: process context; no spinlock held (the mmap lock may be).
 * Return: true if the record was kept.
 */
bool pgf_emit(struct pgf_trace *t, const struct pgf_rec *src,
	      enum pgf_kind kind)
{
	bool kept = false, wake = false, arm = false;

	spin_lock(&t->lock);
	while (!t->dead) {
		kept = __pgf_write(t, src, kind);
		if (kept) {
			wake = __pgf_want_wake(t, &arm);
			break;
		}
		if (!__pgf_grow(t)) {
			__pgf_count_lost(t, kind);
			break;
		}
	}
	spin_unlock(&t->lock);
	if (wake)
		pgf_wake(t);
	else if (arm)
		mod_timer(&t->wake_timer, jiffies + 1);
	return kept;
}

/* A start, stop or exit record, under the lock: never grows the buffer. */
static void __pgf_control(struct pgf_trace *t, enum pgf_rec_type type,
			  u8 flags, u64 a, u64 b)
{
	struct pgf_rec rec;

	lockdep_assert_held(&t->lock);
	pgf_rec_init(&rec, type, sizeof(rec));
	rec.flags = flags;
	rec.a = a;
	rec.b = b;
	if (!__pgf_write(t, &rec, PGF_KIND_CONTROL))
		__pgf_count_lost(t, PGF_KIND_CONTROL);
}

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

void __pgf_record_fault(struct mm_struct *mm, unsigned long address,
			unsigned int flags, vm_fault_t ret,
			struct pt_regs *regs)
{
	struct pgf_trace *t = current->signal->pgf_trace;
	struct pgf_rec rec;
	u8 result;

	/* Recorded once, when the retried fault completes. */
	if (ret & VM_FAULT_RETRY)
		return;
	if (!t || !READ_ONCE(t->active)) {
		/* Tracing stopped: this thread leaves the fast path for good. */
		current->flags &= ~PF_PGFAULT_HISTORY;
		return;
	}
	/* A remote access into another mm is not this process's fault. */
	if (mm != current->mm)
		return;

	if (ret & VM_FAULT_OOM)
		result = PGF_RESULT_OOM;
	else if (ret & (VM_FAULT_SIGBUS | VM_FAULT_HWPOISON |
			VM_FAULT_HWPOISON_LARGE))
		result = PGF_RESULT_SIGBUS;
	else if (ret & VM_FAULT_SIGSEGV)
		result = PGF_RESULT_SIGSEGV;
	else if ((ret & VM_FAULT_MAJOR) || (flags & FAULT_FLAG_TRIED))
		result = PGF_RESULT_MAJOR;	/* as mm_account_fault() counts */
	else
		result = PGF_RESULT_MINOR;

	pgf_rec_init(&rec, PGF_REC_FAULT, sizeof(rec));
	rec.flags = result << PGF_FAULT_RESULT_SHIFT;
	if (flags & FAULT_FLAG_INSTRUCTION)
		rec.flags |= PGF_ACCESS_EXEC;
	else if (flags & FAULT_FLAG_WRITE)
		rec.flags |= PGF_ACCESS_WRITE;
	if (pgf_kernel_mode(flags))
		rec.flags |= PGF_FAULT_KERNEL;
	rec.a = address;
	/* Never a kernel address: for kernel-mode faults, the syscall's IP. */
	if (regs && user_mode(regs))
		rec.b = instruction_pointer(regs);
	else
		rec.b = instruction_pointer(task_pt_regs(current));
	pgf_emit(t, &rec, PGF_KIND_FAULT);
}

struct pgf_sync_work {
	struct callback_head cb;
};

/* task_work: a thread sets or clears its own flag to match its trace. */
static void pgf_sync_flag(struct callback_head *cb)
{
	struct pgf_trace *t = READ_ONCE(current->signal->pgf_trace);

	if (t && READ_ONCE(t->active))
		current->flags |= PF_PGFAULT_HISTORY;
	else
		current->flags &= ~PF_PGFAULT_HISTORY;
	kfree(container_of(cb, struct pgf_sync_work, cb));
}

/**
 * pgf_start() - start tracing a process
 * @task: any thread of the process (the caller holds a reference)
 *
 * Starting a traced process again does nothing. The first start allocates
 * the trace; a restart after a stop continues the same stream.
 *
 * Context: process context, may sleep.
 * Return: 0, -ESRCH if the process is exiting, -ENOMEM.
 */
int pgf_start(struct task_struct *task)
{
	struct pgf_trace *t, *fresh = NULL;
	struct pgf_sync_work **works = NULL;
	struct task_struct *th;
	struct mm_struct *mm;
	unsigned long flags;
	int n = 0, i = 0, err = 0;
	bool started = false;

	/* Install the trace; the siglock only guards the pointer. */
	t = pgf_trace_get(task);
	if (!t) {
		fresh = pgf_trace_alloc();
		if (!fresh)
			return -ENOMEM;
		if (!lock_task_sighand(task, &flags)) {
			pgf_trace_put(fresh);
			return -ESRCH;
		}
		t = task->signal->pgf_trace;
		if (!t) {
			task->signal->pgf_trace = fresh;
			t = fresh;
			fresh = NULL;
		}
		refcount_inc(&t->ref);
		unlock_task_sighand(task, &flags);
		if (fresh)
			pgf_trace_put(fresh);
	}

	/*
	 * The layout first, under the mmap lock, then faults: every fault
	 * recorded falls in a region the reader knows, and a change made
	 * from now on is seen at the next write-unlock of a traced thread.
	 * shadow.lock keeps two starts apart.
	 */
	static_branch_inc(&pgf_tracing_key);	/* outside the mmap lock */
	mm = get_task_mm(task);
	if (mm)
		mmap_read_lock(mm);
	mutex_lock(&t->shadow.lock);
	spin_lock(&t->lock);
	if (!t->active && !t->dead) {
		__pgf_control(t, PGF_REC_START, 0, 0, 0);
		started = true;
	}
	spin_unlock(&t->lock);
	if (started && mm)
		pgf_regions_sync(t, mm, true);
	if (started) {
		spin_lock(&t->lock);
		started = !t->dead;
		WRITE_ONCE(t->active, started);
		spin_unlock(&t->lock);
	}
	mutex_unlock(&t->shadow.lock);
	if (mm) {
		mmap_read_unlock(mm);
		mmput(mm);
	}
	if (!started) {
		static_branch_dec(&pgf_tracing_key);
		err = t->dead ? -ESRCH : 0;
		goto out_put;
	}

	/*
	 * Every thread sets its own flag. One created from now on copies the
	 * state in copy_process(); one that exists is in the list below.
	 */
	if (task == current && get_nr_threads(task) == 1) {
		current->flags |= PF_PGFAULT_HISTORY;
		goto out_put;
	}
retry:
	n = get_nr_threads(task);
	works = kcalloc(n, sizeof(*works), GFP_KERNEL);
	if (!works)
		goto out_nomem;
	for (i = 0; i < n; i++) {
		works[i] = kmalloc(sizeof(**works), GFP_KERNEL);
		if (!works[i])
			goto out_nomem;
		init_task_work(&works[i]->cb, pgf_sync_flag);
	}
	if (!lock_task_sighand(task, &flags))
		goto out_free;
	if (get_nr_threads(task) > n) {
		unlock_task_sighand(task, &flags);
		while (i--)
			kfree(works[i]);
		kfree(works);
		goto retry;
	}
	for_each_thread(task, th) {
		if (th == current)
			current->flags |= PF_PGFAULT_HISTORY;
		else if (!(th->flags & (PF_KTHREAD | PF_EXITING)) &&
			 !task_work_add(th, &works[i - 1]->cb, TWA_SIGNAL))
			works[--i] = NULL;
	}
	unlock_task_sighand(task, &flags);
	goto out_free;

out_nomem:
	/* Tracing runs, but the threads not told are not traced: say so. */
	pr_warn_ratelimited("out of memory telling threads of %d to trace\n",
			    task_tgid_nr(task));
out_free:
	while (i--)
		kfree(works[i]);
	kfree(works);
out_put:
	pgf_trace_put(t);
	return err;
}

/* Mark @t inactive; returns true if it was active (the caller drops the key). */
static bool pgf_deactivate(struct pgf_trace *t, u8 reason)
{
	bool was;

	spin_lock(&t->lock);
	was = t->active;
	if (was) {
		WRITE_ONCE(t->active, false);
		__pgf_control(t, PGF_REC_STOP, reason, 0, 0);
	}
	spin_unlock(&t->lock);
	pgf_wake(t);
	return was;
}

/**
 * pgf_stop() - stop tracing a process
 * @task: any thread of the process
 *
 * Stopping an untraced process does nothing. Threads notice the stop at
 * their next fault and drop their flag; nothing more is recorded.
 *
 * Context: process context, may sleep.
 * Return: 0.
 */
int pgf_stop(struct task_struct *task)
{
	struct pgf_trace *t = pgf_trace_get(task);

	if (!t)
		return 0;
	if (pgf_deactivate(t, PGF_STOP_USER))
		static_branch_dec(&pgf_tracing_key);
	if (task == current)
		current->flags &= ~PF_PGFAULT_HISTORY;
	pgf_trace_put(t);
	return 0;
}

void __pgf_fork(struct task_struct *p, unsigned long clone_flags)
{
	struct pgf_trace *t = READ_ONCE(current->signal->pgf_trace);

	lockdep_assert_held(&current->sighand->siglock);
	if ((clone_flags & CLONE_THREAD) && t && READ_ONCE(t->active))
		p->flags |= PF_PGFAULT_HISTORY;
	else
		p->flags &= ~PF_PGFAULT_HISTORY;
}

void __pgf_exec(struct linux_binprm *bprm)
{
	struct pgf_trace *t = current->signal->pgf_trace;
	const char *path = bprm->filename;
	struct pgf_rec *rec;
	size_t n, len;

	if (!t || !READ_ONCE(t->active))
		return;
	if (bprm->secureexec ||
	    !uid_eq(bprm->cred->euid, current_euid()) ||
	    !gid_eq(bprm->cred->egid, current_egid())) {
		/* Not ours to watch any more: stop, and say why. */
		if (pgf_deactivate(t, PGF_STOP_CREDENTIALS))
			static_branch_dec(&pgf_tracing_key);
		current->flags &= ~PF_PGFAULT_HISTORY;
		return;
	}
	n = strnlen(path, PATH_MAX - 1);
	len = round_up(sizeof(*rec) + n + 1, PGF_REC_ALIGN);
	rec = kmalloc(len, GFP_KERNEL);
	if (!rec) {
		spin_lock(&t->lock);
		t->lost_other++;
		spin_unlock(&t->lock);
		mutex_lock(&t->shadow.lock);
		pgf_regions_reset(t);
		t->shadow.need_layout = true;
		mutex_unlock(&t->shadow.lock);
		return;
	}
	pgf_rec_init(rec, PGF_REC_EXEC, len);
	memcpy(rec->data, path, n);
	memset(rec->data + n, 0, len - sizeof(*rec) - n);
	/* The old address space goes with the exec; the new one follows. */
	mutex_lock(&t->shadow.lock);
	pgf_emit(t, rec, PGF_KIND_OTHER);
	pgf_regions_reset(t);
	mutex_unlock(&t->shadow.lock);
	kfree(rec);
}

void __pgf_exit(struct task_struct *tsk, long code)
{
	struct pgf_trace *t = tsk->signal->pgf_trace;
	struct pgf_exit_rec ex;
	bool was;

	if (!t)
		return;
	if (tsk->signal->flags & SIGNAL_GROUP_EXIT)
		code = tsk->signal->group_exit_code;
	pgf_rec_init(&ex.rec, PGF_REC_EXIT, sizeof(ex));
	ex.rec.a = (u32)code;

	spin_lock(&t->lock);
	was = t->active;
	WRITE_ONCE(t->active, false);
	ex.rec.b = t->nr_faults;
	ex.lost = t->total_lost_faults;
	ex.regions = READ_ONCE(t->shadow.next_id);
	if (!__pgf_write(t, &ex.rec, PGF_KIND_CONTROL))
		__pgf_count_lost(t, PGF_KIND_CONTROL);
	WRITE_ONCE(t->dead, true);
	spin_unlock(&t->lock);

	wake_up_interruptible_poll(&t->wait, EPOLLIN | EPOLLHUP);
	tsk->flags &= ~PF_PGFAULT_HISTORY;
	if (was)
		static_branch_dec(&pgf_tracing_key);
}

void pgf_signal_free(struct signal_struct *sig)
{
	struct pgf_trace *t = sig->pgf_trace;

	sig->pgf_trace = NULL;
	pgf_trace_put(t);
}

/**
 * pgf_reader_attach() - become the reader of a trace
 * @t: the trace
 *
 * Return: 0, or -EBUSY if another open file is reading it.
 */
int pgf_reader_attach(struct pgf_trace *t)
{
	int err = 0;

	spin_lock(&t->lock);
	if (t->reader)
		err = -EBUSY;
	else
		t->reader = true;
	spin_unlock(&t->lock);
	return err;
}

/**
 * pgf_reader_detach() - the reader closed its file
 * @t: the trace
 */
void pgf_reader_detach(struct pgf_trace *t)
{
	spin_lock(&t->lock);
	t->reader = false;
	spin_unlock(&t->lock);
}

/**
 * pgf_readable() - is there something for the reader to do
 * @t: the trace
 *
 * Context: the caller has queued itself on @t->wait (a wait condition, or
 * poll after poll_wait()): when nothing is there, the next record written
 * wakes it.
 * Return: true if records (or a pending loss count) wait, or the process
 * is dead (the reader gets EOF).
 */
bool pgf_readable(struct pgf_trace *t)
{
	bool ret;

	spin_lock(&t->lock);
	ret = t->buf->used || t->lost_faults || t->lost_other || t->dead;
	/* The caller is on t->wait: the next record must wake it. */
	if (!ret)
		t->reader_sleeps = true;
	spin_unlock(&t->lock);
	return ret;
}

/**
 * pgf_pop() - take whole records out of the trace
 * @t: the trace
 * @out: kernel buffer for the records
 * @size: its size, at least PGF_REC_MAX bytes
 * @eof: set when the process is dead and everything has been taken
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
	*eof = t->dead && !b->used && !t->lost_faults && !t->lost_other;
	spin_unlock(&t->lock);
	return done;
}

#ifdef CONFIG_PGFAULT_HISTORY_BENCHMARK
#include "pgfault_history_bench.h"
#endif

#ifdef CONFIG_PGFAULT_HISTORY_KUNIT_TEST
#include "pgfault_history_kunit.h"
#endif
