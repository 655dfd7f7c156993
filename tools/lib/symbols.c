// SPDX-License-Identifier: GPL-2.0
/*
 * symbols - the ELF symbol at an offset of a file, with libelf
 * (symbols.h).
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "symbols.h"

struct seg {
	uint64_t off, vaddr, size;	/* a PT_LOAD's file part */
};

struct sym {
	uint64_t addr, size;
	char *name;
};

struct file {
	char *path;
	bool bad;			/* not readable as ELF */
	int full;			/* .symtab 1, .dynsym 0, none -1 */
	struct seg *seg;
	size_t nseg;
	struct sym *sym;		/* by address, then size down, name down */
	uint64_t *maxend;		/* the largest end of sym[0 .. i] */
	size_t nsym;
};

struct syms {
	struct file *f;
	size_t nr, cap;
};

struct syms *syms_new(void)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	return calloc(1, sizeof(struct syms));
}

/* @off rounded up to the page (4 KiB: the tools' traces' pages). */
static uint64_t page_end(uint64_t off)
{
	return (off + 4095) & ~4095ULL;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	/* aliases (malloc, __libc_malloc): the first name is found first */
	return strcmp(y->name, x->name);
}

/* Add the FUNC and OBJECT symbols of section @scn; 0 or -1 (memory). */
static int add_syms(struct file *f, Elf *e, Elf_Scn *scn, GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; d && i < n; i++) {
		GElf_Sym s;
		const char *name;
		struct sym *v;
		int t;

		if (!gelf_getsym(d, i, &s))
			break;
		t = GELF_ST_TYPE(s.st_info);
		/* sized functions and objects: what covers an address */
		if ((t != STT_FUNC && t != STT_OBJECT) || s.st_shndx == SHN_UNDEF ||
		    !s.st_size)
			continue;
		name = elf_strptr(e, sh->sh_link, s.st_name);
		if (!name || !*name)
			continue;
		if (f->nsym % 1024 == 0) {
			v = realloc(f->sym, (f->nsym + 1024) * sizeof(*v));
			if (!v)
				return -1;
			f->sym = v;
		}
		f->sym[f->nsym].addr = s.st_value;
		f->sym[f->nsym].size = s.st_size;
		/* "fopen@@GLIBC_2.2.5" in a .symtab: the name, not its version */
		f->sym[f->nsym].name = strndup(name, strcspn(name, "@"));
		if (!f->sym[f->nsym].name)
			return -1;
		f->nsym++;
	}
	return 0;
}

/*
 * The symbols of @e's section of type @type (SHT_SYMTAB, SHT_DYNSYM):
 * 1 if it has one, 0 if not, -1 out of memory.
 */
static int read_syms(struct file *f, Elf *e, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	int found = 0;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type)
			continue;
		found = 1;
		if (add_syms(f, e, scn, &sh))
			return -1;
	}
	return found;
}

/* The debug file of @e's build id, as a path in @buf; 0 or -1. */
static int debug_path(Elf *e, char *buf, size_t n)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			const unsigned char *id = (const unsigned char *)d->d_buf + doff;
			size_t k;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)d->d_buf + noff, "GNU", 4) ||
			    nh.n_descsz < 2 || nh.n_descsz > 64)
				continue;
			k = snprintf(buf, n, "/usr/lib/debug/.build-id/%02x/", id[0]);
			for (size_t i = 1; i < nh.n_descsz && k + 3 < n; i++)
				k += snprintf(buf + k, n - k, "%02x", id[i]);
			snprintf(buf + k, n - k, ".debug");
			return 0;
		}
	}
	return -1;
}

/*
 * A regular file named by a trace, opened to read; -1 for anything else:
 * a trace names paths of another machine, and a device or a FIFO there
 * must not be opened (nor block the open) here.
 */
static int open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;

	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int load(struct file *f)
{
	char dbg[256];
	size_t nph;
	int fd, ret = 0;
	Elf *e;

	fd = open_regular(f->path);
	if (fd < 0)
		return -1;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &nph)) {
		ret = -1;
		goto out;
	}
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		struct seg *v;

		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		v = realloc(f->seg, (f->nseg + 1) * sizeof(*v));
		if (!v) {
			ret = -1;
			goto out;
		}
		f->seg = v;
		/*
		 * The file's part, and the rest of its last page: the start of
		 * .bss lies there, mapped from the file (zeroed), so a fault
		 * there has a file offset past p_filesz
		 */
		f->seg[f->nseg++] = (struct seg){
			ph.p_offset, ph.p_vaddr,
			ph.p_memsz < page_end(ph.p_offset + ph.p_filesz) - ph.p_offset ?
			ph.p_memsz : page_end(ph.p_offset + ph.p_filesz) - ph.p_offset };
	}
	f->full = read_syms(f, e, SHT_SYMTAB);
	if (f->full == 0 && !debug_path(e, dbg, sizeof(dbg))) {
		int dfd = open_regular(dbg);
		Elf *de = dfd >= 0 ? elf_begin(dfd, ELF_C_READ, NULL) : NULL;

		if (de && elf_kind(de) == ELF_K_ELF)
			f->full = read_syms(f, de, SHT_SYMTAB);
		if (de)
			elf_end(de);
		if (dfd >= 0)
			close(dfd);
	}
	if (f->full == 0)
		f->full = read_syms(f, e, SHT_DYNSYM) > 0 ? 0 : -1;
	if (f->full == -1 && f->nsym)
		ret = -1;	/* out of memory on the way */
	qsort(f->sym, f->nsym, sizeof(*f->sym), cmp_sym);
	f->maxend = malloc((f->nsym ? f->nsym : 1) * sizeof(*f->maxend));
	if (!f->maxend)
		ret = -1;
	for (size_t i = 0; f->maxend && i < f->nsym; i++) {
		uint64_t end = f->sym[i].addr + f->sym[i].size;

		f->maxend[i] = i && f->maxend[i - 1] > end ? f->maxend[i - 1] : end;
	}
out:
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

static struct file *file_of(struct syms *s, const char *path)
{
	struct file *f;

	for (size_t i = 0; i < s->nr; i++)
		if (!strcmp(s->f[i].path, path))
			return &s->f[i];
	if (s->nr == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;

		f = realloc(s->f, cap * sizeof(*f));
		if (!f)
			return NULL;
		s->f = f;
		s->cap = cap;
	}
	f = &s->f[s->nr];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path)
		return NULL;
	s->nr++;
	f->full = -1;
	f->bad = load(f) != 0;
	return f;
}

int syms_at(struct syms *s, const char *path, uint64_t off, struct sym_hit *h)
{
	struct file *f = file_of(s, path);
	uint64_t va = 0;
	size_t lo = 0, hi;
	bool in = false;

	if (!f || f->bad)
		return -1;
	for (size_t i = 0; i < f->nseg && !in; i++)
		if (off >= f->seg[i].off && off - f->seg[i].off < f->seg[i].size) {
			va = f->seg[i].vaddr + (off - f->seg[i].off);
			in = true;
		}
	if (!in)
		return 0;
	h->vaddr = va;
	/* the last symbol at or below va */
	hi = f->nsym;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->sym[mid].addr <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	/*
	 * The innermost symbol covering va: the highest start, then the
	 * smallest size, then the first name; back only while some symbol
	 * so far ends above va.
	 */
	for (size_t i = lo; i-- > 0 && f->maxend[i] > va;) {
		const struct sym *y = &f->sym[i];

		if (va - y->addr < y->size) {
			h->name = y->name;
			h->delta = va - y->addr;
			return 1;
		}
	}
	return 0;
}

int syms_full(struct syms *s, const char *path)
{
	struct file *f = file_of(s, path);

	return !f || f->bad ? -1 : f->full;
}

void syms_free(struct syms *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr; i++) {
		for (size_t k = 0; k < s->f[i].nsym; k++)
			free(s->f[i].sym[k].name);
		free(s->f[i].sym);
		free(s->f[i].maxend);
		free(s->f[i].seg);
		free(s->f[i].path);
	}
	free(s->f);
	free(s);
}
