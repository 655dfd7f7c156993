/* SPDX-License-Identifier: GPL-2.0 */
/*
 * output - a command's -o FILE written whole or not at all: beside FILE
 * (or beside what a symbolic link names) under a temporary name, renamed
 * over it when whole, removed if not, so that nothing else is touched. A
 * FILE that is no regular file (a device, a pipe) is written to as it is.
 *
 *	struct staged st = { 0 };
 *	FILE *f = staged_open(&st, path);
 *	... status = 0 if all went well ...
 *	fclose(f);
 *	if (staged_end(&st, status)) ... the rename failed (errno) ...
 */
#ifndef PGFREPORT_OUTPUT_H
#define PGFREPORT_OUTPUT_H

#include <limits.h>
#include <stdio.h>

struct staged {
	char tmp[PATH_MAX + 16];	/* the temporary name; "" if none */
	char *to;			/* the name it becomes */
};

/* FILE, or its stand-in, open for writing; NULL with errno set. */
FILE *staged_open(struct staged *s, const char *path);
/*
 * After the file is closed: renamed over FILE if @status is 0, else
 * removed. 0, or -1 with errno set if the rename failed.
 */
int staged_end(struct staged *s, int status);

#endif
