// SPDX-License-Identifier: GPL-2.0
/*
 * pgfault_history: sampling mode, the pages a traced process referenced in
 * each interval, read from the accessed bits of its page tables (memref).
 *
 * DOC: pgfault_history sampling
 *
 * "1 sample=MS" starts a trace that records faults as a plain trace does
 * and, every MS milliseconds, tests and clears the accessed bit of every
 * present page of the process: the pages found referenced are the ones
 * the process used since the last scan. A scan writes REFS records, each
 * holding up to PGF_REFS_RUNS runs of consecutive referenced pages in
 * address order, then a SAMPLE record: its time (the end of the walk),
 * the pages it tested, how many of them were referenced, and how long the
 * walk took. The start runs a first scan, the baseline: its SAMPLE record
 * counts the pages referenced at any time before, and no REFS come with
 * it. So a scan tells which pages were referenced between the previous
 * SAMPLE record's time and its own, but for references during a walk
 * (from the SAMPLE record's time less the walk's length to its time):
 * each page is tested at one moment of the walk, and a reference after
 * it counts in the next scan. Where software keeps the bit (below), the
 * fault of such a reference comes before this scan's SAMPLE record and
 * is the next scan's too: a page can fault twice between two SAMPLE
 * records when other threads run during a walk.
 *
 * How a bit is tested and cleared: as page_idle and DAMON do it, with
 * ptep_clear_young_notify() (secondary MMUs are asked too); a folio found
 * referenced is marked young and not idle (pgf_folio_referenced()) so that
 * reclaim and idle page tracking still count the reference the scan took
 * from the PTE. Nothing else changes:
 * no page is unmapped, moved, written or made inaccessible. The TLB is
 * flushed over every range where a bit was cleared, so that the next
 * reference sets it again (x86 does not walk the page table again for a
 * translation it has cached; DAMON leaves this out and accepts misses). A
 * transparent huge page mapped by a PMD has one accessed bit, and its
 * pages are referenced together; so are the 16 pages of an arm64
 * contiguous block (CONFIG_ARM64_CONTPTE: a 64 KiB mTHP, a THP mapped by
 * PTEs), whose accessed bits are read and cleared as one. The mappings
 * that re-arming leaves
 * alone (pgf_rearm_skip(): VM_PFNMAP, VM_IO, hugetlb, inaccessible) are
 * not scanned.
 *
 * Cost: where the hardware sets the bit (x86, arm64 with FEAT_HAFDBS),
 * the walk is the whole cost: a test and clear per present page, and the
 * flushes. Where software keeps it (UML, whose PTE made old maps its page
 * without any access, arch/um/kernel/tlb.c; arm64 without FEAT_HAFDBS,
 * which takes an access flag fault), the first reference to each page
 * after a scan faults, and that fault is recorded with the result reref,
 * as after a re-arm, and counted by /proc/<pid>/stat: exact, but a fault
 * per referenced page per interval.
 *
 * Who scans: the clock of interval mode (mm/pgfault_history/rearm.c), a
 * thread of the process on its way back to user mode, as task_numa_work()
 * scans, or the worker when every thread sleeps (the records' TID is 0).
 * A tick that finds the last one's scan still waiting is skipped (for a
 * period at most: see pgf_interval_rearm()), so a scan longer than the
 * interval delays the next one. Locks: the mmap lock for reading, then
 * &pgf_trace.mutex, let go between the walk's pieces
 * (pgf_walk_pause(): a stop, a new start or an exec meanwhile ends the
 * scan with no SAMPLE record), and each page table's lock while its
 * entries are tested. Records are written between page tables, with no
 * spinlock held. The walk (pgf_walk_chunks(), re-arming's) yields the CPU
 * every PGF_WALK_CHUNK and stops at a fatal signal (the SAMPLE record says
 * "stopped"). A REFS record
 * dropped because the buffer was full is counted in the LOST record before
 * the next one kept, and its SAMPLE record says "incomplete".
 *
 * A child traced through inherit that shares its creator's mm (CLONE_VM
 * without CLONE_THREAD) runs no clock: two scans of one mm would split
 * its references between them. The creator's trace samples the mm.
 */
#define pr_fmt(fmt) "pgfault: " fmt

#include <linux/bitmap.h>
#include <linux/hugetlb.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/pagewalk.h>
#include <linux/pgfault_history.h>
#include <linux/sched/signal.h>
#include <asm/tlbflush.h>

#include "internal.h"

/* A REFS record as the scan fills it. */
struct pgf_refs {
	struct pgf_rec rec;		/* rec.a: runs in use */
	struct pgf_run runs[PGF_REFS_RUNS];
};

/**
 * struct pgf_scan - one scan in progress
 * @t: the trace, its mutex held
 * @refs: the REFS record being filled; NULL for the baseline
 * @tid: the thread the records name (0 for the worker)
 * @run_start: the first page of the run not yet in @refs
 * @run_pages: its length, 0 for none
 * @scanned: present pages tested
 * @referenced: of them, those found referenced
 * @flush: a bit was cleared since the last flush
 * @lost: a REFS record was dropped
 */
struct pgf_scan {
	struct pgf_trace *t;
	struct pgf_refs *refs;
	u32 tid;
	unsigned long run_start, run_pages;
	unsigned long scanned, referenced;
	bool flush;
	bool lost;
};

/* Write the REFS record, if it holds a run; no spinlock held. */
static void pgf_scan_emit(struct pgf_scan *s)
{
	struct pgf_refs *refs = s->refs;

	if (!refs || !refs->rec.a)
		return;
	refs->rec.len = sizeof(refs->rec) + refs->rec.a * sizeof(refs->runs[0]);
	refs->rec.tid = s->tid;
	if (!pgf_emit(s->t, &refs->rec, PGF_KIND_OTHER))
		s->lost = true;
	refs->rec.a = 0;
}

/* Put the open run into the REFS record, writing the record when full. */
static void pgf_scan_close(struct pgf_scan *s)
{
	struct pgf_refs *refs = s->refs;

	if (!refs || !s->run_pages)
		return;
	if (refs->rec.a == PGF_REFS_RUNS)
		pgf_scan_emit(s);
	refs->runs[refs->rec.a].start = s->run_start;
	refs->runs[refs->rec.a].pages = s->run_pages;
	refs->rec.a++;
	s->run_pages = 0;
}

/* @pages pages from @addr on were referenced; no spinlock held. */
static void pgf_scan_add(struct pgf_scan *s, unsigned long addr,
			 unsigned long pages)
{
	s->referenced += pages;
	if (s->run_pages &&
	    s->run_start + (s->run_pages << PAGE_SHIFT) == addr) {
		s->run_pages += pages;
		return;
	}
	pgf_scan_close(s);
	s->run_start = addr;
	s->run_pages = pages;
}

#ifdef CONFIG_TRANSPARENT_HUGEPAGE
/* A PMD that maps a huge page: its one bit; true if it was one. */
static bool pgf_sample_pmd(pmd_t *pmd, unsigned long addr,
			   unsigned long next, struct mm_walk *walk)
{
	struct pgf_scan *s = walk->private;
	unsigned long pages = (next - addr) >> PAGE_SHIFT;
	bool young = false;
	spinlock_t *ptl;	/* the PMD's */
	pmd_t pmde;

	ptl = pmd_trans_huge_lock(pmd, walk->vma);
	if (!ptl)
		return false;
	pmde = pmdp_get(pmd);
	if (pmd_present(pmde) && pmd_trans_huge(pmde)) {
		s->scanned += pages;
		young = pmdp_clear_young_notify(walk->vma, addr, pmd);
		if (young && !is_huge_zero_pmd(pmde))
			pgf_folio_referenced(page_folio(pmd_page(pmde)));
	}
	spin_unlock(ptl);
	if (young) {
		s->flush = true;
		pgf_scan_add(s, addr, pages);
	}
	return true;
}
#else
static bool pgf_sample_pmd(pmd_t *pmd, unsigned long addr,
			   unsigned long next, struct mm_walk *walk)
{
	return false;
}
#endif

/*
 * The pages of one page table, [@addr, @next): tested and cleared under
 * its lock, noted in a bitmap, and turned into runs once it is dropped.
 */
static int pgf_sample_pmd_entry(pmd_t *pmd, unsigned long addr,
				unsigned long next, struct mm_walk *walk)
{
	struct pgf_scan *s = walk->private;
	unsigned long n = (next - addr) >> PAGE_SHIFT;
	DECLARE_BITMAP(young, PTRS_PER_PTE);
	unsigned long i, rs, re, a;
	pte_t *start, *pte, ptent;
	struct folio *folio;
	spinlock_t *ptl;	/* the page table's */

	if (pgf_sample_pmd(pmd, addr, next, walk))
		return 0;
	start = pte_offset_map_lock(walk->mm, pmd, addr, &ptl);
	if (!start) {
		walk->action = ACTION_AGAIN;	/* it changed under us */
		return 0;
	}
	bitmap_zero(young, PTRS_PER_PTE);
	for (i = 0, pte = start; i < n; i++, pte++) {
		ptent = ptep_get(pte);
		if (!pte_present(ptent) || pte_protnone(ptent))
			continue;
		s->scanned++;
		a = addr + (i << PAGE_SHIFT);
		if (!ptep_clear_young_notify(walk->vma, a, pte))
			continue;
		folio = vm_normal_folio(walk->vma, a, ptent);
		if (folio)
			pgf_folio_referenced(folio);
		__set_bit(i, young);
	}
	pte_unmap_unlock(start, ptl);
	for_each_set_bitrange(rs, re, young, n) {
		s->flush = true;
		pgf_scan_add(s, addr + (rs << PAGE_SHIFT), re - rs);
	}
	return 0;
}

static const struct mm_walk_ops pgf_sample_ops = {
	.pmd_entry	= pgf_sample_pmd_entry,
	.walk_lock	= PGWALK_RDLOCK,
};

/* pgf_chunk_fn of the scan: test and clear the bits of a piece of @vma. */
static void pgf_sample_chunk(struct vm_area_struct *vma, unsigned long start,
			     unsigned long end, void *arg)
{
	struct pgf_scan *s = arg;

	s->flush = false;
	walk_page_range_vma(vma, start, end, &pgf_sample_ops, s);
	if (s->flush)
		flush_tlb_range(vma, start, end);
}

/**
 * __pgf_sample() - one scan of the accessed bits of a traced mm
 * @t: the trace, active on @mm
 * @mm: the address space, its mmap lock held for reading
 * @flags: PGF_SAMPLE_BASELINE for the start's scan, else 0
 *
 * Writes the scan's REFS records, then its SAMPLE record; see the DOC
 * above.
 *
 * Context: &pgf_trace.mutex held; may sleep.
 */
void __pgf_sample(struct pgf_trace *t, struct mm_struct *mm, u8 flags)
{
	struct pgf_scan s = { .t = t };
	struct pgf_sample_rec sr;
	struct pgf_refs refs;
	u64 t0 = ktime_get_ns();
	int err;

	mmap_assert_locked(mm);
	lockdep_assert_held(&t->mutex);
	pgf_rec_init(t, &sr.rec, PGF_REC_SAMPLE, sizeof(sr));
	/* The worker scans when every thread sleeps: no thread of ours. */
	s.tid = current->mm == mm ? sr.rec.tid : 0;
	if (!(flags & PGF_SAMPLE_BASELINE)) {
		pgf_rec_init(t, &refs.rec, PGF_REC_REFS, sizeof(refs));
		s.refs = &refs;
	}
	err = pgf_walk_chunks(mm, NULL, 0, 0, pgf_sample_chunk, &s, true, t);
	if (err == -ESRCH)
		return;		/* stopped or started again: no record */
	if (err)
		flags |= PGF_SAMPLE_STOPPED;
	pgf_scan_close(&s);
	pgf_scan_emit(&s);
	sr.rec.flags = flags | (s.lost ? PGF_SAMPLE_INCOMPLETE : 0);
	sr.rec.tid = s.tid;
	sr.rec.a = s.scanned;
	sr.rec.b = s.referenced;
	sr.ns = ktime_get_ns() - t0;
	pgf_emit(t, &sr.rec, PGF_KIND_OTHER);
}
