// SPDX-License-Identifier: GPL-2.0
/*
 * status.c - tracepgfault's live status line (see status.h).
 */
#include "status.h"

void status_init(struct status *s, FILE *f, bool on, double now)
{
	*s = (struct status){ .f = f, .on = on, .t0 = now, .last = now,
			      .rate_t = now };
}

/* @v with thousands separators into @buf. */
static const char *grouped(char *buf, size_t size, unsigned long long v)
{
	char digits[32];
	int n = snprintf(digits, sizeof(digits), "%llu", v), o = 0;

	for (int i = 0; i < n && o + 2 < (int)size; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

void status_clear(struct status *s)
{
	if (!s->on || !s->shown)
		return;
	fputs("\r\033[K", s->f);
	fflush(s->f);
	s->shown = false;
}

void status_update(struct status *s, const struct status_counts *c,
		   double now, bool force)
{
	char rec[32], lost[32], rate[32];

	if (!s->on)
		return;
	if (c->lost > s->warned) {
		status_clear(s);
		fprintf(s->f, "tracepgfault: WARNING: %s records lost so far: the "
			"trace fills faster than it is read (a larger "
			"vm.pgfault_history_buffer_kb keeps more)\n",
			grouped(lost, sizeof(lost), c->lost));
		s->warned = c->lost;
		force = true;
	}
	if (!force && (now - s->last) * 1000 < STATUS_PERIOD_MS)
		return;
	if (now - s->rate_t >= STATUS_PERIOD_MS / 1000.0) {
		s->rate = (c->faults - s->rate_faults) / (now - s->rate_t);
		s->rate_t = now;
		s->rate_faults = c->faults;
	}
	fprintf(s->f, "\r\033[Ktracepgfault: %.1f s, %s faults/s, %s records, %s lost",
		now - s->t0, grouped(rate, sizeof(rate), (unsigned long long)(s->rate + 0.5)),
		grouped(rec, sizeof(rec), c->records),
		grouped(lost, sizeof(lost), c->lost));
	if (c->processes >= 0)
		fprintf(s->f, ", %lld process%s", c->processes,
			c->processes == 1 ? "" : "es");
	fflush(s->f);
	s->shown = true;
	s->last = now;
}
