/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test kernel's holds (CONFIG_PGFAULT_HISTORY_DEBUG): a thread of the
 * kernel held at a point a test names, so that the test acts while it
 * waits; see "pgfault_history_test" in mm/pgfault_history/regions.c.
 */
#ifndef TESTS_LIB_HOLD_H
#define TESTS_LIB_HOLD_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define HOLD_DIR "/sys/kernel/debug/pgfault_history_test/"

static inline int hold_write(const char *knob, long v)
{
	char path[128], buf[32];
	int fd, n, err = 0;

	snprintf(path, sizeof(path), HOLD_DIR "%s", knob);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%ld", v);
	if (write(fd, buf, n) != n)
		err = -errno;
	close(fd);
	return err;
}

/* A counter of the test kernel's: held, aliased. */
static inline long hold_counter(const char *name)
{
	char path[128], buf[32] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), HOLD_DIR "%s", name);
	fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atol(buf) : -1;
}

static inline long hold_count(void)
{
	return hold_counter("held");
}

/* Wait (10 s at most) for the hold count to pass @n. */
static inline bool hold_reached(long n)
{
	for (int i = 0; i < 10000; i++) {
		if (hold_count() > n)
			return true;
		usleep(1000);
	}
	return false;
}

/* The state letter of thread @tid of @pid; 0 once it is gone. */
static inline char thread_state(pid_t pid, pid_t tid)
{
	char path[64], buf[512], *p;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* The thread of @pid that is not @pid; 0 if none. */
static inline pid_t other_thread(pid_t pid)
{
	char path[64];
	struct dirent *de;
	pid_t tid = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (atoi(de->d_name) > 0 && atoi(de->d_name) != pid)
			tid = atoi(de->d_name);
	}
	closedir(d);
	return tid;
}

#endif /* TESTS_LIB_HOLD_H */
