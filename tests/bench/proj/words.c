// SPDX-License-Identifier: GPL-2.0
/* Split a file into words: runs of letters, digits and underscores. */
#include <ctype.h>
#include <string.h>
#include <unistd.h>
#include "wordstat.h"

#define MAXWORD 256

int words_read(int fd, int (*fn)(const char *w, size_t len, void *arg),
	       void *arg)
{
	char buf[4096], word[MAXWORD];
	size_t len = 0;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			int c = (unsigned char)buf[i];

			if (isalnum(c) || c == '_') {
				if (len < MAXWORD)
					word[len++] = c;
				continue;
			}
			if (len && fn(word, len, arg))
				return -1;
			len = 0;
		}
	}
	if (n < 0)
		return -1;
	return len ? fn(word, len, arg) : 0;
}
