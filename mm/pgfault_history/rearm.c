// SPDX-License-Identifier: GPL-2.0
/*
 * pgfault_history: re-arming the pages of a traced process, so that the
 * next access to each faults again and is recorded (re-reference tracing).
 *
 * DOC: pgfault_history re-arming
 *
 * A page faults once and then stays mapped: a plain trace holds first
 * touches. Re-arming a page makes its next access fault again without
 * touching the page itself: nothing is unmapped, swapped, freed, copied or
 * moved, and the fault that follows only makes the present page accessible
 * once more. handle_mm_fault() reports such a fault with VM_FAULT_HINTING,
 * and the trace records it with the result "reref".
 *
 * How a page is re-armed depends on the architecture
 * (pgfault_history_rearm_protnone()):
 *
 * - On UML, where software keeps the accessed bit (arch/um/kernel/tlb.c
 *   maps a page whose PTE is not young without any access, execution
 *   included, since an x86 host cannot map a page executable but not
 *   readable), the PTE is made old, as page_idle and DAMON do
 *   (ptep_clear_young_notify()); the folio is marked young and not idle
 *   (pgf_folio_referenced()) so that reclaim and idle page tracking still
 *   see the reference the PTE held. The next access faults, and
 *   handle_pte_fault() makes the PTE young again.
 * - Elsewhere (x86, arm64) the PTE is made PROT_NONE: where the hardware
 *   sets the accessed bit (x86, arm64 with FEAT_HAFDBS) an old PTE does
 *   not fault, and where arm64 takes access flag faults itself, contiguous
 *   PTEs (an mTHP, a THP mapped by PTEs) share one access flag that the
 *   first page's fault sets for all of them. The PTE is made PROT_NONE
 *   the way NUMA balancing's scanner does (pte_modify()
 *   to PAGE_NONE under the PTE lock, as change_prot_numa()), keeping the
 *   page, its dirty and accessed bits; do_numa_page() restores it at the
 *   next access. With NUMA balancing disabled (kernel.numa_balancing=0)
 *   that fault never migrates the page. This needs CONFIG_NUMA_BALANCING;
 *   without it, re-arming is not supported (-EOPNOTSUPP).
 *
 * What is re-armed: every present page of every VMA that can be accessed,
 * except VM_PFNMAP and VM_IO mappings (no page behind them, or a device's
 * registers) and hugetlb mappings (their faults take another path). A
 * transparent huge page mapped by a PMD has its mapping split into PTEs,
 * as every page-table walker that works on PTEs does (the folio itself
 * stays huge and in place); khugepaged may map it huge again later. For
 * a shmem or file one, whose split only unmaps it, the walk maps its
 * pages with PTEs itself (pgf_rearm_pmd()), as faults would one by one.
 * Pages that are not present (swapped out, never touched) need no
 * re-arming: their next access faults anyway.
 *
 * Locks: the mmap lock of the mm for reading, as task_numa_work() takes
 * it, and each page table's lock in the walk; faults under a VMA's lock
 * may run meanwhile and are ordered by the PTE lock. Secondary MMUs are
 * told through the MMU notifiers. The walk (pgf_walk_chunks(), which the
 * sampling scan shares) yields the CPU between VMAs and every
 * PGF_WALK_CHUNK of a VMA, letting go of the trace's mutex there if the
 * walker holds it, and stops at a fatal signal.
 *
 * Who re-arms: a write of "rearm" (pgf_rearm(), in the writer's context),
 * or, in interval mode ("1 interval=MS"), a running thread of the traced
 * process on its way back to user mode (a task work queued by a delayed
 * work item, &pgf_trace.rearm_work, every MS milliseconds; the worker
 * itself when every thread sleeps): see pgf_interval_rearm(). The work
 * item holds a reference to the trace while queued (PGF_REARM_QUEUED),
 * and so does the task work (PGF_REARM_PENDING); whether the clock goes
 * on is decided under &pgf_trace.mutex, where start and stop change the
 * mode. Each re-arm is followed by a REARM record: its time (the end of
 * the walk), the pages re-armed and who asked for it. Faults that other
 * threads take while the walk runs may come before or after that record.
 * Window mode re-arms one page at a time (pgf_rearm_page()), as its
 * window evicts them: see mm/pgfault_history/window.c. Sampling mode
 * ("1 sample=MS") runs on the same clock: each tick is a scan of the
 * accessed bits instead of a re-arm (mm/pgfault_history/sample.c).
 *
 * What the kernel itself does to a re-armed page, while interval or window
 * mode follows the mm (&mm_struct.pgf.rereference):
 *
 * - mremap() moves PTEs as they are, so a re-armed page stays re-armed at
 *   its new address; but a page accessible at the old address would be
 *   accessible at the new one without its first access there being seen
 *   (and, in window mode, without being in the window, so never re-armed
 *   again). move_vma() re-arms the range it moved
 *   (pgfault_history_moved()). A window keeps the old addresses; they
 *   leave it in FIFO order as any other.
 * - mprotect() would make a re-armed PTE accessible: on UML every
 *   protection carries _PAGE_ACCESSED (the PTE becomes young), on x86 the
 *   new protection replaces PROT_NONE. change_pte_range() keeps it old,
 *   or PROT_NONE (pgfault_history_mprotect_pte()); do_numa_page() then
 *   applies the VMA's new protection at the next access.
 * - Migration, KSM merging and khugepaged collapsing map a page anew,
 *   accessible: not followed (NUMA balancing, which migrates on its own
 *   faults, stays off).
 *
 * When re-arming ends, nothing stays re-armed for a process nobody traces
 * (x86; on UML an old PTE is what reclaim's aging makes too). The mm is
 * marked (&pgf_mm.armed) before its first PTE is made PROT_NONE. A stop
 * restores every such PTE (pgf_rearm_end(), under the mmap write lock,
 * which keeps the walks out: a tick or a "rearm" that gets the lock after
 * it finds the trace inactive and walks nothing), and a fork restores the
 * new process's copy of them before it runs (pgf_unarm_mm()). Until then,
 * and in a CLONE_VM process that keeps the mm after the traced one exec'd,
 * do_numa_page() knows such a PTE by the mark: with NUMA balancing off, it
 * only restores it, and neither migrates the page nor counts a hint.
 */
#define pr_fmt(fmt) "pgfault: " fmt

#include <linux/hugetlb.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/page_idle.h>
#include <linux/pagemap.h>
#include <linux/pagewalk.h>
#include <linux/pgfault_history.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/task_work.h>
#include <linux/userfaultfd_k.h>
#include <linux/workqueue.h>
#include <asm/tlbflush.h>

#include "../internal.h"	/* vma_wants_manual_pte_write_upgrade() */
#include "internal.h"

/* A VMA is walked this many bytes at a time, with a resched between. */
#define PGF_WALK_CHUNK		(64UL * PMD_SIZE)

/**
 * pgf_rearm_supported() - can this kernel re-arm pages
 *
 * An opt-in per architecture, for those where one of the two ways is known
 * to make the next access fault of each page: an old PTE on UML (with the
 * patch "um: map old pages without any access"), and the NUMA-hinting
 * PROT_NONE where it is built in on x86 and arm64 (with or without the
 * hardware Access Flag: see pgfault_history_rearm_protnone()). Elsewhere
 * an old PTE need not fault (powerpc, riscv with Svadu keep the bit in
 * hardware without saying so through arch_has_hw_pte_young()): re-arming
 * would record nothing.
 *
 * Return: true if re-arming works on this kernel and machine.
 */
bool pgf_rearm_supported(void)
{
	/* UML: an old PTE faults (pgfault_history_rearm_protnone()). */
	if (!pgfault_history_rearm_protnone())
		return true;
	return (IS_ENABLED(CONFIG_X86) || IS_ENABLED(CONFIG_ARM64)) &&
	       IS_ENABLED(CONFIG_NUMA_BALANCING);
}

/**
 * pgf_folio_referenced() - keep a reference taken from a PTE's accessed bit
 * @folio: the folio the PTE maps
 *
 * Re-arming and sampling clear accessed bits that reclaim and idle page
 * tracking read too. As page_idle_clear_pte_refs_one() does, the folio is
 * marked young, so that folio_referenced() still counts the reference, and
 * no longer idle, so that /sys/kernel/mm/page_idle/bitmap still shows it
 * accessed. Both flags need CONFIG_PAGE_IDLE_FLAG, which the feature
 * selects.
 */
void pgf_folio_referenced(struct folio *folio)
{
	folio_clear_idle(folio);
	folio_set_young(folio);
}

static int pgf_rearm_pte(pte_t *ptep, unsigned long addr, unsigned long next,
			 struct mm_walk *walk)
{
	struct vm_area_struct *vma = walk->vma;
	unsigned long *pages = walk->private;
	pte_t pte = ptep_get(ptep);
	struct folio *folio;

	if (!pte_present(pte))
		return 0;
	if (pgfault_history_rearm_protnone()) {
#ifdef CONFIG_NUMA_BALANCING
		pte_t old;

		if (pte_protnone(pte))
			return 0;
		old = ptep_modify_prot_start(vma, addr, ptep);
		ptep_modify_prot_commit(vma, addr, ptep, old,
					pte_modify(old, PAGE_NONE));
		(*pages)++;
#endif
		return 0;
	}
	if (!pte_young(pte))
		return 0;
	folio = vm_normal_folio(vma, addr, pte);
	if (ptep_clear_young_notify(vma, addr, ptep)) {
		if (folio)
			pgf_folio_referenced(folio);
		(*pages)++;
	}
	return 0;
}

/**
 * pgf_rearm_skip() - is a VMA left alone by re-arming and sampling
 * @vma: the VMA
 *
 * See the DOC above.
 *
 * Return: true for VM_PFNMAP, VM_IO, hugetlb and inaccessible VMAs.
 */
bool pgf_rearm_skip(struct vm_area_struct *vma)
{
	return (vma->vm_flags & (VM_PFNMAP | VM_IO)) ||
	       is_vm_hugetlb_page(vma) || !vma_is_accessible(vma);
}

#ifdef CONFIG_TRANSPARENT_HUGEPAGE
/* Map pages [@i, @i + @n) of @folio at their place from @haddr. */
static void pgf_rearm_map_run(struct vm_area_struct *vma, pmd_t *pmd,
			      pte_t *pte, unsigned long haddr,
			      struct folio *folio, unsigned int i,
			      unsigned int n, bool write)
{
	struct vm_fault vmf = {
		.vma = vma,
		.address = haddr + i * PAGE_SIZE,
		.flags = write ? FAULT_FLAG_WRITE : 0,
		.pmd = pmd,
		.pte = pte,
	};

	folio_ref_add(folio, n);
	set_pte_range(&vmf, folio, folio_page(folio, i), n, vmf.address);
}

/*
 * Map the pages of @folio, which @pmd mapped at @haddr until the split
 * just unmapped it, with PTEs where none is yet, as a fault maps a file
 * page (set_pte_range()); writable if the PMD was. Context: the mmap lock
 * for reading and @folio's lock held, and a reference to @folio.
 */
static void pgf_rearm_map_ptes(struct vm_area_struct *vma, pmd_t *pmd,
			       unsigned long haddr, struct folio *folio,
			       bool write)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned int i, n, mapped = 0;
	spinlock_t *ptl;	/* the new page table's */
	pte_t *start;

	if (pte_alloc(mm, pmd))
		return;
	start = pte_offset_map_lock(mm, pmd, haddr, &ptl);
	if (!start)
		return;
	for (i = 0; i < HPAGE_PMD_NR; i += n) {
		for (n = 0; i + n < HPAGE_PMD_NR &&
		     pte_none(ptep_get(start + i + n)); n++)
			;
		if (!n) {
			n = 1;	/* a fault mapped it meanwhile */
			continue;
		}
		pgf_rearm_map_run(vma, pmd, start + i, haddr, folio, i, n,
				  write);
		mapped += n;
	}
	add_mm_counter(mm, mm_counter_file(folio), mapped);
	pte_unmap_unlock(start, ptl);
}

/*
 * A shmem or file THP mapped by a PMD. The walker would split the PMD,
 * which for such a folio only unmaps it, and the next access would map
 * it whole again: one fault for all its pages, and a "minor" one. Map it
 * with PTEs instead, so that each page is re-armed and faults on its own.
 * Left to the walker (unmapped): DAX, mlocked and userfaultfd mappings,
 * and a folio whose lock is taken (truncation or migration may be
 * under way).
 */
static int pgf_rearm_pmd(pmd_t *pmd, unsigned long addr, unsigned long next,
			 struct mm_walk *walk)
{
	struct vm_area_struct *vma = walk->vma;
	unsigned long haddr = addr & HPAGE_PMD_MASK;
	struct folio *folio;
	spinlock_t *ptl;	/* the PMD's */
	bool write;
	pmd_t pmde;

	if (vma_is_anonymous(vma) || vma_is_dax(vma) ||
	    (vma->vm_flags & VM_LOCKED) || userfaultfd_armed(vma) ||
	    haddr < vma->vm_start || haddr + HPAGE_PMD_SIZE > vma->vm_end)
		return 0;
	ptl = pmd_trans_huge_lock(pmd, vma);
	if (!ptl)
		return 0;
	pmde = pmdp_get(pmd);
	if (!pmd_present(pmde) || !pmd_trans_huge(pmde) ||
	    is_huge_zero_pmd(pmde)) {
		spin_unlock(ptl);
		return 0;
	}
	folio = page_folio(pmd_page(pmde));
	if (!folio_trylock(folio)) {
		spin_unlock(ptl);
		return 0;
	}
	folio_get(folio);
	write = pmd_write(pmde) && (vma->vm_flags & VM_SHARED);
	spin_unlock(ptl);
	split_huge_pmd(vma, pmd, haddr);
	if (folio->mapping == vma->vm_file->f_mapping)
		pgf_rearm_map_ptes(vma, pmd, haddr, folio, write);
	folio_unlock(folio);
	folio_put(folio);
	return 0;
}
#else
#define pgf_rearm_pmd NULL
#endif

static const struct mm_walk_ops pgf_rearm_ops = {
	.pmd_entry	= pgf_rearm_pmd,
	.pte_entry	= pgf_rearm_pte,
	.walk_lock	= PGWALK_RDLOCK,
};

/* Re-arm [@start, @end) of @vma; returns the pages re-armed. */
static unsigned long pgf_rearm_range(struct vm_area_struct *vma,
				     unsigned long start, unsigned long end)
{
	struct mmu_notifier_range range;
	unsigned long pages = 0;

	/* Before any PTE is made PROT_NONE: see pgfault_history_rearms(). */
	if (pgfault_history_rearm_protnone() && !READ_ONCE(vma->vm_mm->pgf.armed))
		WRITE_ONCE(vma->vm_mm->pgf.armed, true);

	mmu_notifier_range_init(&range, MMU_NOTIFY_PROTECTION_VMA, 0,
				vma->vm_mm, start, end);
	mmu_notifier_invalidate_range_start(&range);
	walk_page_range_vma(vma, start, end, &pgf_rearm_ops, &pages);
	if (pages)
		flush_tlb_range(vma, start, end);
	mmu_notifier_invalidate_range_end(&range);
	return pages;
}

/**
 * pgf_walk_pause() - between two pieces of a walk of @mm
 * @mm: the mm walked, its mmap lock held (and kept)
 * @held: the trace whose mutex the walker holds, or NULL
 * @run: @held->runs when the walk began
 *
 * Yields the CPU. With @held, lets go of its mutex meanwhile, so that a
 * fault or a recording that waits for it waits for one piece at most;
 * the walk may go on only while @held still traces @mm in the start it
 * began in.
 *
 * Return: 0, or -ESRCH if it may not (the mutex held again).
 */
int pgf_walk_pause(struct mm_struct *mm, struct pgf_trace *held,
		   unsigned long run)
{
	if (!held) {
		pgf_test_hold_walk(mm);
		cond_resched();
		return 0;
	}
	mutex_unlock(&held->mutex);
	pgf_test_hold_walk(mm);
	cond_resched();
	mutex_lock(&held->mutex);
	if (!READ_ONCE(held->active) || held->mm != mm || held->runs != run)
		return -ESRCH;
	return 0;
}

/* [@start, @end) of @vma, PGF_WALK_CHUNK at a time: see pgf_walk_chunks(). */
static int pgf_walk_vma(struct vm_area_struct *vma, unsigned long start,
			unsigned long end, pgf_chunk_fn fn, void *arg,
			bool killable, struct pgf_trace *held,
			unsigned long run)
{
	unsigned long addr, next;
	int err;

	if (pgf_rearm_skip(vma))
		return 0;
	for (addr = start; addr < end; addr = next) {
		next = min(end, ALIGN(addr + 1, PGF_WALK_CHUNK));
		fn(vma, addr, next, arg);
		if (killable && fatal_signal_pending(current))
			return -EINTR;
		err = pgf_walk_pause(vma->vm_mm, held, run);
		if (err)
			return err;
	}
	return 0;
}

/**
 * pgf_walk_chunks() - call @fn on the pages of an mm, a piece at a time
 * @mm: the address space, its mmap lock held
 * @vma: the VMA to walk [@start, @end) of; NULL: every VMA of @mm, whole
 * @start: the first address, with @vma
 * @end: the end of the range (exclusive), with @vma
 * @fn: called for each piece, at most PGF_WALK_CHUNK bytes of a VMA that
 *      pgf_rearm_skip() does not skip
 * @arg: passed to @fn
 * @killable: stop at a fatal signal
 * @held: the trace whose mutex the caller holds, or NULL
 *
 * The one walk of re-arming (all of an mm, or what mremap() moved) and of
 * sampling: it yields the CPU between the pieces, as task_numa_work()
 * does between its ranges. A walker that holds a trace's mutex lets go of
 * it there: nobody waits for the mutex longer than a piece, and the walk
 * stops if the trace stopped, started again or left @mm meanwhile. @fn
 * runs with the mutex held, and the VMAs stay: the mmap lock is not let
 * go.
 *
 * Return: 0; -EINTR if @killable and a fatal signal stopped the walk;
 * -ESRCH if @held no longer traces @mm as it did (the mutex held again).
 */
int pgf_walk_chunks(struct mm_struct *mm, struct vm_area_struct *vma,
		    unsigned long start, unsigned long end, pgf_chunk_fn fn,
		    void *arg, bool killable, struct pgf_trace *held)
{
	VMA_ITERATOR(vmi, mm, 0);
	unsigned long run;
	int err;

	mmap_assert_locked(mm);
	if (held)
		lockdep_assert_held(&held->mutex);
	run = held ? held->runs : 0;
	if (vma)
		return pgf_walk_vma(vma, start, end, fn, arg, killable, held,
				    run);
	for_each_vma(vmi, vma) {
		err = pgf_walk_vma(vma, vma->vm_start, vma->vm_end, fn, arg,
				   killable, held, run);
		if (err)
			return err;
	}
	return 0;
}

/* pgf_chunk_fn of re-arming: @arg counts the pages re-armed. */
static void pgf_rearm_chunk(struct vm_area_struct *vma, unsigned long start,
			    unsigned long end, void *arg)
{
	*(unsigned long *)arg += pgf_rearm_range(vma, start, end);
}

/**
 * pgf_rearm_mm() - re-arm every present page of an address space
 * @mm: the address space, its mmap lock held for reading
 * @pages: set to the number of pages re-armed
 * @held: the trace whose mutex the caller holds, or NULL: see
 *        pgf_walk_chunks()
 *
 * When it returns, the next access to any page it re-armed faults, on
 * every CPU.
 *
 * Return: 0, -EINTR if a fatal signal stopped the walk, or -ESRCH if
 * @held stopped meanwhile (the pages re-armed so far stay so: harmless).
 */
int pgf_rearm_mm(struct mm_struct *mm, unsigned long *pages,
		 struct pgf_trace *held)
{
	*pages = 0;
	return pgf_walk_chunks(mm, NULL, 0, 0, pgf_rearm_chunk, pages, true,
			       held);
}

/**
 * pgf_rearm_page() - re-arm one page, if it is present
 * @mm: its address space, the mmap lock held for reading
 * @addr: its address
 *
 * Return: 1 if the page was re-armed, else 0.
 */
unsigned long pgf_rearm_page(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma = vma_lookup(mm, addr);

	mmap_assert_locked(mm);
	if (!vma || pgf_rearm_skip(vma))
		return 0;
	return pgf_rearm_range(vma, addr, addr + PAGE_SIZE);
}

/**
 * pgf_rearm_moved() - re-arm the pages mremap() just moved
 * @vma: the VMA they were moved into, its mm write-locked
 * @start: the first address they were moved to
 * @end: the end of that range (exclusive)
 *
 * See pgfault_history_moved(). No REARM record: the trace's region
 * records say what moved, and each page's next access is a "reref" fault.
 */
void pgf_rearm_moved(struct vm_area_struct *vma, unsigned long start,
		     unsigned long end)
{
	unsigned long pages = 0;

	mmap_assert_write_locked(vma->vm_mm);
	/* Not killable: a page left accessible would go unseen. */
	pgf_walk_chunks(vma->vm_mm, vma, start, end, pgf_rearm_chunk, &pages,
			false, NULL);
}

#ifdef CONFIG_NUMA_BALANCING
/*
 * A PTE that re-arming made PROT_NONE, made accessible again as
 * do_numa_page() does (its protection from the VMA, writable where the
 * VMA allows it without a fault), but not young: nothing accessed it.
 */
static int pgf_unarm_pte(pte_t *ptep, unsigned long addr, unsigned long next,
			 struct mm_walk *walk)
{
	struct vm_area_struct *vma = walk->vma;
	unsigned long *pages = walk->private;
	pte_t old, pte = ptep_get(ptep);

	if (!pte_present(pte) || !pte_protnone(pte))
		return 0;
	old = ptep_modify_prot_start(vma, addr, ptep);
	pte = pte_modify(old, vma->vm_page_prot);
	if (!pte_write(pte) && vma_wants_manual_pte_write_upgrade(vma) &&
	    can_change_pte_writable(vma, addr, pte))
		pte = pte_mkwrite(pte, vma);
	ptep_modify_prot_commit(vma, addr, ptep, old, pte);
	(*pages)++;
	return 0;
}

/* Re-arming never makes a PMD PROT_NONE: leave huge mappings whole. */
static int pgf_unarm_pmd(pmd_t *pmd, unsigned long addr, unsigned long next,
			 struct mm_walk *walk)
{
	pmd_t pmde = pmdp_get_lockless(pmd);

	if (pmd_trans_huge(pmde) || pmd_devmap(pmde))
		walk->action = ACTION_CONTINUE;
	return 0;
}

static const struct mm_walk_ops pgf_unarm_ops = {
	.pmd_entry	= pgf_unarm_pmd,
	.pte_entry	= pgf_unarm_pte,
	.walk_lock	= PGWALK_RDLOCK,	/* the write lock is held */
};

static void pgf_unarm_chunk(struct vm_area_struct *vma, unsigned long start,
			    unsigned long end, void *arg)
{
	struct mmu_notifier_range range;

	mmu_notifier_range_init(&range, MMU_NOTIFY_PROTECTION_VMA, 0,
				vma->vm_mm, start, end);
	mmu_notifier_invalidate_range_start(&range);
	walk_page_range_vma(vma, start, end, &pgf_unarm_ops, arg);
	mmu_notifier_invalidate_range_end(&range);
}
#endif

/**
 * pgf_unarm_mm() - make the pages re-arming left inaccessible accessible
 * @mm: the address space, its mmap lock held for writing: one that
 *      re-arming walked (&pgf_mm.armed), or a new process's copy of one
 *
 * Where the hardware keeps the accessed bit, a re-armed page's PTE stays
 * PROT_NONE until its next access. Once no trace of re-references follows
 * @mm (a stop), or in a new process's copy of it (fork copies PTEs as they
 * are), they are restored here, so that no PTE stays re-armed for a
 * process nobody traces: its faults, NUMA balancing's hints and page
 * placement are what they would be without the feature. The write lock
 * keeps every re-arming walk out (they take it for reading); a fault
 * under a VMA's lock that comes first only restores its PTE
 * (pgfault_history_rearms()). Not killable: every PTE is restored. The
 * walk yields the CPU as re-arming's does. Where software keeps the
 * accessed bit (UML), an old PTE is what reclaim and idle page tracking
 * make too, and faults once as there: nothing to restore.
 *
 * Return: the number of PTEs restored.
 */
unsigned long pgf_unarm_mm(struct mm_struct *mm)
{
	unsigned long pages = 0;

	mmap_assert_write_locked(mm);
#ifdef CONFIG_NUMA_BALANCING
	if (pgfault_history_rearm_protnone())
		pgf_walk_chunks(mm, NULL, 0, 0, pgf_unarm_chunk, &pages, false,
				NULL);
#endif
	return pages;
}

/**
 * pgf_rearm_end() - a trace stopped re-arming an mm: restore its PTEs
 * @mm: the address space the trace followed, with a reference
 *
 * Unless another trace follows @mm meanwhile (a CLONE_VM process's, or
 * a new start's), which may have re-armed them: see pgf_unarm_mm().
 *
 * Context: may sleep; takes @mm's mmap lock for writing.
 */
void pgf_rearm_end(struct mm_struct *mm)
{
	if (!pgfault_history_rearm_protnone() || !READ_ONCE(mm->pgf.armed))
		return;
	mmap_write_lock(mm);
	if (!atomic_read(&mm->pgf.traces))
		pgf_unarm_mm(mm);
	mmap_write_unlock(mm);
}

/**
 * __pgf_rearm_record() - write the REARM record of a re-arm of @t->mm
 * @t: the trace, active
 * @pages: how many pages were re-armed
 * @how: enum pgf_rearm_how
 *
 * Context: &pgf_trace.mutex held.
 */
void __pgf_rearm_record(struct pgf_trace *t, unsigned long pages, u8 how)
{
	struct pgf_rec rec;

	lockdep_assert_held(&t->mutex);
	pgf_rec_init(t, &rec, PGF_REC_REARM, sizeof(rec));
	rec.flags = how;
	rec.a = pages;
	pgf_emit(t, &rec, PGF_KIND_OTHER);
}

/**
 * pgf_rearm_record() - write the REARM record of a re-arm
 * @t: the trace
 * @mm: the address space that was re-armed
 * @pages: how many pages were
 * @how: enum pgf_rearm_how
 *
 * Only while the trace still runs on @mm: a stop or an exec in between
 * makes the record meaningless.
 *
 * Context: &pgf_trace.mutex not held.
 */
void pgf_rearm_record(struct pgf_trace *t, struct mm_struct *mm,
		      unsigned long pages, u8 how)
{
	mutex_lock(&t->mutex);
	if (READ_ONCE(t->active) && t->mm == mm)
		__pgf_rearm_record(t, pages, how);
	mutex_unlock(&t->mutex);
}

/* Does the clock tick for @t: interval or sampling mode. Under mutex. */
static bool __pgf_clock_on(struct pgf_trace *t)
{
#if defined(PGF_STAGE_INHERIT)
	return (t->interval_ms || t->sample_ms) && !t->clock_off;
#elif defined(PGF_STAGE_SAMPLE)
	return t->interval_ms || t->sample_ms;
#else
	return t->interval_ms;
#endif
}

static void __pgf_interval_queue(struct pgf_trace *t)
{
#ifdef PGF_STAGE_SAMPLE
	queue_delayed_work(system_unbound_wq, &t->rearm_work,
			   msecs_to_jiffies(t->interval_ms ?: t->sample_ms));
#else
	queue_delayed_work(system_unbound_wq, &t->rearm_work,
			   msecs_to_jiffies(t->interval_ms));
#endif
}

/**
 * __pgf_interval_start() - start the clock of interval or sampling mode
 * @t: the trace, just activated with @t->interval_ms or @t->sample_ms set
 *
 * Context: &pgf_trace.mutex held.
 */
void __pgf_interval_start(struct pgf_trace *t)
{
	lockdep_assert_held(&t->mutex);
	if (!__pgf_clock_on(t) || test_and_set_bit(PGF_REARM_QUEUED, &t->bits))
		return;		/* off, or the work will see the new state */
	refcount_inc(&t->ref);
	__pgf_interval_queue(t);
}

/**
 * __pgf_clock_stop() - let go of the clock's next tick at once
 * @t: the trace, just made inactive
 *
 * A tick waiting for its time holds a reference to the trace for up to an
 * interval (an hour at most): it is cancelled here, and its reference
 * dropped, so that a stopped or ended trace is freed when its last user
 * goes. A tick already running finds the trace inactive and stops the
 * clock itself.
 *
 * Context: &pgf_trace.mutex held; the caller holds a reference.
 */
void __pgf_clock_stop(struct pgf_trace *t)
{
	lockdep_assert_held(&t->mutex);
	if (!cancel_delayed_work(&t->rearm_work))
		return;
	clear_bit(PGF_REARM_QUEUED, &t->bits);
	pgf_trace_put(t);
}

/*
 * One tick on @mm, its mmap lock held for reading: a scan in sampling
 * mode, else a re-arm and its record.
 */
static void pgf_tick(struct pgf_trace *t, struct mm_struct *mm)
{
	unsigned long pages = 0;
#ifdef PGF_STAGE_SAMPLE
	bool sampling;
#endif

	/*
	 * A stop restores re-armed pages under the mmap write lock once the
	 * trace is inactive: a tick that gets the lock after it walks nothing.
	 */
	if (!READ_ONCE(t->active) || data_race(t->mm) != mm)
		return;
#ifdef PGF_STAGE_SAMPLE
	mutex_lock(&t->mutex);
	sampling = t->sample_ms;
	if (sampling && READ_ONCE(t->active) && t->mm == mm)
		__pgf_sample(t, mm, 0);
	mutex_unlock(&t->mutex);
	if (sampling)
		return;
#endif
	pgf_rearm_mm(mm, &pages, NULL);
	pgf_rearm_record(t, mm, pages, PGF_REARM_INTERVAL);
}

/* The tick, in current's mm. */
static void pgf_rearm_current(struct pgf_trace *t)
{
	struct mm_struct *mm = current->mm;

	if (!mm || (current->flags & PF_EXITING) || !READ_ONCE(t->active) ||
	    mmap_read_lock_killable(mm))
		return;
	pgf_tick(t, mm);
	mmap_read_unlock(mm);
}

/* The task work: a thread of the process, on its way to user mode. */
static void pgf_rearm_task_work(struct callback_head *head)
{
	struct pgf_trace *t = container_of(head, struct pgf_trace,
					   rearm_twork);
	struct task_struct *th;

	pgf_rearm_current(t);
	mutex_lock(&t->mutex);
	th = t->rearm_thread;
	t->rearm_thread = NULL;
	clear_bit(PGF_REARM_PENDING, &t->bits);
	mutex_unlock(&t->mutex);
	if (th)
		put_task_struct(th);
	pgf_trace_put(t);
}

/* The clock's period, in milliseconds. Under mutex. */
static unsigned int __pgf_clock_ms(struct pgf_trace *t)
{
#ifdef PGF_STAGE_SAMPLE
	return t->interval_ms ?: t->sample_ms;
#else
	return t->interval_ms;
#endif
}

/*
 * The last tick's task work has not run: its thread went to sleep in the
 * kernel after it was picked (a blocking system call, a page fault that
 * waits for I/O), and may sleep for good. Past a period, take the work
 * back from it, for this tick to do the re-arm. Returns true if it was
 * taken back (PGF_REARM_PENDING, still set, is this tick's then); false
 * if it is not late, or runs now (it clears the bit).
 */
static bool __pgf_rearm_take_back(struct pgf_trace *t)
{
	struct task_struct *th = t->rearm_thread;

	lockdep_assert_held(&t->mutex);
	if (!th || time_before(jiffies, t->rearm_queued +
					msecs_to_jiffies(__pgf_clock_ms(t))))
		return false;
	if (!task_work_cancel(th, &t->rearm_twork))
		return false;
	t->rearm_thread = NULL;
	put_task_struct(th);
	refcount_dec(&t->ref);		/* the work's; the clock holds one */
	return true;
}

/*
 * A thread of the process that is running or about to (preferred: it
 * reaches user mode within a tick), else NULL if all of them sleep; with a
 * reference. Never a user worker (an io_uring or vhost worker shares the
 * mm but never returns to user mode, so its task work might never run and
 * the clock would stop for good): a process whose only running threads
 * are workers is walked by the work item, as one whose threads all sleep.
 */
static struct task_struct *pgf_running_thread(struct pgf_trace *t)
{
	struct task_struct *p, *th, *found = pgf_test_pick(t);

	if (found)
		return found;
	rcu_read_lock();
	p = pid_task(t->tgid, PIDTYPE_TGID);
	if (p) {
		for_each_thread(p, th) {
			if (th->mm == t->mm &&
			    !(th->flags & (PF_EXITING | PF_USER_WORKER |
					   PF_IO_WORKER)) &&
			    task_is_running(th)) {
				found = th;
				get_task_struct(found);
				break;
			}
		}
	}
	rcu_read_unlock();
	return found;
}

/*
 * One interval's re-arm. A thread of the process does it, as
 * task_numa_work() scans, when it next returns to user mode: it touches
 * no page while it walks, so in a single-threaded process no fault falls
 * between the walk and its REARM record. When every thread sleeps, no
 * thread touches a page and the worker walks instead. If the last
 * interval's re-arm has not run yet (its thread went to sleep in the
 * kernel first), this one is skipped; for one interval at most: a later
 * tick takes the work back from that thread and re-arms.
 */
static void pgf_interval_rearm(struct pgf_trace *t)
{
	struct mm_struct *mm = NULL;
	struct task_struct *th;

	mutex_lock(&t->mutex);
	if (!READ_ONCE(t->active) || !t->mm ||
	    (test_and_set_bit(PGF_REARM_PENDING, &t->bits) &&
	     !__pgf_rearm_take_back(t))) {
		mutex_unlock(&t->mutex);
		return;
	}
	th = pgf_running_thread(t);
	if (th) {
		refcount_inc(&t->ref);
		init_task_work(&t->rearm_twork, pgf_rearm_task_work);
		if (!task_work_add(th, &t->rearm_twork, TWA_RESUME)) {
			/* Queued: it clears the bit, and lets go of @th. */
			t->rearm_thread = th;
			t->rearm_queued = jiffies;
			goto out_unlock;
		}
		put_task_struct(th);
		refcount_dec(&t->ref);		/* exiting; not the last */
	}
	if (mmget_not_zero(t->mm))
		mm = t->mm;
	clear_bit(PGF_REARM_PENDING, &t->bits);
out_unlock:
	mutex_unlock(&t->mutex);
	if (!mm)
		return;
	mmap_read_lock(mm);
	pgf_tick(t, mm);
	mmap_read_unlock(mm);
	mmput(mm);
}

/**
 * pgf_rearm_work() - interval mode's clock: a re-arm every interval
 * @work: &pgf_trace.rearm_work
 */
void pgf_rearm_work(struct work_struct *work)
{
	struct pgf_trace *t = container_of(to_delayed_work(work),
					   struct pgf_trace, rearm_work);
	bool again;

	pgf_interval_rearm(t);
	mutex_lock(&t->mutex);
	again = READ_ONCE(t->active) && __pgf_clock_on(t);
	if (again)
		__pgf_interval_queue(t);
	else
		clear_bit(PGF_REARM_QUEUED, &t->bits);
	mutex_unlock(&t->mutex);
	if (!again)
		pgf_trace_put(t);
}
