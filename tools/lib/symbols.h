/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symbols - the ELF symbol at an offset of a file, as a trace names code
 * and data: a region's file and the offset in it (region offset + address
 * - start). Read with elfutils' libelf: the file's program headers turn
 * the file offset into the address the file was linked at (PIE and
 * shared libraries too), its .symtab (else .dynsym, what a stripped
 * library still has; else the debug file of its build id under
 * /usr/lib/debug/.build-id, as Debian's -dbgsym packages install it)
 * names the function or object there.
 *
 *	struct syms *s = syms_new();
 *	struct sym_hit h;
 *
 *	if (syms_at(s, "/usr/lib/x86_64-linux-gnu/libc.so.6", off, &h) > 0)
 *		printf("%s+0x%llx\n", h.name, h.delta);
 *	syms_free(s);
 *
 * Files are read once and kept (their symbols sorted by address); one that
 * cannot be read, or is not ELF, is remembered as such.
 */
#ifndef PGFT_SYMBOLS_H
#define PGFT_SYMBOLS_H

#include <stdint.h>

struct syms;

struct sym_hit {
	const char *name;	/* valid until syms_free() */
	uint64_t delta;		/* the offset into the symbol */
	uint64_t vaddr;		/* the link-time address of the offset */
};

/* NULL when out of memory (or libelf is too old). */
struct syms *syms_new(void);

/*
 * The symbol of file @path at file offset @off: 1 with @h filled; 0 when
 * the file has no symbol there (stripped, padding, an offset outside its
 * loaded segments); -1 when the file cannot be read as ELF.
 */
int syms_at(struct syms *s, const char *path, uint64_t off, struct sym_hit *h);

/* Whether @path's symbols came from .symtab (1), .dynsym (0); -1: none. */
int syms_full(struct syms *s, const char *path);

void syms_free(struct syms *s);

#endif
