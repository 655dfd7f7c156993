/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pgfault_history: what an mm_struct carries for it. Kept apart, with no
 * dependency but <linux/types.h>, because <linux/mm_types.h> includes it.
 */
#ifndef _LINUX_PGFAULT_HISTORY_TYPES_H
#define _LINUX_PGFAULT_HISTORY_TYPES_H

#include <linux/types.h>

#ifdef CONFIG_PGFAULT_HISTORY

/* Address ranges kept apart before the closest two are merged. */
#define PGF_MM_RANGES		4
/* pgf_mm.nr: everything may have changed (a new mm, an exec). */
#define PGF_MM_ALL		(~0U)

/**
 * struct pgf_mm - what the fault path and the VMA hooks read of an mm
 * @traces: how many traces follow this mm; changes are noted while > 0
 * @rereference: how many of them trace re-references (interval or window
 *               mode): while > 0, a fault maps no page but its own
 * @nr: ranges in use in &pgf_mm_notes.start and .end, or PGF_MM_ALL
 * @armed: re-arming made PTEs of this mm PROT_NONE (where the hardware
 *         keeps the accessed bit): set before such a walk, under the mmap
 *         lock, and left set for the mm's life, so that a PROT_NONE PTE
 *         of this mm may be a re-armed page (pgfault_history_rearms())
 *
 * Kept apart from the ranges, beside &mm_struct.mm_lock_seq, which every
 * fault under the VMA's lock reads: the hooks' loads while a process is
 * traced, any process, hit a cache line the fault has already brought.
 */
struct pgf_mm {
	atomic_t traces;
	atomic_t rereference;
	unsigned int nr;
	bool armed;
};

/**
 * struct pgf_mm_notes - the VMA changes of a traced mm not yet recorded
 * @epoch: counts the traces' comings and goings: a trace that sees it
 *         moved since it last recorded this mm compares everything once
 * @start: where each range starts
 * @end: where each range ends (exclusive)
 *
 * Every change to a VMA is made under the mmap lock held for writing, and
 * noted here by the hooks of the VMA tree stores and vm_flags modifiers
 * (see mm/pgfault_history/regions.c): the ranges cover every VMA that was
 * modified, added or removed since a trace last recorded this mm. The
 * ranges and &pgf_mm.nr are written under the mmap write lock, where they
 * are noted, or under the read lock by a trace that records them (with
 * its mutex: nobody can be noting a change then).
 */
struct pgf_mm_notes {
	atomic_t epoch;
	unsigned long start[PGF_MM_RANGES];
	unsigned long end[PGF_MM_RANGES];
};

#endif /* CONFIG_PGFAULT_HISTORY */
#endif /* _LINUX_PGFAULT_HISTORY_TYPES_H */
