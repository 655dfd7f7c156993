// SPDX-License-Identifier: GPL-2.0
/*
 * progress.c - pgfreport's progress line (see progress.h).
 */
#include "progress.h"

void progress_init(struct progress *p, FILE *f, bool on, const char *who,
		   unsigned long long size, double now)
{
	*p = (struct progress){ .f = f, .on = on, .who = who, .size = size,
				.t0 = now, .last = now };
}

void progress_clear(struct progress *p)
{
	if (!p->on || !p->shown)
		return;
	fputs("\r\033[K", p->f);
	fflush(p->f);
	p->shown = false;
}

/* @b bytes as "812 MB", "3.2 GB". */
static const char *human(char *buf, size_t n, unsigned long long b)
{
	if (b >= 10000000000ULL)
		snprintf(buf, n, "%.0f GB", b / 1e9);
	else if (b >= 1000000000ULL)
		snprintf(buf, n, "%.1f GB", b / 1e9);
	else
		snprintf(buf, n, "%.0f MB", b / 1e6);
	return buf;
}

void progress_update(struct progress *p, unsigned long long bytes,
		     unsigned long long records, double now)
{
	double el = now - p->t0;
	char got[24], all[24];

	if (!p->on || el * 1000 < PROGRESS_AFTER_MS ||
	    (p->shown && (now - p->last) * 1000 < PROGRESS_PERIOD_MS))
		return;
	fprintf(p->f, "\r\033[K%s: ", p->who);
	if (bytes != ~0ULL && p->size && bytes <= p->size) {
		fprintf(p->f, "%s of %s (%.0f%%), ", human(got, sizeof(got), bytes),
			human(all, sizeof(all), p->size), 100.0 * bytes / p->size);
	} else if (bytes != ~0ULL) {
		fprintf(p->f, "%s, ", human(got, sizeof(got), bytes));
	}
	fprintf(p->f, "%.1f M records, %.1f M records/s", records / 1e6,
		records / 1e6 / el);
	/* time left, at the rate so far, where the end is known */
	if (bytes != ~0ULL && p->size && bytes && bytes <= p->size)
		fprintf(p->f, ", %.0f s left", el * (p->size - bytes) / bytes);
	fflush(p->f);
	p->shown = true;
	p->last = now;
}
