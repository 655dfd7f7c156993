/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pgfault_history - per-process page fault and address space tracing.
 *
 * The hooks that existing kernel code calls, and their stubs for kernels
 * without the option. The fault and fork hooks cost one static branch
 * when no process anywhere is traced, and a load of the process's trace
 * pointer when some process is; the real work is out of line in
 * mm/pgfault_history/.
 * Documentation/admin-guide/mm/pgfault_history.rst is the interface,
 * Documentation/mm/pgfault_history.rst the design.
 */
#ifndef _LINUX_PGFAULT_HISTORY_H
#define _LINUX_PGFAULT_HISTORY_H

#include <linux/atomic.h>
#ifdef PGF_STAGE_CHANGES
#include <linux/bits.h>
#endif
#include <linux/jump_label_ratelimit.h>
#include <linux/mm_types.h>
#ifdef PGF_STAGE_REGIONS
#include <linux/pgfault_history_mm.h>
#endif
#include <linux/pgtable.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/types.h>

#ifdef PGF_STAGE_FILES
struct address_space;
struct kiocb;
#endif
struct linux_binprm;
struct pid;
#ifdef PGF_STAGE_PHYS
struct vm_fault;

/*
 * The start of every struct pgf_trace: what the inline hooks read of a
 * trace themselves, so that a hook whose trace does not want its work
 * costs no call.
 */
struct pgf_trace_hooks {
	bool frames;		/* fault records carry frames (phys.c) */
};

/* Does the trace @t (a &signal_struct.pgf_trace) record frames? */
static inline bool pgf_trace_frames(const struct pgf_trace *t)
{
	return READ_ONCE(((const struct pgf_trace_hooks *)t)->frames);
}
#endif
#ifdef PGF_STAGE_CHANGES

/*
 * What pgfault_history_changed() says changed under a traced mm's pages,
 * and why (see the DOC: in mm/pgfault_history/changes.c).
 */
enum pgf_change_kind {
	PGF_CHANGE_MOVE,	/* to other frames; cause below */
	PGF_CHANGE_EVICT,	/* unmapped; cause: the unmap's ttu_flags */
	PGF_CHANGE_SPLIT,	/* a huge entry became base entries */
	PGF_CHANGE_COLLAPSE,	/* base entries became a new huge page's */
	PGF_CHANGE_MAPPED,	/* another task's fault mapped them */
};

/* With a kind: a run of PMD size mapped by ptes, not by a pmd. */
#define PGF_CHANGE_PTES		0x8

/* The cause of a PGF_CHANGE_MAPPED */
#define PGF_MAPPED_REMOTE	0	/* GUP, ptrace, KSM's unmerging */
#define PGF_MAPPED_AROUND	1	/* beside the faulting page */

/*
 * &task_struct.pgf_frame while a task's fault is on another mm that a
 * trace follows: what the fault maps is a change to that mm's frames.
 * Not a frame's bit (mm/pgfault_history/internal.h).
 */
#define PGF_REMOTE_FAULT	BIT_ULL(61)

/* The cause of a move: enum migrate_reason, or one of these. */
#define PGF_MOVE_KSM		16	/* merged into a KSM page */
#define PGF_MOVE_ZERO		17	/* a split THP's unused page: zero page */
#define PGF_MOVE_DEVICE		18	/* a device's migration (migrate_device.c) */

/* The cause of a collapse */
#define PGF_COLLAPSE_KHUGEPAGED	0
#define PGF_COLLAPSE_MADVISE	1	/* MADV_COLLAPSE */
#endif
#ifdef PGF_STAGE_PROC
struct file;
struct inode;
struct pid_namespace;
struct poll_table_struct;
#endif

#ifdef CONFIG_PGFAULT_HISTORY

#ifdef PGF_STAGE_PROC
/* /proc/<pid>/pgfault_history: fs/proc/base.c opens, these do the rest. */
int pgfault_history_open(struct file *file, struct task_struct *task,
			 struct pid *pid, struct pid_namespace *ns);
int pgfault_history_release(struct inode *inode, struct file *file);
ssize_t pgfault_history_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos);
ssize_t pgfault_history_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos);
__poll_t pgfault_history_poll(struct file *file,
			      struct poll_table_struct *wait);
#ifdef PGF_STAGE_INHERIT
long pgfault_history_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg);
#endif
#endif

extern struct static_key_false_deferred pgf_tracing_key;

#ifdef PGF_STAGE_REGIONS
vm_fault_t pgf_fault_begin(struct vm_area_struct *vma, unsigned int flags);
#endif
void pgf_record_fault(struct pgf_trace *t, struct mm_struct *mm,
		      unsigned long address, unsigned int flags, vm_fault_t ret,
		      struct pt_regs *regs);
void pgf_exec(struct linux_binprm *bprm);
#ifdef PGF_STAGE_INHERIT
void pgf_fork(struct task_struct *p, struct pid *pid, u64 clone_flags);
void pgf_forked(struct task_struct *p);
void pgf_fork_cancel(struct task_struct *p);
#endif
void pgf_exit(struct task_struct *tsk);
#ifdef PGF_STAGE_REGIONS
void pgf_group_exit(struct task_struct *tsk);
#endif
void pgf_signal_free(struct signal_struct *sig);
#ifdef PGF_STAGE_REARM
void pgf_rearm_moved(struct vm_area_struct *vma, unsigned long start,
		     unsigned long end);
#endif
#ifdef PGF_STAGE_FILES
void pgf_io_begin(struct file *file, const loff_t *posp, size_t count,
		  bool write);
void pgf_io_direct(struct kiocb *iocb, size_t count, bool write);
void pgf_io_fill(struct address_space *mapping, pgoff_t index,
		 unsigned long nr);
void pgf_io_write_page(struct address_space *mapping, loff_t pos,
		       size_t len);
void pgf_io_shmem_page(struct address_space *mapping, pgoff_t index);
void pgf_io_end(loff_t pos);
void pgf_io_exit(struct task_struct *tsk);
#endif
#ifdef PGF_STAGE_PHYS
void pgf_fault_mapped(struct vm_fault *vmf, unsigned long addr,
		      unsigned long pfn, unsigned long nr, unsigned long size);
extern u64 pgf_zero_frame;
#endif
#ifdef PGF_STAGE_CHANGES
void pgf_page_changed(struct vm_area_struct *vma, unsigned long addr,
		      unsigned long nr, unsigned long old, unsigned long new,
		      unsigned int kind, unsigned int cause);
void pgf_remote_mapped(struct vm_fault *vmf, unsigned long addr,
		       unsigned long pfn, unsigned long nr, unsigned long size);
#endif

#ifdef PGF_STAGE_REGIONS
/**
 * pgfault_history_fault_begin() - record the noted VMA changes before a fault
 * @vma: the VMA of the fault, under its mmap lock or its per-VMA lock
 * @flags: FAULT_FLAG_* the fault is handled with
 *
 * Called by handle_mm_fault() before it handles a fault. The changes to
 * the VMAs of a traced mm are noted where they are made and recorded when
 * the thread that made them returns to user space; a fault of a traced
 * thread on its own mm, in a VMA that changes noted and not yet recorded
 * meet, records them first, so that a fault record never comes before the
 * record of the region it falls in. That needs the mmap lock: a fault
 * under the per-VMA lock releases it and asks to be retried, as
 * vmf_anon_prepare() does.
 *
 * Return: 0, or VM_FAULT_RETRY, as pgf_fault_begin() says.
 */
#if defined(PGF_STAGE_CHANGES)
static inline vm_fault_t pgfault_history_fault_begin(struct vm_area_struct *vma,
						     unsigned int flags)
{
	u64 frame = 0;

	if (!static_branch_unlikely(&pgf_tracing_key.key))
		return 0;
	/*
	 * A fault on another mm a trace follows (GUP, ptrace,
	 * process_vm_writev(), KSM's unmerging, by any task): what it maps
	 * goes into that trace as a change (pgfault_history_mapped()). A
	 * flag an untraced task keeps after such a fault costs its next
	 * fault one call, which clears it.
	 */
	if (unlikely(vma->vm_mm != current->mm) &&
	    atomic_read(&vma->vm_mm->pgf.traces))
		frame = PGF_REMOTE_FAULT;
	if (likely(!READ_ONCE(current->signal->pgf_trace))) {
		if (unlikely(frame))
			current->pgf_frame = frame;
		return 0;
	}
	/*
	 * The frame a traced fault maps is its own record's: one left by a
	 * fault that went unrecorded (the static key went off meanwhile)
	 * is dropped, not given to this one.
	 */
	current->pgf_frame = frame;
	if (unlikely(READ_ONCE(vma->vm_mm->pgf.nr)))
		return pgf_fault_begin(vma, flags);
	return 0;
}
#elif defined(PGF_STAGE_PHYS)
static inline vm_fault_t pgfault_history_fault_begin(struct vm_area_struct *vma,
						     unsigned int flags)
{
	if (!static_branch_unlikely(&pgf_tracing_key.key) ||
	    likely(!READ_ONCE(current->signal->pgf_trace)))
		return 0;
	/*
	 * The frame a traced fault maps is its own record's: one left by a
	 * fault that went unrecorded (the static key went off meanwhile)
	 * is dropped, not given to this one.
	 */
	current->pgf_frame = 0;
	if (unlikely(READ_ONCE(vma->vm_mm->pgf.nr)))
		return pgf_fault_begin(vma, flags);
	return 0;
}
#else
static inline vm_fault_t pgfault_history_fault_begin(struct vm_area_struct *vma,
						     unsigned int flags)
{
	if (static_branch_unlikely(&pgf_tracing_key.key) &&
	    unlikely(READ_ONCE(vma->vm_mm->pgf.nr)) &&
	    READ_ONCE(current->signal->pgf_trace))
		return pgf_fault_begin(vma, flags);
	return 0;
}
#endif
#endif

/**
 * pgfault_history_fault() - record a completed page fault
 * @mm: the mm the fault was handled in
 * @address: the faulting user address
 * @flags: FAULT_FLAG_* the fault was handled with
 * @ret: what handle_mm_fault() returns
 * @regs: the registers at the fault, or NULL (get_user_pages())
 *
 * Called where handle_mm_fault() accounts the fault, so a fault that is
 * retried is recorded once, when it completes, and every fault that
 * /proc/<pid>/stat counts passes here.
 */
static inline void pgfault_history_fault(struct mm_struct *mm,
					 unsigned long address,
					 unsigned int flags, vm_fault_t ret,
					 struct pt_regs *regs)
{
	struct pgf_trace *t;

	if (!static_branch_unlikely(&pgf_tracing_key.key))
		return;
	/* The trace's fields are read through it: ordered after this load. */
	t = READ_ONCE(current->signal->pgf_trace);
	if (unlikely(t))
		pgf_record_fault(t, mm, address, flags, ret, regs);
}

#ifdef PGF_STAGE_PHYS
/*
 * Does current's process have a trace that records frames? A static
 * branch, then a load of the trace pointer and of the trace's flag.
 */
static inline bool pgf_records_frames(void)
{
	const struct pgf_trace *t;

	if (!static_branch_unlikely(&pgf_tracing_key.key))
		return false;
	t = READ_ONCE(current->signal->pgf_trace);
	return unlikely(t) && pgf_trace_frames(t);
}

/**
 * pgfault_history_mapped() - the frame a fault mapped, or found mapped
 * @vmf: the fault, its page table lock held
 * @addr: the user address of the first page mapped
 * @pfn: its frame
 * @nr: how many pages are mapped from @addr, in consecutive frames
 * @size: what one entry maps: PAGE_SIZE, HPAGE_PMD_SIZE, a huge page's
 *
 * Called where a fault installs a page table entry (or finds one that
 * needed only its accessed or dirty bit): do_anonymous_page(),
 * set_pte_range(), do_set_pmd(), wp_page_reuse(), wp_page_copy(),
 * do_swap_page(), do_numa_page(), handle_pte_fault(), the THP and
 * hugetlb faults. If current's process is traced and its reader may see
 * frames, the frame of the faulting page goes into the fault's record
 * (see the DOC: in mm/pgfault_history/phys.c); if it is traced without
 * them, that costs a load of the trace's flag, no call.
 */
#ifdef PGF_STAGE_CHANGES
/* Is current's fault one on another mm that a trace follows? */
static inline bool pgf_remote_fault(void)
{
	return static_branch_unlikely(&pgf_tracing_key.key) &&
	       unlikely(current->pgf_frame & PGF_REMOTE_FAULT);
}

#endif
static inline void pgfault_history_mapped(struct vm_fault *vmf,
					  unsigned long addr,
					  unsigned long pfn, unsigned long nr,
					  unsigned long size)
{
	if (pgf_records_frames())
		pgf_fault_mapped(vmf, addr, pfn, nr, size);
#ifdef PGF_STAGE_CHANGES
	else if (pgf_remote_fault())
		pgf_remote_mapped(vmf, addr, pfn, nr, size);
#endif
}

/**
 * pgfault_history_mapped_zero() - a fault mapped the zero page
 * @vma: the fault's VMA, its page table lock held
 * @addr: the faulting address
 *
 * As pgfault_history_mapped() for the zero page, which a read of
 * untouched anonymous memory maps: the cheapest fault there is, and the
 * commonest after anonymous writes. Its frame is the same for every such
 * fault but for its number (architectures with several zero pages), so
 * it is packed here, with no call: pgf_zero_frame (phys.c) holds the rest.
 */
static inline void pgfault_history_mapped_zero(struct vm_area_struct *vma,
					       unsigned long addr)
{
#ifdef PGF_STAGE_CHANGES
	if (pgf_remote_fault()) {
		if (vma->vm_mm != current->mm)
			pgf_page_changed(vma, addr, 1, 0, my_zero_pfn(addr),
					 PGF_CHANGE_MAPPED, PGF_MAPPED_REMOTE);
		else
			current->pgf_frame = 0;	/* a stale flag */
	}
#endif
	if (pgf_records_frames())
		current->pgf_frame = pgf_zero_frame | my_zero_pfn(addr);
}

#endif
#ifdef PGF_STAGE_CHANGES
/**
 * pgfault_history_changed() - the kernel changed the frames under pages
 * @vma: their VMA
 * @addr: the first page's address
 * @nr: how many pages, mapped from consecutive frames before and after
 * @old: the first frame they were mapped to, 0 for none
 * @new: the first frame they are mapped to now, 0 for none
 * @kind: enum pgf_change_kind, with PGF_CHANGE_PTES for a run of PMD size
 *	  that ptes map
 * @cause: why, as enum pgf_change_kind says
 *
 * Called where the rmap, migration, THP and KSM paths change an entry
 * that the process did not fault on: remove_migration_pte(),
 * try_to_unmap_one(), __split_huge_pmd_locked(), collapse_huge_page(),
 * replace_page(). If a trace follows the mm, each of its readers gets a
 * record. Costs a static branch, and while anything is traced a load of
 * the mm's count of traces.
 *
 * Context: the entry's page table lock or the folio's rmap lock held.
 */
static inline void pgfault_history_changed(struct vm_area_struct *vma,
					   unsigned long addr,
					   unsigned long nr, unsigned long old,
					   unsigned long new, unsigned int kind,
					   unsigned int cause)
{
	if (static_branch_unlikely(&pgf_tracing_key.key) &&
	    unlikely(atomic_read(&vma->vm_mm->pgf.traces)))
		pgf_page_changed(vma, addr, nr, old, new, kind, cause);
}

#endif
#ifdef PGF_STAGE_REARM
/**
 * pgfault_history_moved() - mremap() moved the pages of a range
 * @vma: the VMA they now belong to, its mm write-locked
 * @start: the first address they were moved to
 * @end: the end of that range (exclusive)
 *
 * Called by move_vma() once move_page_tables() has moved them all. While
 * a trace of re-references (interval or window mode) follows the mm, the
 * range is re-armed: a trace knows pages by address, and the first access
 * at the new one must fault.
 */
static inline void pgfault_history_moved(struct vm_area_struct *vma,
					 unsigned long start,
					 unsigned long end)
{
	if (pgfault_history_rereferencing(vma->vm_mm))
		pgf_rearm_moved(vma, start, end);
}

/**
 * pgfault_history_rearm_protnone() - does re-arming make PTEs PROT_NONE
 *
 * Re-arming makes a page's next access fault (mm/pgfault_history/rearm.c)
 * with an old PTE on UML, whose software keeps the accessed bit, and with
 * a PROT_NONE one, a NUMA hint, elsewhere: where the hardware sets the
 * accessed bit (x86, arm64 with FEAT_HAFDBS) an old PTE does not fault,
 * and where arm64 takes access flag faults itself its contiguous PTEs (a
 * 64 KiB mTHP, a THP mapped by PTEs) share one flag, which the fault of
 * one page sets for all of them (contpte_ptep_set_access_flags()).
 *
 * Return: true if re-arming makes PTEs PROT_NONE.
 */
static inline bool pgfault_history_rearm_protnone(void)
{
	return !IS_ENABLED(CONFIG_UML);
}

/**
 * pgfault_history_mprotect_pte() - keep a re-armed PTE armed under mprotect()
 * @vma: the VMA whose protection changes, its mm write-locked
 * @old: a present PTE of it, before the change
 * @pte: @old with the new protection
 *
 * Called by change_pte_range() when mprotect() gives a present PTE a new
 * protection. A re-armed page is one whose PTE is old (where software
 * keeps the accessed bit: UML's protections all carry _PAGE_ACCESSED) or
 * PROT_NONE (elsewhere: a NUMA hint); the new protection
 * would make it accessible unseen. While a trace of re-references follows
 * the mm, the PTE stays old, or PROT_NONE with do_numa_page() applying the
 * VMA's new protection at the next access. (With NUMA balancing off, the
 * only other PROT_NONE PTEs of a traced mm are those of a PROT_NONE VMA:
 * made accessible, each page faults once more, as after NUMA hinting.)
 *
 * Return: the PTE to install.
 */
static inline pte_t pgfault_history_mprotect_pte(struct vm_area_struct *vma,
						 pte_t old, pte_t pte)
{
	if (!pgfault_history_rereferencing(vma->vm_mm))
		return pte;
	if (pgfault_history_rearm_protnone())
		return pte_protnone(old) ? pte_modify(pte, PAGE_NONE) : pte;
	return pte_young(old) ? pte : pte_mkold(pte);
}

/**
 * pgfault_history_rearms() - may a PROT_NONE PTE of @mm be a re-armed page
 * @mm: the mm of a NUMA-hinting fault
 *
 * Called by do_numa_page(). Once re-arming made PTEs of @mm PROT_NONE, to
 * see each page's next access (mm/pgfault_history/rearm.c), a PROT_NONE
 * PTE in an accessible VMA may be one of those. Its fault then restores
 * that PTE alone, not every PTE of a large folio at once: the other base
 * pages' next accesses must fault too. With NUMA balancing off, nothing
 * else makes such PTEs, and the page is neither migrated nor counted as a
 * NUMA hint, whether a trace still follows @mm or not: a stop and a fork
 * restore those PTEs (pgf_unarm_mm()), and a fault that comes before the
 * walk reaches its PTE only restores it. Not behind the static key: the
 * key may go off before every such PTE is restored, and this is the
 * hinting fault's path, not the fault path.
 *
 * Return: true if re-arming ever made a PTE of @mm PROT_NONE.
 */
static inline bool pgfault_history_rearms(struct mm_struct *mm)
{
	return unlikely(READ_ONCE(mm->pgf.armed));
}
#endif

#ifdef PGF_STAGE_INHERIT
/**
 * pgfault_history_fork() - a new process is being created
 * @p: it, with its mm, not yet visible nor running
 * @pid: its pid
 * @clone_flags: how it is created
 *
 * Called by copy_process() where it may still fail and may sleep. If
 * current's process is traced with inheritance, @p gets a trace of its
 * own, active, in the same mode, starting with @p's layout, so it is
 * traced from its first instruction. Tracing never fails a fork: a
 * process that cannot get a trace is reported by
 * pgfault_history_forked().
 */
static inline void pgfault_history_fork(struct task_struct *p,
					struct pid *pid, u64 clone_flags)
{
	if (static_branch_unlikely(&pgf_tracing_key.key) &&
	    !(clone_flags & CLONE_THREAD) &&
	    unlikely(READ_ONCE(current->signal->pgf_trace)))
		pgf_fork(p, pid, clone_flags);
}

/**
 * pgfault_history_forked() - a new process exists and has not yet run
 * @p: it, past the last point where copy_process() can fail
 * @clone_flags: how it was created
 *
 * Called by copy_process() once @p is visible (in /proc) and before it is
 * woken: current's trace records the new process, and keeps its trace for
 * the reader to claim (see the DOC: in mm/pgfault_history/inherit.c).
 */
static inline void pgfault_history_forked(struct task_struct *p,
					  u64 clone_flags)
{
	if (static_branch_unlikely(&pgf_tracing_key.key) &&
	    !(clone_flags & CLONE_THREAD) &&
	    unlikely(READ_ONCE(current->signal->pgf_trace)))
		pgf_forked(p);
}

/**
 * pgfault_history_fork_cancel() - copy_process() failed after the fork hook
 * @p: the process that will not be; its signal_struct is freed next
 * @clone_flags: how it was to be created
 */
static inline void pgfault_history_fork_cancel(struct task_struct *p,
					       u64 clone_flags)
{
	if (!(clone_flags & CLONE_THREAD) && unlikely(p->signal->pgf_trace))
		pgf_fork_cancel(p);
}
#endif

#ifdef PGF_STAGE_FILES
/**
 * pgfault_history_io_begin() - a read or write through the page cache begins
 * @file: the file
 * @posp: the call's position, which moves as it goes (at least at its end)
 * @count: the bytes it asks for
 * @write: a write
 *
 * Called by filemap_read(), filemap_splice_read(), shmem_file_read_iter(),
 * shmem_file_splice_read(), generic_perform_write() and
 * iomap_file_buffered_write() before they look up a page. If current's
 * process is traced with "files", the pages the call uses are recorded
 * when it ends (pgfault_history_io_end()); see the DOC: in
 * mm/pgfault_history/files.c.
 */
static inline void pgfault_history_io_begin(struct file *file,
					    const loff_t *posp, size_t count,
					    bool write)
{
	if (static_branch_unlikely(&pgf_tracing_key.key) &&
	    unlikely(READ_ONCE(current->signal->pgf_trace)))
		pgf_io_begin(file, posp, count, write);
}

/**
 * pgfault_history_io_direct() - a direct I/O read or write is submitted
 * @iocb: the call: its file and position
 * @count: the bytes it asks for
 * @write: a write
 *
 * Called by __iomap_dio_rw() and by generic_file_read_iter() and
 * generic_file_direct_write() before ->direct_IO(): the pages the call
 * asks for are recorded as direct, for they bypass the page cache.
 */
static inline void pgfault_history_io_direct(struct kiocb *iocb, size_t count,
					     bool write)
{
	if (static_branch_unlikely(&pgf_tracing_key.key) &&
	    unlikely(READ_ONCE(current->signal->pgf_trace)))
		pgf_io_direct(iocb, count, write);
}

/**
 * pgfault_history_io_fill() - pages are being read into the page cache
 * @mapping: their file's
 * @index: the first of them
 * @nr: how many
 *
 * Called by read_pages() and by filemap_get_pages()'s reads of a single
 * folio, before the read: for a traced call of current's on @mapping, the
 * pages are misses if the call uses them, readahead if it does not.
 */
static inline void pgfault_history_io_fill(struct address_space *mapping,
					   pgoff_t index, unsigned long nr)
{
	if (static_branch_unlikely(&pgf_tracing_key.key) &&
	    unlikely(current->pgf_io))
		pgf_io_fill(mapping, index, nr);
}

/**
 * pgfault_history_write_page() - a buffered write is about to write a folio
 * @mapping: the file's pages
 * @pos: where: everything before it has been written
 * @len: the bytes it asks the folio for
 *
 * Called by generic_perform_write() before ->write_begin() and by
 * iomap_write_iter() before iomap_write_begin(): a page of them the page
 * cache does not hold yet is a miss (the folio the write gets may be a
 * large one that it adds).
 */
static inline void pgfault_history_write_page(struct address_space *mapping,
					      loff_t pos, size_t len)
{
	if (static_branch_unlikely(&pgf_tracing_key.key) &&
	    unlikely(current->pgf_io))
		pgf_io_write_page(mapping, pos, len);
}

/**
 * pgfault_history_shmem_page() - a tmpfs read is about to look a page up
 * @mapping: the file's pages
 * @index: the page: every page before it has been read
 */
static inline void pgfault_history_shmem_page(struct address_space *mapping,
					      pgoff_t index)
{
	if (static_branch_unlikely(&pgf_tracing_key.key) &&
	    unlikely(current->pgf_io))
		pgf_io_shmem_page(mapping, index);
}

/**
 * pgfault_history_io_end() - the read or write ends
 * @pos: where it got to: the pages before it were used
 */
static inline void pgfault_history_io_end(loff_t pos)
{
	if (static_branch_unlikely(&pgf_tracing_key.key) &&
	    unlikely(current->pgf_io))
		pgf_io_end(pos);
}

/**
 * pgfault_history_task_init() - a new task has no file I/O being traced
 * @p: the task, just copied from current (dup_task_struct())
 */
static inline void pgfault_history_task_init(struct task_struct *p)
{
	p->pgf_io = NULL;
#ifdef PGF_STAGE_PHYS
	p->pgf_frame = 0;
#endif
}
#endif

/**
 * pgfault_history_signal_init() - a new process: one thread can fault
 * @sig: its signal_struct, in copy_signal()
 */
static inline void pgfault_history_signal_init(struct signal_struct *sig)
{
	atomic_set(&sig->pgf_live, 1);
}

/**
 * pgfault_history_thread_created() - a new thread joined a process
 * @p: the new thread, past the last point where copy_process() can fail
 *
 * Called by copy_process() under the siglock. Counts the thread in, for
 * pgfault_history_exit() to tell which thread is the last to leave.
 */
static inline void pgfault_history_thread_created(struct task_struct *p)
{
	atomic_inc(&p->signal->pgf_live);
}

/**
 * pgfault_history_exec() - an exec has committed its credentials
 * @bprm: the exec in progress, its new mm installed
 *
 * Called by begin_new_exec() under exec_update_lock, after
 * commit_creds(). An exec that makes the process non-dumpable or gives it
 * new privileges (set-uid, set-gid, file capabilities, an unreadable
 * binary) starts a new credential generation: files opened before it can
 * no longer start tracing or read, and a trace running ends. Other execs
 * are recorded.
 */
static inline void pgfault_history_exec(struct linux_binprm *bprm)
{
	pgf_exec(bprm);		/* out of line: exec is not a hot path */
}

#ifdef PGF_STAGE_REGIONS
/**
 * pgfault_history_group_exit() - the last thread of a process is leaving
 * @tsk: current, in do_exit(), its mm not yet released
 *
 * Called by do_exit() before exit_mm() in the thread that found the
 * process's group dead: every thread is exiting, none changes a VMA any
 * more. A layout the reader is still owed, or still being sent in parts,
 * goes into the trace now, while the VMAs are there, so that the trace
 * ends with every region known.
 */
static inline void pgfault_history_group_exit(struct task_struct *tsk)
{
	if (unlikely(READ_ONCE(tsk->signal->pgf_trace)))
		pgf_group_exit(tsk);
}
#endif

/**
 * pgfault_history_exit() - a thread has released its mm
 * @tsk: current, in do_exit() after exit_mm()
 *
 * No fault of the thread can happen after this. The last thread of a
 * process to get here ends its trace with an exit record, so every fault
 * the process took, the robust futex list and clear_child_tid of every
 * thread included, comes before it.
 */
static inline void pgfault_history_exit(struct task_struct *tsk)
{
	struct signal_struct *sig = tsk->signal;

#ifdef PGF_STAGE_FILES
	if (unlikely(tsk->pgf_io))
		pgf_io_exit(tsk);
#endif
	/* Full barrier: pairs with the one in pgf_start(). */
	if (atomic_dec_and_test(&sig->pgf_live) &&
	    unlikely(READ_ONCE(sig->pgf_trace)))
		pgf_exit(tsk);
}

/**
 * pgfault_history_signal_free() - a signal_struct is being freed
 * @sig: the process's signal_struct; its trace, if any, loses a reference
 *
 * May be called from atomic context (put_task_struct()).
 */
static inline void pgfault_history_signal_free(struct signal_struct *sig)
{
	if (unlikely(sig->pgf_trace))
		pgf_signal_free(sig);
}

#else /* !CONFIG_PGFAULT_HISTORY */

#ifdef PGF_STAGE_REGIONS
static inline vm_fault_t pgfault_history_fault_begin(struct vm_area_struct *vma,
						     unsigned int flags)
{
	return 0;
}
#endif

static inline void pgfault_history_fault(struct mm_struct *mm,
					 unsigned long address,
					 unsigned int flags, vm_fault_t ret,
					 struct pt_regs *regs) { }
#ifdef PGF_STAGE_PHYS
static inline void pgfault_history_mapped(struct vm_fault *vmf,
					  unsigned long addr,
					  unsigned long pfn, unsigned long nr,
					  unsigned long size) { }
static inline void pgfault_history_mapped_zero(struct vm_area_struct *vma,
					       unsigned long addr) { }
#endif
#ifdef PGF_STAGE_CHANGES
static inline void pgfault_history_changed(struct vm_area_struct *vma,
					   unsigned long addr,
					   unsigned long nr, unsigned long old,
					   unsigned long new, unsigned int kind,
					   unsigned int cause) { }
#endif
#ifdef PGF_STAGE_REARM
static inline void pgfault_history_moved(struct vm_area_struct *vma,
					 unsigned long start,
					 unsigned long end) { }
static inline pte_t pgfault_history_mprotect_pte(struct vm_area_struct *vma,
						 pte_t old, pte_t pte)
{
	return pte;
}

static inline bool pgfault_history_rearms(struct mm_struct *mm)
{
	return false;
}
#endif

#ifdef PGF_STAGE_INHERIT
static inline void pgfault_history_fork(struct task_struct *p,
					struct pid *pid, u64 clone_flags) { }
static inline void pgfault_history_forked(struct task_struct *p,
					  u64 clone_flags) { }
static inline void pgfault_history_fork_cancel(struct task_struct *p,
					       u64 clone_flags) { }
#endif
#ifdef PGF_STAGE_FILES
static inline void pgfault_history_io_begin(struct file *file,
					    const loff_t *posp, size_t count,
					    bool write) { }
static inline void pgfault_history_io_direct(struct kiocb *iocb, size_t count,
					     bool write) { }
static inline void pgfault_history_io_fill(struct address_space *mapping,
					   pgoff_t index, unsigned long nr) { }
static inline void pgfault_history_write_page(struct address_space *mapping,
					      loff_t pos, size_t len) { }
static inline void pgfault_history_shmem_page(struct address_space *mapping,
					      pgoff_t index) { }
static inline void pgfault_history_io_end(loff_t pos) { }
static inline void pgfault_history_task_init(struct task_struct *p) { }
#endif
static inline void pgfault_history_signal_init(struct signal_struct *sig) { }
static inline void pgfault_history_thread_created(struct task_struct *p) { }
static inline void pgfault_history_exec(struct linux_binprm *bprm) { }
#ifdef PGF_STAGE_REGIONS
static inline void pgfault_history_group_exit(struct task_struct *tsk) { }
#endif
static inline void pgfault_history_exit(struct task_struct *tsk) { }
static inline void pgfault_history_signal_free(struct signal_struct *sig) { }

#endif /* CONFIG_PGFAULT_HISTORY */
#endif /* _LINUX_PGFAULT_HISTORY_H */
