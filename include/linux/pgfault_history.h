/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pgfault_history - per-process page fault and address space tracing.
 *
 * The hooks that existing kernel code calls. Each is a static inline that
 * costs one static branch when no process anywhere is traced, and a test
 * of PF_PGFAULT_HISTORY in current->flags when some process is; the real
 * work is out of line in mm/pgfault_history.c. With the option off they
 * compile away. Documentation/ lives in the project README.
 */
#ifndef _LINUX_PGFAULT_HISTORY_H
#define _LINUX_PGFAULT_HISTORY_H

#include <linux/jump_label.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <linux/wait.h>

struct linux_binprm;

#ifdef CONFIG_PGFAULT_HISTORY

/*
 * Records as the kernel stores them (see the DOC: in mm/pgfault_history.c);
 * fs/proc/pgfault_history.c turns them into the text format described in
 * include/uapi/linux/pgfault_history.h when they are read.
 */
enum pgf_rec_type {
	PGF_REC_PAD,		/* filler at the end of the ring */
	PGF_REC_FAULT,		/* a: address, b: user IP */
	PGF_REC_LOST,		/* a: fault records lost, b: other records lost */
	PGF_REC_START,
	PGF_REC_STOP,		/* flags: enum pgf_stop_reason */
	PGF_REC_EXEC,		/* data: the path, NUL-terminated */
	PGF_REC_EXIT,		/* a: wait status, b: faults, &pgf_exit_rec */
	PGF_REC_MAP,		/* &pgf_region_rec: a new region */
	PGF_REC_CHANGE,		/* &pgf_region_rec: a region's new state */
	PGF_REC_UNMAP,		/* a: region id */
	PGF_REC_LAYOUT,		/* a: number of MAP records that follow */
};

/* pgf_rec.flags of a fault: access in bits 0-1, kernel mode, result. */
#define PGF_ACCESS_READ		0x00
#define PGF_ACCESS_WRITE	0x01
#define PGF_ACCESS_EXEC		0x02
#define PGF_ACCESS_MASK		0x03
#define PGF_FAULT_KERNEL	0x04
#define PGF_FAULT_RESULT_SHIFT	4

enum pgf_result {
	PGF_RESULT_MINOR,
	PGF_RESULT_MAJOR,
	PGF_RESULT_SIGSEGV,
	PGF_RESULT_SIGBUS,
	PGF_RESULT_OOM,
};

enum pgf_stop_reason {
	PGF_STOP_USER,
	PGF_STOP_CREDENTIALS,
};

/* What a dropped record counts as. */
enum pgf_kind {
	PGF_KIND_FAULT,
	PGF_KIND_OTHER,
	PGF_KIND_CONTROL,	/* may use the reserve; never grows the buffer */
};

#define PGF_REC_ALIGN		8

struct pgf_rec {
	u8 type;		/* enum pgf_rec_type */
	u8 flags;
	u16 len;		/* bytes, a multiple of PGF_REC_ALIGN */
	u32 tid;		/* in the traced thread's pid namespace */
	u64 time;		/* ktime_get_ns() */
	u64 a;
	u64 b;
	u8 data[];
};

struct pgf_exit_rec {
	struct pgf_rec rec;
	u64 lost;		/* fault records lost over the whole trace */
	u64 regions;		/* region ids handed out */
};

/* pgf_rec.flags of a region: the permissions as /proc/<pid>/maps shows. */
#define PGF_PROT_READ		0x01
#define PGF_PROT_WRITE		0x02
#define PGF_PROT_EXEC		0x04
#define PGF_PROT_SHARED		0x08

/* A region: rec.a start, rec.b end, then its identity; data: its name. */
struct pgf_region_rec {
	struct pgf_rec rec;
	u64 id;			/* a sequence number, never a pointer */
	u64 offset;		/* bytes into the file, 0 if anonymous */
	u64 ino;
	u32 major, minor;
	char name[];		/* path or [label], NUL-terminated, may be "" */
};

/* What the trace knows of one VMA, to tell what changed. */
struct pgf_region {
	const void *vma;	/* identity only, never dereferenced or shown */
	const void *file;
	const void *anon_name;
	u64 id;
	unsigned long start, end, pgoff;
	u8 prot;		/* PGF_PROT_* */
	u8 label;		/* heap, stack */
	bool seen;
};

/* The regions of the traced mm as the reader was last told them. */
struct pgf_shadow {
	struct mutex lock;	/* also serializes start */
	struct pgf_region *v;	/* by address */
	unsigned int nr;
	u64 next_id;
	bool need_layout;	/* a region record was lost: resend all */
};

/* The largest record: a region with a PATH_MAX name. */
#define PGF_REC_MAX		(sizeof(struct pgf_region_rec) + PATH_MAX)

/* The buffer: meta information first, then the ring of records. */
struct pgf_buf {
	u32 size;		/* bytes in data[] */
	u32 head;		/* where the next record goes */
	u32 tail;		/* the oldest record */
	u32 used;		/* bytes in use; 0 is empty */
	u8 data[] __aligned(PGF_REC_ALIGN);
};

struct pgf_trace {
	spinlock_t lock;		/* buf and everything below but ref, wait */
	struct pgf_buf *buf;
	size_t alloc;			/* bytes allocated for buf */
	size_t limit;			/* most it may grow to */
	bool active;			/* recording */
	bool dead;			/* the process has exited */
	bool growing;			/* a producer is allocating */
	bool reader;			/* a file is reading */
	bool reader_sleeps;		/* the reader waits for records */
	bool wake_armed;		/* wake_timer pending (holds a ref) */
	u64 lost_faults;		/* dropped since the last LOST record */
	u64 lost_other;
	u64 nr_faults;			/* fault records kept */
	u64 total_lost_faults;
	refcount_t ref;
	wait_queue_head_t wait;		/* the reader */
	struct timer_list wake_timer;	/* deferred wake-up of the reader */
	struct pgf_shadow shadow;	/* regions, under shadow.lock */
};

/* Between mm/pgfault_history.c and mm/pgfault_history_vma.c */

/**
 * pgf_rec_init() - fill in the common part of a record
 * @rec: the record
 * @type: its type
 * @len: its length in bytes, a multiple of PGF_REC_ALIGN
 *
 * The time is now and the thread is current. Inline, so that the fault
 * path's record is built in registers rather than cleared and copied.
 */
static inline void pgf_rec_init(struct pgf_rec *rec, enum pgf_rec_type type,
				u32 len)
{
	*rec = (struct pgf_rec) {
		.type = type,
		.len = len,
		.tid = task_pid_vnr(current),
		.time = ktime_get_ns(),
	};
}

bool pgf_emit(struct pgf_trace *t, const struct pgf_rec *src,
	      enum pgf_kind kind);
void pgf_regions_sync(struct pgf_trace *t, struct mm_struct *mm,
		      bool layout);
void pgf_regions_reset(struct pgf_trace *t);

/* For fs/proc/pgfault_history.c */
struct pgf_trace *pgf_trace_get(struct task_struct *task);
void pgf_trace_put(struct pgf_trace *t);
int pgf_start(struct task_struct *task);
int pgf_stop(struct task_struct *task);
int pgf_reader_attach(struct pgf_trace *t);
void pgf_reader_detach(struct pgf_trace *t);
bool pgf_readable(struct pgf_trace *t);
size_t pgf_pop(struct pgf_trace *t, void *out, size_t size, bool *eof);

extern const struct file_operations proc_pgfault_history_operations;

DECLARE_STATIC_KEY_FALSE(pgf_tracing_key);

void __pgf_record_fault(struct mm_struct *mm, unsigned long address,
			unsigned int flags, vm_fault_t ret,
			struct pt_regs *regs);
void __pgf_fork(struct task_struct *p, unsigned long clone_flags);
void __pgf_exec(struct linux_binprm *bprm);
void __pgf_exit(struct task_struct *tsk, long code);
void pgf_signal_free(struct signal_struct *sig);

static inline bool pgf_current_traced(void)
{
	return static_branch_unlikely(&pgf_tracing_key) &&
	       unlikely(current->flags & PF_PGFAULT_HISTORY);
}

/**
 * pgfault_history_fault() - record a completed page fault
 * @mm: the mm the fault was handled in
 * @address: the faulting user address
 * @flags: FAULT_FLAG_* the fault was handled with
 * @ret: what handle_mm_fault() returns
 * @regs: the registers at the fault, or NULL (get_user_pages())
 *
 * Called where handle_mm_fault() accounts the fault, so a fault that is
 * retried is recorded once, when it completes.
 */
static inline void pgfault_history_fault(struct mm_struct *mm,
					 unsigned long address,
					 unsigned int flags, vm_fault_t ret,
					 struct pt_regs *regs)
{
	if (pgf_current_traced())
		__pgf_record_fault(mm, address, flags, ret, regs);
}

/**
 * pgfault_history_fork() - decide whether a new task is traced
 * @p: the new task, not yet running
 * @clone_flags: CLONE_* flags
 *
 * Called by copy_process() under current->sighand->siglock. A new thread
 * of a traced process is traced; a new process never is.
 */
static inline void pgfault_history_fork(struct task_struct *p,
					unsigned long clone_flags)
{
	if (static_branch_unlikely(&pgf_tracing_key) ||
	    unlikely(p->flags & PF_PGFAULT_HISTORY))
		__pgf_fork(p, clone_flags);
}

/**
 * pgfault_history_exec() - note an exec past its point of no return
 * @bprm: the exec in progress, before the old mm is released
 *
 * Records the exec, or stops tracing if it changes credentials.
 */
static inline void pgfault_history_exec(struct linux_binprm *bprm)
{
	if (pgf_current_traced())
		__pgf_exec(bprm);
}

/**
 * pgfault_history_exit() - the last thread of a process is exiting
 * @tsk: current
 * @code: the exit code passed to do_exit()
 */
static inline void pgfault_history_exit(struct task_struct *tsk, long code)
{
	if (unlikely(READ_ONCE(tsk->signal->pgf_trace)))
		__pgf_exit(tsk, code);
}

/**
 * pgfault_history_signal_free() - a signal_struct is being freed
 * @sig: the process's signal_struct; its trace, if any, loses a reference
 */
static inline void pgfault_history_signal_free(struct signal_struct *sig)
{
	if (unlikely(sig->pgf_trace))
		pgf_signal_free(sig);
}

#else /* !CONFIG_PGFAULT_HISTORY */

static inline void pgfault_history_fault(struct mm_struct *mm,
					 unsigned long address,
					 unsigned int flags, vm_fault_t ret,
					 struct pt_regs *regs) { }
static inline void pgfault_history_fork(struct task_struct *p,
					unsigned long clone_flags) { }
static inline void pgfault_history_exec(struct linux_binprm *bprm) { }
static inline void pgfault_history_exit(struct task_struct *tsk, long code) { }
static inline void pgfault_history_signal_free(struct signal_struct *sig) { }

#endif /* CONFIG_PGFAULT_HISTORY */
#endif /* _LINUX_PGFAULT_HISTORY_H */
