/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pgfault_history: the hooks of <linux/mm.h>, which includes this header,
 * and of mm/vma.h: where an mm starts, where its VMAs change, and what a
 * traced mm's faults may map. Kept apart from <linux/pgfault_history.h>,
 * whose dependencies <linux/mm.h> comes too early for.
 */
#ifndef _LINUX_PGFAULT_HISTORY_MM_H
#define _LINUX_PGFAULT_HISTORY_MM_H

#include <linux/atomic.h>
#include <linux/jump_label_ratelimit.h>
#include <linux/mm_types.h>
#include <linux/string.h>

#ifdef CONFIG_PGFAULT_HISTORY

extern struct static_key_false_deferred pgf_tracing_key;
void pgf_mm_changed(struct mm_struct *mm, unsigned long start,
		    unsigned long end);

/**
 * pgfault_history_mm_changed() - VMAs in a range of an mm are changing
 * @mm: the mm, write-locked
 * @start: the first address of the range
 * @end: the end of the range (exclusive)
 *
 * Called where the VMA tree is written. If a trace follows @mm, the range
 * is noted (O(1)) and the change is recorded when the thread returns to
 * user space, or before a traced fault in @mm if one comes first.
 */
static inline void pgfault_history_mm_changed(struct mm_struct *mm,
					      unsigned long start,
					      unsigned long end)
{
	if (static_branch_unlikely(&pgf_tracing_key.key) &&
	    unlikely(atomic_read(&mm->pgf.traces)))
		pgf_mm_changed(mm, start, end);
}

/**
 * pgfault_history_vma_write() - a VMA is stored or its flags change
 * @vma: the VMA, its mm write-locked
 *
 * Called from the VMA tree stores, through which every VMA that appears,
 * grows or moves goes, and from the vm_flags modifiers, through which
 * every change of a VMA's permissions (and of its anon_vma_name) goes:
 * the extent is noted; a VMA that shrinks leaves a store or a clear in
 * its old extent, which the compare widens to the whole region.
 */
static inline void pgfault_history_vma_write(struct vm_area_struct *vma)
{
	pgfault_history_mm_changed(vma->vm_mm, vma->vm_start, vma->vm_end);
}

#ifdef PGF_STAGE_REARM
/**
 * pgfault_history_rereferencing() - does a trace of re-references follow an mm
 * @mm: the mm of a fault
 *
 * A trace of re-references (interval or window mode) must see the first
 * access to every page. While one follows @mm, a fault maps its own page
 * only: should_fault_around() maps no neighbouring page cache pages, as
 * userfaultfd asks for the same reason, and a fault maps or restores one
 * PTE, not a whole large folio. Only time changes for the process.
 *
 * Return: true while a trace of re-references follows @mm.
 */
static inline bool pgfault_history_rereferencing(struct mm_struct *mm)
{
	return static_branch_unlikely(&pgf_tracing_key.key) &&
	       unlikely(atomic_read(&mm->pgf.rereference));
}
#endif

/**
 * pgfault_history_mm_init() - a new mm_struct: no trace follows it
 * @mm: the mm, possibly copied from its parent's (dup_mm())
 */
static inline void pgfault_history_mm_init(struct mm_struct *mm)
{
	memset(&mm->pgf, 0, sizeof(mm->pgf));
	memset(&mm->pgf_notes, 0, sizeof(mm->pgf_notes));
}

/**
 * pgfault_history_vma_init() - a copied VMA is a new object to the traces
 * @vma: the copy (vm_area_dup()); vm_area_alloc() zeroes a new one
 */
static inline void pgfault_history_vma_init(struct vm_area_struct *vma)
{
	vma->pgf_tag = 0;
}

#else

static inline void pgfault_history_mm_changed(struct mm_struct *mm,
					      unsigned long start,
					      unsigned long end) { }
static inline void pgfault_history_vma_write(struct vm_area_struct *vma) { }
#ifdef PGF_STAGE_REARM
static inline bool pgfault_history_rereferencing(struct mm_struct *mm)
{
	return false;
}
#endif

static inline void pgfault_history_mm_init(struct mm_struct *mm) { }
static inline void pgfault_history_vma_init(struct vm_area_struct *vma) { }

#endif /* CONFIG_PGFAULT_HISTORY */
#endif /* _LINUX_PGFAULT_HISTORY_MM_H */
