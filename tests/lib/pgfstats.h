/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pgfstats.h - what the kernel says it holds for pgfault_history
 * (/sys/kernel/debug/pgfault_history), and waiting for a child as a
 * zombie, so that its /proc/<pid>/stat can be read after its last fault.
 */
#ifndef PGF_TEST_PGFSTATS_H
#define PGF_TEST_PGFSTATS_H

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "util.h"

/* One value of /sys/kernel/debug/pgfault_history; -1 if absent. */
static inline long pgf_debug_value(const char *key)
{
	char line[128], name[64];
	long v, ret = -1;
	FILE *f = fopen("/sys/kernel/debug/pgfault_history", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld", name, &v) == 2 && !strcmp(name, key))
			ret = v;
	if (f)
		fclose(f);
	return ret;
}

/*
 * Wait until @key reads @want (traces are freed from a work item after
 * an RCU grace period; the key's last disable is deferred by a second).
 */
static inline long pgf_debug_wait(const char *key, long want)
{
	long v = pgf_debug_value(key);

	for (int i = 0; i < 300 && v != want; i++) {
		usleep(20 * 1000);
		v = pgf_debug_value(key);
	}
	return v;
}

/*
 * Wait for @pid to exit without reaping it, and read its fault counters
 * (minflt + majflt of all its threads): nothing can change them now.
 * Returns the wait status in *status; -1 on error.
 */
static inline long pgf_zombie_faults(pid_t pid, int *status)
{
	struct pgf_stat st;
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, pid, &si, WEXITED | WNOWAIT))
		return -1;
	if (pgf_read_stat(pid, &st))
		return -1;
	if (waitpid(pid, status, 0) != pid)
		return -1;
	return st.minflt + st.majflt;
}

#endif
