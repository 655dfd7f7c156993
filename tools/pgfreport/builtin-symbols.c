// SPDX-License-Identifier: GPL-2.0
/*
 * pgfreport symbols - the faults per function (the symbol containing the
 * fault's instruction pointer) or per symbol touched (containing the
 * faulting address), found through the regions' files and libelf
 * (tools/lib/symbols.h), as perf report --sort dso,sym.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "pass.h"
#include "report.h"
#include "../lib/symbols.h"

static const char usage[] =
"Usage: pgfreport symbols [OPTION...] [TRACE]\n"
"\n"
"The faults per function: each fault counts for the symbol containing its\n"
"instruction pointer (the code that faulted), found through the region\n"
"that held the address then: its file, the offset in the file, and the\n"
"file's ELF symbols (.symtab; else the debug file of its build id under\n"
"/usr/lib/debug/.build-id; else .dynsym, what a stripped library\n"
"exports). Shared libraries and PIE executables are found as they were\n"
"mapped. A row per symbol, most faults first: faults, share, major,\n"
"rerefs, the file (dso) and the symbol. A fault the kernel took on the\n"
"process's behalf (mode kernel: a read() into a fresh buffer) counts for\n"
"the code of its system call. [unknown] is an address no region held; a\n"
"region without a file goes by its name ([heap], [stack], [anon]); where\n"
"the file has no symbol (stripped) or cannot be read on this machine,\n"
"the symbol is the offset in the file (0x1234). Symbols are the sized\n"
"functions and objects; of several covering an address, the innermost.\n"
"With --format, the columns are faults, share, major, rerefs, dso (its\n"
"whole path) and symbol.\n"
"The files are read where pgfreport runs: the same paths must hold the\n"
"same files as where the trace was taken.\n"
"\n"
"Options:\n"
"  --by ip|addr  what a fault is counted for: the symbol containing its\n"
"                instruction pointer (ip, the default) or the one\n"
"                containing its address (addr: the function or object it\n"
"                touched; in a file without symbols, its page's offset)\n"
"  -n, --top N   the N symbols with the most faults (default 30; 0: all)\n";

struct row {
	char *dso, *sym;
	unsigned long long faults, major, reref;
};

/* The report's state (report.h) */
struct sym_state {
	struct syms *syms;
	bool by_addr;			/* --by addr */
	long top;			/* --top */
	struct row *rows;
	size_t nrows, caprows;
	unsigned long long total;
	/* open addressing over rows, by (dso, sym) */
	size_t *slot;
	size_t nslot;
};

static void sym_init(void *st)
{
	((struct sym_state *)st)->top = 30;
}

static size_t hash(const char *a, const char *b)
{
	size_t h = 14695981039346656037ULL;

	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 1099511628211ULL;
	h = (h ^ 0xff) * 1099511628211ULL;
	for (; *b; b++)
		h = (h ^ (unsigned char)*b) * 1099511628211ULL;
	return h;
}

/* The row of (@dso, @sym), made if new; NULL out of memory. */
static struct row *row_of(struct sym_state *S, const char *dso, const char *sym)
{
	size_t i;

	if (2 * (S->nrows + 1) > S->nslot) {
		size_t n = S->nslot ? 2 * S->nslot : 1024;
		size_t *s = malloc(n * sizeof(*s));

		if (!s)
			return NULL;
		memset(s, 0xff, n * sizeof(*s));
		for (size_t r = 0; r < S->nrows; r++) {
			for (i = hash(S->rows[r].dso, S->rows[r].sym) & (n - 1);
			     s[i] != (size_t)-1; i = (i + 1) & (n - 1))
				;
			s[i] = r;
		}
		free(S->slot);
		S->slot = s;
		S->nslot = n;
	}
	for (i = hash(dso, sym) & (S->nslot - 1); S->slot[i] != (size_t)-1;
	     i = (i + 1) & (S->nslot - 1))
		if (!strcmp(S->rows[S->slot[i]].dso, dso) && !strcmp(S->rows[S->slot[i]].sym, sym))
			return &S->rows[S->slot[i]];
	if (S->nrows == S->caprows) {
		size_t cap = S->caprows ? 2 * S->caprows : 256;
		struct row *v = realloc(S->rows, cap * sizeof(*v));

		if (!v)
			return NULL;
		S->rows = v;
		S->caprows = cap;
	}
	S->rows[S->nrows] = (struct row){ strdup(dso), strdup(sym), 0, 0, 0 };
	if (!S->rows[S->nrows].dso || !S->rows[S->nrows].sym) {
		free(S->rows[S->nrows].dso);
		free(S->rows[S->nrows].sym);
		return NULL;
	}
	S->slot[i] = S->nrows;
	return &S->rows[S->nrows++];
}

/* Whether region @g maps a file: a path, not [heap] or the like. */
static bool has_file(const struct pgft_region *g)
{
	return g && g->name[0] == '/';
}

static int sym_fault(struct pass *ps, void *st, const struct pgft_rec *r,
		     const struct pgft_region *g, long sp, unsigned long long addr)
{
	struct sym_state *S = st;
	unsigned long long a = S->by_addr ? r->addr : r->ip;
	char sym[64];
	const char *dso, *name;
	struct sym_hit h;
	struct row *w;

	(void)sp;
	(void)addr;
	if (!pgft_counted(r->result))
		return 0;
	if (!S->by_addr)
		g = pass_region(ps, a);
	if (!g) {
		dso = "[unknown]";
		name = "[unknown]";
	} else if (!has_file(g)) {
		dso = *g->name ? g->name : "[anon]";
		name = dso;
	} else {
		unsigned long long off = g->offset + (a - g->start);

		dso = g->name;
		if (syms_at(S->syms, g->name, off, &h) > 0) {
			name = h.name;
		} else {
			/* no symbol: the offset, of the page for an address */
			snprintf(sym, sizeof(sym), "0x%llx", S->by_addr ?
				 off & ~(ps->trace.page_size - 1ULL) : off);
			name = sym;
		}
	}
	w = row_of(S, dso, name);
	if (!w)
		return pass_oom(ps);
	w->faults++;
	w->major += r->result == PGFT_MAJOR;
	w->reref += r->result == PGFT_REREF;
	S->total++;
	return 0;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c;

	if (x->faults != y->faults)
		return x->faults > y->faults ? -1 : 1;
	c = strcmp(x->dso, y->dso);
	return c ? c : strcmp(x->sym, y->sym);
}

static void report(const struct pass *ps, struct sym_state *S)
{
	static const char *const cols[] = {
		"faults", "share", "major", "rerefs", "dso", "symbol",
	};
	size_t n = S->top && (size_t)S->top < S->nrows ? (size_t)S->top : S->nrows;
	struct table t;

	qsort(S->rows, S->nrows, sizeof(*S->rows), cmp_rows);
	if (ps->format != TABLE_TEXT) {
		/* the dso's whole path: a program can shorten it */
		table_begin(&t, stdout, ps->format, cols, 6);
		for (size_t i = 0; i < n; i++) {
			table_u64(&t, S->rows[i].faults);
			table_num(&t, S->total ? (double)S->rows[i].faults / S->total : 0.0);
			table_u64(&t, S->rows[i].major);
			table_u64(&t, S->rows[i].reref);
			table_str(&t, S->rows[i].dso);
			table_str(&t, S->rows[i].sym);
		}
		table_end(&t);
		return;
	}
	printf("# %llu counted faults, by the symbol containing their %s; %zu "
	       "symbols%s\n", S->total, S->by_addr ? "address" : "instruction pointer",
	       S->nrows, n < S->nrows ? ", the first shown" : "");
	printf("# %10s %7s %9s %9s  %-24s %s\n", "faults", "share", "major",
	       "rerefs", "dso", "symbol");
	for (size_t i = 0; i < n; i++) {
		const struct row *w = &S->rows[i];
		const char *base = strrchr(w->dso, '/');

		printf("%12llu %7.4f %9llu %9llu  %-24s %s\n", w->faults,
		       S->total ? (double)w->faults / S->total : 0.0, w->major, w->reref,
		       base ? base + 1 : w->dso, w->sym);
	}
}

static const struct option sym_opts[] = {
	{ "by", required_argument, NULL, 'b' },
	{ "top", required_argument, NULL, 'n' },
	{ NULL, 0, NULL, 0 },
};

static int sym_option(struct pass *ps, void *st, int opt, const char *arg)
{
	struct sym_state *S = st;

	if (opt == 'b') {
		if (strcmp(arg, "ip") && strcmp(arg, "addr"))
			return pass_bad_arg(ps, "--by", arg, "'ip' or 'addr'");
		S->by_addr = !strcmp(arg, "addr");
	}
	if (opt == 'n')
		return pass_number(ps, "--top", arg, true, &S->top);
	return 0;
}

static int sym_begin(struct pass *ps, void *st)
{
	struct sym_state *S = st;

	S->syms = syms_new();
	if (!S->syms)
		return pass_error(ps, "libelf: %s", "cannot start (out of memory?)");
	return 0;
}

static int sym_end(struct pass *ps, void *st, int status)
{
	struct sym_state *S = st;

	if (!ps->pid || ps->replay.pid_seen)
		report(ps, S);
	for (size_t i = 0; i < S->nrows; i++) {
		free(S->rows[i].dso);
		free(S->rows[i].sym);
	}
	free(S->rows);
	free(S->slot);
	syms_free(S->syms);
	return status;
}

const struct report symbols_report = {
	.name = "symbols", .usage = usage,
	.size = sizeof(struct sym_state), .init = sym_init,
	.takes = TAKES_PID | TAKES_FILTERS | TAKES_FORMAT,
	.longopts = sym_opts, .shorts = "n:", .option = sym_option,
	.begin = sym_begin, .fault = sym_fault, .end = sym_end,
};

int cmd_symbols(int argc, char **argv)
{
	return report_main(&symbols_report, argc, argv);
}
