/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pgfault_history.h - the text format of /proc/<pid>/pgfault_history.
 *
 * Shared by the kernel, which writes it, and the tools, which read it.
 * The stream is line oriented: a header line, then one record per line,
 * fields separated by one space, addresses in lower-case hex without "0x",
 * times in nanoseconds of CLOCK_MONOTONIC, thread ids (and the header's
 * pid) as seen from the pid namespace of the /proc through which tracing
 * was first started, 0 for a thread not seen there.
 *
 *   pgfault_history VERSION pid PID page_size BYTES
 *   start TIME MODE [inherit]
 *   fault TIME TID ADDR ACCESS MODE RESULT IP
 *   remote TIME TID ACCESS RESULT
 *   lost FAULTS OTHER
 *   exec TIME TID PATH
 *   stop TIME REASON
 *   exit TIME STATUS FAULTS LOST REGIONS
 *
 * ACCESS is r, w or x; MODE is user or kernel (the kernel touching user
 * memory on the process's behalf); RESULT is minor, major, reref (below),
 * or the signal the fault raised (SIGSEGV, SIGBUS) or OOM. IP is the user
 * instruction pointer (for kernel-mode faults, where the system call was
 * made), 0 when unknown. "remote" is a fault a thread of the process took
 * on another address space (process_vm_readv(), ptrace, the new image's
 * arguments during execve()); its address is not the process's to show.
 * REASON is "user" (0 written) or "credentials" (an exec that raised
 * privileges or made the process non-dumpable: the trace ends there).
 * "lost" counts records dropped because the buffer was full, and comes
 * before the next record that was kept: FAULTS the fault and remote
 * records of faults that /proc/<pid>/stat counts (result minor, major or
 * reref), OTHER every other record. So while traced, the counted fault
 * and remote records plus the lost FAULTS add up to what /proc/<pid>/stat
 * counts; "exit" gives the same two totals for the whole trace (FAULTS
 * kept, LOST), and REGIONS how many region ids it handed out. MODE in
 * "start" is "first" (first touches), or one of the modes below.
 */
#ifdef PGF_STAGE_REGIONS
/*
 * Regions:
 *
 *   layout TIME COUNT
 *   map TIME ID START END PERMS OFFSET MAJOR:MINOR INODE [NAME]
 *   change TIME ID START END PERMS OFFSET MAJOR:MINOR INODE [NAME]
 *   unmap TIME ID
 *
 * ID is a sequence number, stable for the region's life. "layout COUNT"
 * means: forget every region; the COUNT map records that follow are the
 * whole address space (it starts a trace, and comes again after region
 * records were lost; until it does, fault records are dropped and
 * counted, so every fault kept lies in a known region; it is written
 * whole or not at all). "map" is a new region, "change" the new state of
 * region ID, "unmap" its end; "exec" ends the old address space. PERMS,
 * OFFSET (hex), MAJOR:MINOR (hex), INODE and NAME are as in
 * /proc/<pid>/maps; NAME is absent for an anonymous unnamed region.
 */
#endif
#ifdef PGF_STAGE_REARM
/*
 * Re-references:
 *
 *   rearm TIME PAGES HOW
 *
 * Writing "rearm" to the file re-arms every present page: its next access
 * faults again, with result reref (a minor fault that only made a
 * re-armed page accessible again: a re-reference). MODE "interval=MS":
 * every page re-armed every MS milliseconds. "rearm" says that PAGES
 * present pages were re-armed; HOW is "user" ("rearm" written to the
 * file), "interval", or "window" (below).
 */
#endif
#ifdef PGF_STAGE_WINDOW
/*
 * MODE "window=PAGES": at most PAGES pages accessible; the faults are the
 * references that miss in a FIFO window of PAGES pages. A "rearm" with
 * HOW "window" says the window was emptied: at the start, after an exec,
 * or when evictions waiting for their re-arm overran it.
 */
#endif
#ifdef PGF_STAGE_SAMPLE
/*
 * Sampling:
 *
 *   refs TIME TID START+PAGES...
 *   sample TIME TID SCANNED REFERENCED NS [baseline] [incomplete] [stopped]
 *
 * MODE "sample=MS": faults as "first", and every MS milliseconds a scan
 * of the accessed bits of every present page. A scan that ends at TIME
 * writes "refs" lines, then a "sample" line. Each "refs" holds runs of
 * consecutive pages, in address order, that were referenced since the
 * previous "sample" line: START (hex) is the first page's address, PAGES
 * (decimal) how many follow it (a run may continue on the next "refs"
 * line of the scan). "sample" says that SCANNED present pages were
 * tested, REFERENCED of them found referenced (the sum of the runs before
 * it), in NS nanoseconds; TID is the thread that scanned, 0 for a kernel
 * worker (every thread slept). "baseline" is the start's scan: it comes
 * with no "refs", and the intervals count from it. "incomplete": some of
 * its "refs" were lost (the "lost" line before counts them in OTHER).
 * "stopped": a fatal signal cut the walk short. Where software keeps the
 * accessed bit (UML), the first reference to each page after a scan
 * faults: such faults are recorded with result reref.
 */
#endif
#ifdef PGF_STAGE_INHERIT
/*
 * Process trees:
 *
 *   child TIME TID PID [untraced]
 *
 * "inherit" after MODE: every process this one creates (fork, vfork,
 * clone without CLONE_THREAD) is traced too, in the same mode, from its
 * first instruction, with a trace of its own that starts with its whole
 * layout. "child" says that thread TID created process PID (in the pid
 * namespace of the trace), before PID ran; "untraced" if no trace could be
 * made for it (no memory). The reader claims the child's trace with
 * ioctl(fd, PGFAULT_HISTORY_IOC_CHILD, PID), which returns a new
 * read-only descriptor reading it (its own header first), whether PID
 * still runs, has exited or has been reaped; PID 0 claims the oldest
 * child not yet claimed. Errors: ENOENT (no such child, or claimed
 * already), EBUSY (another file reads it), EBADF (not open for reading).
 */
#endif
#ifdef PGF_STAGE_FILES
/*
 * File I/O:
 *
 *   file TIME ID MAJOR:MINOR INODE [PATH]
 *   cache TIME TID FILE INDEX PAGES ACCESS HOW
 *
 * "files" after MODE: the page cache pages of the process's reads and
 * writes are traced too (read, pread64, readv, preadv2, sendfile, splice,
 * copy_file_range, io_uring, tmpfs reads, buffered writes). "file" names
 * file ID once, before the first record of its pages: MAJOR:MINOR and
 * INODE as a region of the same file shows them, PATH as /proc/<pid>/fd
 * would. "cache" is a run of PAGES pages of file FILE, from page INDEX
 * (decimal, in pages of page_size), that one call of thread TID used:
 * ACCESS r or w; HOW hit (found in the page cache), miss (read in for the
 * call; for a write, not in the cache before it), readahead (read in by
 * the call's readahead, not used by it), hole (a hole of a tmpfs file,
 * read as zeroes) or direct (direct I/O, the pages the call asked for,
 * around the page cache). A lost "cache" counts in OTHER. "exit" ends with
 * "cache KEPT LOST", the cache records kept and lost, if the trace
 * recorded file I/O.
 */
#endif
#ifdef PGF_STAGE_PHYS
/*
 * Frames:
 *
 *   fault TIME TID ADDR ACCESS MODE RESULT IP PFN NODE ORDER LEVEL
 *
 * A file opened by a holder of CAP_SYS_ADMIN (in the initial user
 * namespace, as /proc/<pid>/pagemap asks for frame numbers) reads fault
 * records of result minor, major or reref with four more fields: the
 * frame the fault mapped at ADDR's page, PFN (hex, in pages of
 * page_size); NODE, the NUMA node of its memory, "-" if the frame has no
 * struct page; ORDER, the order of the folio it belongs to (0 a base
 * page, more for a large folio: an mTHP, a THP, a huge page); and LEVEL,
 * pte, pmd or pud, the page table level it is mapped at. A fault that
 * installed nothing (it found the entry changed by another thread, or
 * waited for a migration or for I/O and let the access retry, or
 * migrated the page as a NUMA hinting fault), and a fault that a driver
 * or DAX completes by inserting frames itself, has none: its line ends
 * at IP. Any other file reads every fault line without them.
 */
#endif
#ifdef PGF_STAGE_CHANGES
/*
 * Changes behind the process's back:
 *
 *   KIND TIME TID ADDR PAGES CAUSE NODE NEWNODE [PFN NEWPFN ORDER LEVEL]
 *
 * The kernel changed the frames under PAGES pages from ADDR without the
 * process faulting: KIND is "move" (the pages now live in other frames),
 * "evict" (they are no longer mapped: swapped out, or a file's page left
 * to be read again), "split" (a huge mapping became base pages, same
 * frames), "collapse" (base pages copied into a new huge page) or
 * "mapped" (a fault mapped them: CAUSE "remote", another task's: ptrace,
 * process_vm_writev(), /proc/<pid>/mem, KSM's unmerging by ksmd; or
 * "around", the process's own, beside the faulting page: fault-around, a
 * large folio's pages; written only for a trace that records frames; from
 * no frame, even where a copy-on-write replaced one). TID is
 * the thread that made the change, in any process (kswapd, kcompactd,
 * khugepaged, ksmd, a thread calling move_pages()), 0 if not seen in the
 * trace's pid namespace. CAUSE: for "move", numa (NUMA balancing),
 * syscall (move_pages(), migrate_pages(), a cpuset), mbind, compaction,
 * demotion, hotplug, memory_failure, contig, longterm_pin, damon, ksm
 * (merged into a KSM page), zero (an unused page of a split THP now maps
 * the zero page), device (a driver's migration to or from device memory);
 * for "evict", kswapd, direct (reclaim by an allocation or a memory
 * cgroup, memory.reclaim), pageout (MADV_PAGEOUT, DAMON), split (a file
 * THP's huge mapping split, its pages to fault back in: reclaim of a file
 * THP mapped by a pmd splits it so), collapse (a file range collapsed
 * into a THP), truncate, hwpoison; for "collapse", khugepaged or madvise
 * (MADV_COLLAPSE); "-" for "split". NODE and NEWNODE are the NUMA nodes
 * of the frames before and after, "-" for none (no frame, or one without
 * a struct page). The pages are mapped from consecutive frames, before
 * from the first frame and after from the new one, but for "split" of
 * the huge zero page, where every page maps the zero page NEWPFN, and
 * "collapse", whose pages had frames of their own (the faults or moves
 * before say which). A file read by a holder of CAP_SYS_ADMIN, of a trace
 * that records frames, has four more fields: PFN and NEWPFN (hex, "-"
 * for none), ORDER and LEVEL of the mapping after (before, for "evict"),
 * as a fault's. A lost change counts in OTHER.
 */
#endif
/*
 * Version 2 added "remote" and the meaning of the lost counts above
 * (version 1 counted failed faults as FAULTS); version 3 the result reref,
 * "rearm" and the MODE of "start"; version 4 window mode; version 5
 * "inherit" and "child"; version 6 "sample=MS", "refs" and "sample".
 */
#ifdef PGF_STAGE_FILES
/* Version 7 added "files", "file", "cache" and the end of "exit". */
#endif
#ifdef PGF_STAGE_PHYS
/* Version 8 added the frame of a fault. */
#endif
#ifdef PGF_STAGE_CHANGES
/* Version 9 added move, evict, split, collapse and mapped. */
#endif
#ifndef _UAPI_LINUX_PGFAULT_HISTORY_H
#define _UAPI_LINUX_PGFAULT_HISTORY_H

#ifdef PGF_STAGE_INHERIT
#include <linux/ioctl.h>
#endif

#if defined(PGF_STAGE_CHANGES)
#define PGFAULT_HISTORY_VERSION		9
#elif defined(PGF_STAGE_PHYS)
#define PGFAULT_HISTORY_VERSION		8
#elif defined(PGF_STAGE_FILES)
#define PGFAULT_HISTORY_VERSION		7
#else
#define PGFAULT_HISTORY_VERSION		6
#endif
#define PGFAULT_HISTORY_MAGIC		"pgfault_history"

#ifdef PGF_STAGE_INHERIT
/* The argument is the child's pid, or 0; returns a file descriptor. */
#define PGFAULT_HISTORY_IOC_CHILD	_IO(0xB9, 0x01)
#endif

#endif /* _UAPI_LINUX_PGFAULT_HISTORY_H */
