/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pgfault_history: the hook in the mmap write-lock release paths. Kept
 * apart from <linux/pgfault_history.h> because <linux/mmap_lock.h>, which
 * calls it, is included too early for that header's dependencies.
 */
#ifndef _LINUX_PGFAULT_HISTORY_MM_H
#define _LINUX_PGFAULT_HISTORY_MM_H

#include <linux/jump_label_ratelimit.h>

struct mm_struct;

#ifdef CONFIG_PGFAULT_HISTORY

extern struct static_key_false_deferred pgf_tracing_key;
void __pgf_mm_unlocking(struct mm_struct *mm);

/**
 * pgfault_history_mm_unlocking() - the mmap write lock is about to go
 * @mm: the mm, still write-locked
 *
 * Called from mmap_write_unlock() and mmap_write_downgrade(): every change
 * to the VMAs of @mm made under the lock is complete and visible. If the
 * current thread's process is traced and @mm is its own, the changes are
 * recorded.
 */
static inline void pgfault_history_mm_unlocking(struct mm_struct *mm)
{
	if (static_branch_unlikely(&pgf_tracing_key.key))
		__pgf_mm_unlocking(mm);
}

#else

static inline void pgfault_history_mm_unlocking(struct mm_struct *mm) { }

#endif /* CONFIG_PGFAULT_HISTORY */
#endif /* _LINUX_PGFAULT_HISTORY_MM_H */
