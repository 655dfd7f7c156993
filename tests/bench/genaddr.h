/* SPDX-License-Identifier: GPL-2.0 */
/*
 * genaddr - the addresses of gentrace's generated trace, shared with
 * mrcbench so both measure the same reference string: an xorshift64
 * generator picks one of four regions (text, heap, an anonymous mapping,
 * stack) and a random address in it, the worst case for locality.
 */
#ifndef PGF_GENADDR_H
#define PGF_GENADDR_H


#define GENADDR_SEED 88172645463325252ULL

/* The next address; *@x steps on, and its new bits are the caller's too. */
static inline unsigned long long genaddr_next(unsigned long long *x)
{
	unsigned long long base, span;

	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	switch (*x & 3) {
	case 0: base = 0x400000; span = 0x80000; break;
	case 1: base = 0x10000000; span = 0x40000000; break;
	case 2: base = 0x7f0000000000ULL; span = 0x40000000; break;
	default: base = 0x7ffff0000000ULL; span = 0x100000; break;
	}
	return base + (*x >> 8) % span;
}

#endif
