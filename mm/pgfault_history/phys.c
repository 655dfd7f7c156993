// SPDX-License-Identifier: GPL-2.0
/*
 * The physical side of a trace: the frame behind each fault.
 */
/**
 * DOC: frames
 *
 * A fault record may carry the frame the fault mapped: its page frame
 * number, the NUMA node of its folio, the folio's order, and the page
 * table level it is mapped at (pte, pmd, pud). Frame numbers are what
 * /proc/<pid>/pagemap shows only to CAP_SYS_ADMIN (they tell where the
 * kernel put data, which Rowhammer-style attacks want), and the rule is
 * the same: a file of pgfault_history shows them if its opener held
 * CAP_SYS_ADMIN in the initial user namespace (pgf_cred_sees_frames());
 * another file reading the same trace never sees them. A trace records
 * them while the credentials it is held to (its reader's, else its
 * starter's; see pgf_trace_hold_cred()) may see them, so that a trace
 * nobody privileged reads costs nothing more.
 *
 * The fault path knows the frame where it installs the entry, not where
 * handle_mm_fault() records the fault: the install sites call
 * pgfault_history_mapped() under the page table lock with the frame they
 * map, and pgf_fault_mapped() keeps the frame of the faulting page in
 * &task_struct.pgf_frame, which the fault's record takes (and clears).
 * No page table is walked for it. A fault of a traced thread on another
 * mm (a remote fault) keeps none: its record shows no address either.
 *
 * A fault that installed nothing has no frame: one that found the entry
 * changed under it by another thread (which recorded its own), one that
 * waited for a migration or for a page under I/O and let the access
 * retry, a NUMA hinting fault that migrated the page. Nor do the faults
 * completed elsewhere than the sites above: by a driver or fsdax
 * inserting frames (vmf_insert_pfn(), vmf_insert_mixed()), a device
 * private page's migrate_to_ram(), a device exclusive entry restored, a
 * pud's accessed bit, an unshare fault that found the page exclusive. A
 * frame without a struct page (a driver's, met at the sites above) has
 * no node. pgfault_history_fault_begin() clears the thread's frame as a
 * traced fault starts, so that a frame is only ever its own fault's.
 */
#define pr_fmt(fmt) "pgfault: " fmt

#include <linux/bitfield.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/pgfault_history.h>
#include <linux/security.h>
#include <linux/user_namespace.h>

#include "internal.h"

/**
 * pgf_cred_sees_frames() - may the holder of @cred see frame numbers?
 * @cred: a file's opener's credentials
 *
 * Return: true if they hold CAP_SYS_ADMIN in the initial user namespace,
 * as pagemap_read() asks of its file.
 */
bool pgf_cred_sees_frames(const struct cred *cred)
{
	return !security_capable(cred, &init_user_ns, CAP_SYS_ADMIN,
				 CAP_OPT_NOAUDIT);
}

/*
 * The zero page's frame but its number: valid, the node and order of its
 * folio, mapped by a pte; packed once zero_pfn is known (0 before, when
 * no traced fault can have mapped it). A read of untouched anonymous
 * memory, the cheapest fault there is, maps the zero page, and looking
 * up its struct page would cost more than the rest of its record:
 * pgfault_history_mapped_zero() ORs its frame number in, inline (the
 * low bits, PGF_FRAME_PFN).
 */
u64 pgf_zero_frame __ro_after_init;

/* The frame of @pfn mapped at @level, as a fault record packs it. */
static u64 pgf_frame(unsigned long pfn, enum pgf_level level)
{
	u64 frame = PGF_FRAME_VALID | FIELD_PREP(PGF_FRAME_PFN, pfn) |
		    FIELD_PREP(PGF_FRAME_LEVEL, level);
	struct folio *folio;

	BUILD_BUG_ON(MAX_NUMNODES > PGF_FRAME_NO_NODE);
	if (is_zero_pfn(pfn) && pgf_zero_frame)
		return frame | pgf_zero_frame;
	if (!pfn_valid(pfn))
		return frame | FIELD_PREP(PGF_FRAME_NODE, PGF_FRAME_NO_NODE);
	/*
	 * Mapped under the page table lock held: the folio can be neither
	 * freed nor split under us.
	 */
	folio = page_folio(pfn_to_page(pfn));
	return frame | FIELD_PREP(PGF_FRAME_NODE, folio_nid(folio)) |
	       FIELD_PREP(PGF_FRAME_ORDER, folio_order(folio));
}

static int __init pgf_phys_init(void)
{
	struct folio *folio = page_folio(pfn_to_page(my_zero_pfn(0)));

	pgf_zero_frame = PGF_FRAME_VALID |
			 FIELD_PREP(PGF_FRAME_NODE, folio_nid(folio)) |
			 FIELD_PREP(PGF_FRAME_ORDER, folio_order(folio)) |
			 FIELD_PREP(PGF_FRAME_LEVEL, PGF_LEVEL_PTE);
	return 0;
}
late_initcall(pgf_phys_init);

/**
 * pgf_fault_mapped() - keep the frame a traced fault mapped for its record
 * @vmf: the fault
 * @addr: the user address of the first page mapped
 * @pfn: its frame
 * @nr: pages mapped from @addr, in consecutive frames
 * @size: what one entry maps
 *
 * The body of pgfault_history_mapped(). Fault-around maps pages around
 * the faulting one in runs: only the run that holds it counts.
 *
 * Context: the fault's page table lock held.
 */
void pgf_fault_mapped(struct vm_fault *vmf, unsigned long addr,
		      unsigned long pfn, unsigned long nr, unsigned long size)
{
	unsigned long at = vmf->real_address & PAGE_MASK;
	enum pgf_level level = PGF_LEVEL_PTE;

#ifdef PGF_STAGE_CHANGES
	/*
	 * A fault on another mm (a remote fault) is recorded without it, and
	 * is a change to that mm if a trace follows it.
	 */
	if (vmf->vma->vm_mm != current->mm) {
		if (current->pgf_frame & PGF_REMOTE_FAULT)
			pgf_remote_mapped(vmf, addr, pfn, nr, size);
		return;
	}
#else
	/* A fault on another mm (a remote fault) is recorded without it. */
	if (vmf->vma->vm_mm != current->mm)
		return;
#endif
#ifdef PGF_STAGE_CHANGES
	/*
	 * The pages a fault maps beside its own (fault-around's runs, the
	 * rest of a large folio mapped by ptes) have no fault of their own:
	 * a "mapped around" says which frames they got.
	 */
	if (size == PAGE_SIZE &&
	    (nr > 1 || at < addr || (at - addr) >> PAGE_SHIFT >= nr))
		pgf_page_changed(vmf->vma, addr, nr, 0, pfn,
				 PGF_CHANGE_MAPPED | PGF_CHANGE_PTES,
				 PGF_MAPPED_AROUND);
#endif
	if (at < addr || (at - addr) >> PAGE_SHIFT >= nr)
		return;
	pfn += (at - addr) >> PAGE_SHIFT;
	if (pfn > FIELD_MAX(PGF_FRAME_PFN))
		return;
	/* Where the pmd is folded into the pud, a pmd's size is the pud's. */
	if (size >= PUD_SIZE && PUD_SHIFT > PMD_SHIFT)
		level = PGF_LEVEL_PUD;
	else if (size >= PMD_SIZE)
		level = PGF_LEVEL_PMD;
	current->pgf_frame = pgf_frame(pfn, level);
}
