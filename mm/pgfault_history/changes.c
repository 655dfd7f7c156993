// SPDX-License-Identifier: GPL-2.0
/*
 * The physical side of a trace: what the kernel changes behind a traced
 * process's back.
 */
/**
 * DOC: changes
 *
 * The kernel moves and drops the frames behind a process's pages without
 * the process faulting: migration (NUMA balancing, move_pages(),
 * mbind(), compaction, demotion, memory hotplug), reclaim (kswapd, direct
 * reclaim, MADV_PAGEOUT), a THP's split, khugepaged's collapse, KSM's
 * merge. With the frames of its faults and a record of each of these
 * changes, a reader can say which page of the process a frame held at
 * any time.
 *
 * The rmap and migration paths know the (VMA, address) pair of each
 * entry they change, under its page table lock; where they change one,
 * they call pgfault_history_changed(), which costs a static branch and,
 * while some process is traced, a load of &mm_struct.pgf.traces. They
 * run in whatever context changes the page (kswapd, kcompactd,
 * khugepaged, ksmd, another process's move_pages()), so the traces are
 * found from the mm: a hash of the traces that follow an mm, keyed by
 * it, filled and emptied where a trace binds its mm
 * (pgf_regions_bind()), read under RCU. A record goes into the ring of
 * the CPU that made the change, in time order with the rest.
 *
 * A record is a run of pages at an address, in consecutive frames, with
 * the frame before and after (node always: /proc/<pid>/numa_maps shows
 * it to anyone who may trace; the frame number only if the trace records
 * frames, see the DOC: frames) and the cause. The node of a frame needs
 * its folio: the callers hold it (locked, or mapped under the page table
 * lock), so it can be neither freed nor split under us.
 */
#define pr_fmt(fmt) "pgfault: " fmt

#include <linux/bitfield.h>
#include <linux/hashtable.h>
#include <linux/migrate_mode.h>
#include <linux/mm.h>
#include <linux/pgfault_history.h>
#include <linux/rcupdate.h>
#include <linux/rmap.h>
#include <linux/spinlock.h>
#include <linux/swap.h>

#include "internal.h"

/* The traces that follow each traced mm, for the hooks of other contexts. */
#define PGF_MM_HASH_BITS	8
static DEFINE_HASHTABLE(pgf_mm_hash, PGF_MM_HASH_BITS);
static DEFINE_SPINLOCK(pgf_mm_hash_lock);

/* A move's cause fits PGF_CHANGE_CAUSE, migrate_reason's before ours. */
static_assert(PGF_MOVE_KSM >= MR_TYPES);
static_assert((PGF_CHANGE_CAUSE >> 3) >= PGF_MOVE_DEVICE);
static_assert(PGF_CHANGE_KIND >= PGF_CHANGE_MAPPED);

/**
 * pgf_changes_bind() - a trace follows another mm, or none
 * @t: the trace
 * @mm: the mm it follows from now on, or NULL
 *
 * A node taken out of the hash may still hold a hook that walks its
 * chain: it goes back in (to another chain, or at the head of its own)
 * only a grace period later, or the walk would skip or repeat traces.
 * A trace leaves the hash at an exec before its exec record, and joins it
 * for the new mm after: that rebind, and a restart right after a stop,
 * wait for the grace period.
 *
 * Context: t->mutex held, or the trace's last reference gone; may sleep
 * when @mm is not NULL.
 */
void pgf_changes_bind(struct pgf_trace *t, struct mm_struct *mm)
{
	if (t->hashed == mm)
		return;
	if (t->hashed) {
		spin_lock(&pgf_mm_hash_lock);
		hash_del_rcu(&t->mm_node);
		WRITE_ONCE(t->hashed, NULL);
		spin_unlock(&pgf_mm_hash_lock);
		t->unhashed = get_state_synchronize_rcu();
		t->was_hashed = true;
	}
	if (!mm)
		return;
	if (t->was_hashed)
		cond_synchronize_rcu(t->unhashed);
	spin_lock(&pgf_mm_hash_lock);
	hash_add_rcu(pgf_mm_hash, &t->mm_node, (unsigned long)mm);
	WRITE_ONCE(t->hashed, mm);
	spin_unlock(&pgf_mm_hash_lock);
}

/* The level of one entry that maps @nr pages. */
static enum pgf_level pgf_level_of(unsigned long nr)
{
	if (nr << PAGE_SHIFT >= PUD_SIZE && PUD_SHIFT > PMD_SHIFT)
		return PGF_LEVEL_PUD;
	if (nr > 1 && nr << PAGE_SHIFT >= PMD_SIZE)
		return PGF_LEVEL_PMD;
	return PGF_LEVEL_PTE;
}

/*
 * The frame of @pfn mapped at @level as a change record packs it: valid
 * and its node always, the frame number only if @t records frames; the
 * order is the folio's.
 */
static u64 pgf_change_frame(const struct pgf_trace *t, unsigned long pfn,
			    enum pgf_level level)
{
	u64 frame = PGF_FRAME_VALID | FIELD_PREP(PGF_FRAME_LEVEL, level);

	if (pgf_trace_frames(t) && pfn <= FIELD_MAX(PGF_FRAME_PFN))
		frame |= FIELD_PREP(PGF_FRAME_PFN, pfn);
	else
		frame |= PGF_FRAME_HIDDEN;
	if (!pfn_valid(pfn))
		return frame | FIELD_PREP(PGF_FRAME_NODE, PGF_FRAME_NO_NODE);
	return frame | FIELD_PREP(PGF_FRAME_NODE, pfn_to_nid(pfn)) |
	       FIELD_PREP(PGF_FRAME_ORDER,
			  folio_order(page_folio(pfn_to_page(pfn))));
}

/* What reclaim (@ttu: its enum ttu_flags) unmapped a page for. */
static unsigned int pgf_evict_cause(unsigned int ttu)
{
	if (ttu & TTU_HWPOISON)
		return PGF_EVICT_HWPOISON;
	/* split_huge_page()'s unmap_folio() holds the rmap lock. */
	if (ttu & TTU_RMAP_LOCKED)
		return PGF_EVICT_SPLIT;
	/* collapse_file(), truncation of a poisoned or unsplit folio */
	if (ttu & TTU_IGNORE_MLOCK)
		return ttu & TTU_BATCH_FLUSH ? PGF_EVICT_COLLAPSE :
		       PGF_EVICT_TRUNCATE;
	if (current_is_kswapd())
		return PGF_EVICT_KSWAPD;
	/* Direct reclaim (the allocator's, a memory cgroup's) says so. */
	if (current->reclaim_state)
		return PGF_EVICT_DIRECT;
	/* reclaim_pages(): MADV_PAGEOUT, DAMON's pageout */
	return PGF_EVICT_PAGEOUT;
}

/**
 * pgf_remote_mapped() - another task's fault mapped pages of a traced mm
 * @vmf: the fault, its page table lock held
 * @addr: the user address of the first page mapped
 * @pfn: its frame
 * @nr: pages mapped from @addr, in consecutive frames
 * @size: what one entry maps
 *
 * The body of pgfault_history_mapped() for a fault that
 * pgfault_history_fault_begin() found on another mm a trace follows:
 * get_user_pages() of another process (process_vm_writev(), ptrace,
 * /proc/<pid>/mem), KSM's unmerging by ksmd. Each page the fault mapped
 * is a change to that mm's frames: a "mapped" record, from no frame (the
 * fault does not say which one a copy-on-write replaced).
 */
void pgf_remote_mapped(struct vm_fault *vmf, unsigned long addr,
		       unsigned long pfn, unsigned long nr, unsigned long size)
{
	/* A flag left by an untraced task's earlier fault: this one is its own. */
	if (vmf->vma->vm_mm == current->mm) {
		current->pgf_frame = 0;
		return;
	}
	pgf_page_changed(vmf->vma, addr, nr, 0, pfn, PGF_CHANGE_MAPPED |
			 (size == PAGE_SIZE ? PGF_CHANGE_PTES : 0),
			 PGF_MAPPED_REMOTE);
}

/**
 * pgf_page_changed() - the body of pgfault_history_changed()
 * @vma: the VMA of the pages
 * @addr: the first page's address
 * @nr: how many pages, in consecutive frames from @old and from @new
 * @old: the frame they were mapped to, 0 for none
 * @new: the frame they are mapped to now, 0 for none
 * @kind: enum pgf_change_kind
 * @cause: its cause: enum migrate_reason or PGF_MOVE_* for a move, the
 *	   unmapping's enum ttu_flags for an eviction, PGF_COLLAPSE_* for a
 *	   collapse, PGF_MAPPED_REMOTE for another task's fault
 *
 * Context: the pages' page table lock held, or the rmap lock of their
 * folio; may not sleep.
 */
void pgf_page_changed(struct vm_area_struct *vma, unsigned long addr,
		      unsigned long nr, unsigned long old, unsigned long new,
		      unsigned int kind, unsigned int cause)
{
	enum pgf_level was = pgf_level_of(nr), is;
	struct mm_struct *mm = vma->vm_mm;
	struct pgf_change_rec cr __uninitialized;
	struct pgf_trace *t;

	/* A PTES run is mapped by ptes; a split's pages are, after it. */
	if (kind & PGF_CHANGE_PTES)
		was = PGF_LEVEL_PTE;
	kind &= ~PGF_CHANGE_PTES;
	is = kind == PGF_CHANGE_SPLIT ? PGF_LEVEL_PTE : was;
	if (kind == PGF_CHANGE_EVICT)
		cause = pgf_evict_cause(cause);
	rcu_read_lock();
	hash_for_each_possible_rcu(pgf_mm_hash, t, mm_node, (unsigned long)mm) {
		if (READ_ONCE(t->hashed) != mm || !READ_ONCE(t->active) ||
		    !refcount_inc_not_zero(&t->ref))
			continue;
		pgf_rec_init(t, &cr.rec, PGF_REC_PAGES, sizeof(cr));
		cr.rec.flags = FIELD_PREP(PGF_CHANGE_KIND, kind) |
			       FIELD_PREP(PGF_CHANGE_CAUSE, cause);
		cr.rec.a = addr;
		cr.rec.b = nr;
		cr.old = old ? pgf_change_frame(t, old, was) : 0;
		cr.new = new ? pgf_change_frame(t, new, is) : 0;
		pgf_emit_fault(t, &cr.rec, PGF_KIND_OTHER);
		pgf_trace_put(t);
	}
	rcu_read_unlock();
}
