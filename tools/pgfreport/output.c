// SPDX-License-Identifier: GPL-2.0
/*
 * output - a command's -o FILE written whole or not at all (output.h).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "output.h"

FILE *staged_open(struct staged *s, const char *path)
{
	char *real = realpath(path, NULL);
	struct stat st;
	mode_t mask;
	FILE *f;
	int fd;

	s->tmp[0] = 0;
	s->to = NULL;
	if (real && (stat(real, &st) || !S_ISREG(st.st_mode))) {
		free(real);
		return fopen(path, "wb");
	}
	s->to = real ? real : strdup(path);
	if (!s->to || strlen(s->to) > PATH_MAX)
		return NULL;
	snprintf(s->tmp, sizeof(s->tmp), "%s.XXXXXX", s->to);
	fd = mkstemp(s->tmp);
	if (fd < 0) {
		s->tmp[0] = 0;
		return NULL;
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) || !(f = fdopen(fd, "wb"))) {
		close(fd);
		unlink(s->tmp);
		s->tmp[0] = 0;
		return NULL;
	}
	return f;
}

int staged_end(struct staged *s, int status)
{
	int ret = 0;

	if (s->tmp[0])
		ret = status ? unlink(s->tmp) : rename(s->tmp, s->to);
	s->tmp[0] = 0;
	free(s->to);
	s->to = NULL;
	return status ? 0 : ret;
}
