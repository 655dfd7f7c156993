// SPDX-License-Identifier: GPL-2.0
/*
 * ptree - the processes of a tree file. See ptree.h.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "ptree.h"

static inline size_t pid_hash(int pid, size_t nslots)
{
	return ((uint32_t)pid * 0x9e3779b9U) >> 7 & (nslots - 1);
}

/* Where @pid's index is, or the empty slot it would take. */
static uint32_t *pid_slot(const struct ptree *t, int pid)
{
	size_t i;

	for (i = pid_hash(pid, t->nslots); t->slot[i];
	     i = (i + 1) & (t->nslots - 1))
		if (t->v[t->slot[i] - 1].pid == pid)
			break;
	return &t->slot[i];
}

/* Room for one more pid in the table; false if out of memory. */
static bool pid_room(struct ptree *t)
{
	size_t n = t->nslots ? 2 * t->nslots : 64;
	uint32_t *old = t->slot;

	if (2 * (t->nr + 1) <= t->nslots)
		return true;
	t->slot = calloc(n, sizeof(*t->slot));
	if (!t->slot) {
		t->slot = old;
		return false;
	}
	t->nslots = n;
	for (size_t i = 0; i < t->nr; i++)
		*pid_slot(t, t->v[i].pid) = i + 1;
	free(old);
	return true;
}

const struct ptree_proc *ptree_find(const struct ptree *t, int pid)
{
	uint32_t *slot;

	if (!t->nslots)
		return NULL;
	slot = pid_slot(t, pid);
	return *slot ? &t->v[*slot - 1] : NULL;
}

struct ptree_proc *ptree_get(struct ptree *t, int pid)
{
	struct ptree_proc *p;
	uint32_t *slot;

	if (t->last < t->nr && t->v[t->last].pid == pid)
		return &t->v[t->last];
	if (t->nslots) {
		slot = pid_slot(t, pid);
		if (*slot) {
			t->last = *slot - 1;
			return &t->v[t->last];
		}
	}
	if (t->nr == UINT32_MAX - 1 || !pid_room(t))
		return NULL;
	if (t->nr == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;

		p = realloc(t->v, cap * sizeof(*p));
		if (!p)
			return NULL;
		t->v = p;
		t->cap = cap;
	}
	p = &t->v[t->nr];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->index = t->nr++;
	*pid_slot(t, pid) = t->nr;
	t->last = p->index;
	return p;
}

/* Count (space, page) once; false if out of memory. */
static bool seen_add(struct ptree_proc *p, uint64_t key)
{
	size_t i;

	key++;			/* 0 marks an empty slot */
	if (2 * (p->nseen + 1) > p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		uint64_t *v = calloc(cap, sizeof(*v));

		if (!v)
			return false;
		for (size_t k = 0; k < p->cap; k++) {
			if (!p->seen[k])
				continue;
			for (i = (p->seen[k] * 0x9e3779b97f4a7c15ULL) >> 20 & (cap - 1);
			     v[i]; i = (i + 1) & (cap - 1))
				;
			v[i] = p->seen[k];
		}
		free(p->seen);
		p->seen = v;
		p->cap = cap;
	}
	for (i = (key * 0x9e3779b97f4a7c15ULL) >> 20 & (p->cap - 1); p->seen[i];
	     i = (i + 1) & (p->cap - 1))
		if (p->seen[i] == key)
			return true;
	p->seen[i] = key;
	p->nseen++;
	p->pages++;
	return true;
}

struct ptree_proc *ptree_count(struct ptree *t, const struct pgft_rec *r,
			       unsigned long page_size)
{
	struct ptree_proc *p = ptree_get(t, r->pid), *c;
	int pid = r->pid;

	if (!p)
		return NULL;
	pgft_tally(&p->tally, r);
	if (r->type != PGFT_LOST) {
		if (!p->start)
			p->start = r->time;
		p->end = r->time;
	}
	switch (r->type) {
	case PGFT_FAULT:
	case PGFT_REMOTE:
		if (!pgft_counted(r->result))
			break;
		p->faults++;
		p->major += r->result == PGFT_MAJOR;
		p->reref += r->result == PGFT_REREF;
		if (r->type == PGFT_FAULT &&
		    !seen_add(p, (uint64_t)p->space << 52 ^ r->addr / page_size))
			return NULL;
		break;
	case PGFT_LOST:
		p->lost += r->n[0];
		break;
	case PGFT_EXEC:
		free(p->cmd);
		p->cmd = strdup(r->text);
		break;
	case PGFT_EXIT:
		p->exited = true;
		p->status = r->n[0];
		break;
	case PGFT_STOP:
		p->stopped = true;
		break;
	case PGFT_CHILD:
		p->children++;
		if (r->n[1]) {
			p->untraced++;
			break;
		}
		c = ptree_get(t, r->n[0]);	/* may move p */
		if (!c)
			return NULL;
		c->parent = pid;
		c->created = r->time;
		p = ptree_get(t, pid);
		break;
	default:
		break;
	}
	return p;
}

int ptree_apply(struct ptree_proc *p, const struct pgft_rec *r)
{
	if (r->type == PGFT_EXEC)
		p->space++;
	return pgft_apply(&p->as, r);
}

struct ptree_proc *ptree_rec(struct ptree *t, const struct pgft_rec *r,
			     unsigned long page_size)
{
	struct ptree_proc *p = ptree_count(t, r, page_size);

	return p && !ptree_apply(p, r) ? p : NULL;
}

void ptree_status(const struct ptree_proc *p, char *buf, size_t size,
		  const char *going)
{
	int ws = (int)p->status;

	if (!p->exited)
		snprintf(buf, size, "%s", p->stopped ? "stopped" : going);
	else if (WIFSIGNALED(ws))
		snprintf(buf, size, "signal %d", WTERMSIG(ws));
	else
		snprintf(buf, size, "exit %d", WEXITSTATUS(ws));
}

static void print_one(const struct ptree *t, const struct ptree_proc *p,
		      int depth, FILE *out, unsigned long long t0)
{
	char status[32], pid[48];
	const char *cmd = p->cmd;

	ptree_status(p, status, sizeof(status), "-");
	/* A process that never exec'd runs its creator's program. */
	for (const struct ptree_proc *a = p; !cmd && a && a->parent;) {
		a = ptree_find(t, a->parent);
		cmd = a ? a->cmd : NULL;
	}
	snprintf(pid, sizeof(pid), "%*s%d", 2 * depth, "", p->pid);
	fprintf(out, "%-14s %7d %10.3f %10.3f %9llu %8llu %6llu %8llu %-10s %s\n",
		pid, p->parent,
		(p->parent ? p->created : p->start) > t0 ?
		((p->parent ? p->created : p->start) - t0) / 1e6 : 0.0,
		p->end > t0 ? (p->end - t0) / 1e6 : 0.0,
		p->faults, p->pages, p->lost, p->children, status,
		cmd ? cmd : "(not shown: no exec traced)");
	for (size_t i = 0; i < t->nr; i++)
		if (t->v[i].parent == p->pid && &t->v[i] != p)
			print_one(t, &t->v[i], depth + 1, out, t0);
}

void ptree_print(const struct ptree *t, FILE *out, unsigned long long t0)
{
	unsigned long long faults = 0, pages = 0, lost = 0, untraced = 0;
	size_t traced = 0;

	fprintf(out, "%-14s %7s %10s %10s %9s %8s %6s %8s %-10s %s\n", "PID",
		"PARENT", "START_MS", "END_MS", "FAULTS", "PAGES", "LOST",
		"CHILDREN", "STATUS", "COMMAND");
	for (size_t i = 0; i < t->nr; i++) {
		const struct ptree_proc *p = &t->v[i];
		bool orphan = true;

		if (p->parent)
			orphan = !ptree_find(t, p->parent);
		if (!p->parent || orphan)
			print_one(t, p, 0, out, t0);
		faults += p->faults;
		pages += p->pages;
		lost += p->lost;
		untraced += p->untraced;
		traced += p->start != 0;
	}
	fprintf(out, "# %zu processes traced, %llu faults, %llu pages (per process, summed), %llu lost\n",
		traced, faults, pages, lost);
	if (untraced)
		fprintf(out, "# %llu children were NOT traced (the kernel was out of memory)\n",
			untraced);
}

void ptree_free(struct ptree *t)
{
	for (size_t i = 0; i < t->nr; i++) {
		free(t->v[i].cmd);
		free(t->v[i].seen);
		pgft_space_free(&t->v[i].as);
	}
	free(t->v);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}
