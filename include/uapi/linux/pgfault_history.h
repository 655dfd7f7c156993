/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pgfault_history.h - the text format of /proc/<pid>/pgfault_history.
 *
 * Shared by the kernel, which writes it, and the tools, which read it.
 * The stream is line oriented: a header line, then one record per line,
 * fields separated by one space, addresses in lower-case hex without "0x",
 * times in nanoseconds of CLOCK_MONOTONIC, thread ids as seen from the
 * reader's pid namespace.
 *
 *   pgfault_history VERSION pid PID page_size BYTES
 *   start TIME
 *   fault TIME TID ADDR ACCESS MODE RESULT IP
 *   lost FAULTS OTHER
 *   exec TIME TID PATH
 *   stop TIME REASON
 *   exit TIME STATUS FAULTS LOST REGIONS
 *   layout TIME COUNT
 *   map TIME ID START END PERMS OFFSET MAJOR:MINOR INODE [NAME]
 *   change TIME ID START END PERMS OFFSET MAJOR:MINOR INODE [NAME]
 *   unmap TIME ID
 *
 * ACCESS is r, w or x; MODE is user or kernel (the kernel touching user
 * memory on the process's behalf); RESULT is minor, major, or the signal
 * the fault raised (SIGSEGV, SIGBUS) or OOM. IP is the user instruction
 * pointer (for kernel-mode faults, where the system call was made), 0 when
 * unknown. REASON is "user" (0 written) or "credentials" (an exec that
 * changed credentials). "lost" counts records dropped because the buffer
 * was full, fault records and other records apart, and comes before the
 * next record that was kept.
 *
 * Regions: ID is a sequence number, stable for the region's life. "layout
 * COUNT" means: forget every region; the COUNT map records that follow
 * are the whole address space (it starts a trace, and comes again after
 * region records were lost). "map" is a new region, "change" the new
 * state of region ID, "unmap" its end; "exec" ends the old address space.
 * PERMS, OFFSET (hex), MAJOR:MINOR (hex), INODE and NAME are as in
 * /proc/<pid>/maps; NAME is absent for an anonymous unnamed region.
 * REGIONS in "exit" is how many region ids the trace handed out.
 */
#ifndef _UAPI_LINUX_PGFAULT_HISTORY_H
#define _UAPI_LINUX_PGFAULT_HISTORY_H

#define PGFAULT_HISTORY_VERSION		1
#define PGFAULT_HISTORY_MAGIC		"pgfault_history"

#endif /* _UAPI_LINUX_PGFAULT_HISTORY_H */
