// SPDX-License-Identifier: GPL-2.0
/*
 * test_lcs - tools/lib/lcs.c: libCacheSim's oracleGeneral records, byte
 * by byte; the next accesses of a hand-worked string; and, on random
 * strings longer than one read of the temporary files, every next access
 * against a forward oracle.
 */
#include <stdint.h>
#include "ktap.h"
#include "lib/lcs.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t le(const unsigned char *p, int bytes)
{
	uint64_t v = 0;

	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

TEST(a_record_is_24_packed_little_endian_bytes)
{
	static const unsigned char want[LCS_RECORD] = {
		0x04, 0x03, 0x02, 0x01,				/* time */
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,	/* obj_id */
		0x00, 0x10, 0x00, 0x00,				/* 4096 */
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,	/* -1 */
	};
	unsigned char rec[LCS_RECORD];

	lcs_pack(rec, 0x01020304, 0x0102030405060708ULL, 4096, -1);
	EXPECT_EQ(memcmp(rec, want, LCS_RECORD), 0);
	lcs_pack(rec, 0, 1, 1, 7);
	EXPECT_EQ(le(rec + 16, 8), 7);
}

/* Write @n references of @pages; the records back in @out (malloc'd). */
static unsigned char *export(const uint64_t *pages, size_t n, char **csv)
{
	struct lcs *e = lcs_new();
	FILE *bin = tmpfile(), *c = tmpfile();
	unsigned char *out = malloc(n * LCS_RECORD + 1);
	long len;

	if (!e || !bin || !c || !out)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (lcs_ref(e, pages[i], i / 3))
			return NULL;
	if (lcs_count(e) != n || lcs_write(e, bin, c, 4096))
		return NULL;
	lcs_free(e);
	rewind(bin);
	if (fread(out, LCS_RECORD, n, bin) != n || fgetc(bin) != EOF)
		return NULL;
	fclose(bin);
	if (csv) {
		len = ftell(c);
		*csv = malloc(len + 1);
		rewind(c);
		if (!*csv || fread(*csv, 1, len, c) != (size_t)len)
			return NULL;
		(*csv)[len] = '\0';
	}
	fclose(c);
	return out;
}

/*
 * a b a c b a: the next reference to the same page, counted from 1 as
 * libCacheSim's traceConv does: a(1) -> 3, b(2) -> 5, a(3) -> 6, the
 * rest never (-1).
 */
TEST(next_accesses_of_a_hand_worked_string)
{
	static const uint64_t pages[] = { 10, 11, 10, 12, 11, 10 };
	static const int64_t want[] = { 3, 5, 6, -1, -1, -1 };
	char *csv = NULL;
	unsigned char *r = export(pages, N(pages), &csv);

	ASSERT_TRUE(r != NULL);
	for (size_t i = 0; i < N(pages); i++) {
		EXPECT_EQ(le(r + i * LCS_RECORD, 4), i / 3);
		EXPECT_EQ(le(r + i * LCS_RECORD + 4, 8), pages[i]);
		EXPECT_EQ(le(r + i * LCS_RECORD + 12, 4), 4096);
		EXPECT_EQ((int64_t)le(r + i * LCS_RECORD + 16, 8), want[i]);
	}
	EXPECT_EQ(strcmp(csv, "time,obj_id,obj_size,next_access_vtime\n"
			 "0,10,4096,3\n0,11,4096,5\n0,10,4096,6\n"
			 "1,12,4096,-1\n1,11,4096,-1\n1,10,4096,-1\n"), 0);
	free(r);
	free(csv);
}

TEST(an_empty_string_gives_a_header_only)
{
	char *csv = NULL;
	unsigned char *r = export(NULL, 0, &csv);

	ASSERT_TRUE(r != NULL);
	EXPECT_EQ(strcmp(csv, "time,obj_id,obj_size,next_access_vtime\n"), 0);
	free(r);
	free(csv);
}

/*
 * The oracle goes forwards (the library goes backwards, through a hash
 * map): each page's last index so far, in an array indexed by the page,
 * gets its next use when the page comes again.
 */
TEST(random_strings_agree_with_a_forward_oracle)
{
	/* Longer than the 65,536 references of one read, and on its edges. */
	static const size_t lens[] = { 1, 65535, 65536, 65537, 200003 };
	static const uint64_t spans[] = { 3, 1000, 70000 };

	for (size_t l = 0; l < N(lens); l++) {
		for (size_t s = 0; s < N(spans); s++) {
			size_t n = lens[l], bad = 0;
			uint64_t *pages = malloc(n * sizeof(*pages));
			int64_t *want = malloc(n * sizeof(*want));
			int64_t *last = malloc(spans[s] * sizeof(*last));
			unsigned int seed = 7 * l + s;
			unsigned char *r;

			ASSERT_TRUE(pages && want && last);
			for (uint64_t p = 0; p < spans[s]; p++)
				last[p] = -1;
			for (size_t i = 0; i < n; i++) {
				uint64_t p = (uint64_t)rand_r(&seed) % spans[s];

				pages[i] = p * 977;	/* sparse page numbers */
				want[i] = -1;
				if (last[p] >= 0)
					want[last[p]] = i + 1;
				last[p] = i;
			}
			r = export(pages, n, NULL);
			ASSERT_TRUE(r != NULL);
			for (size_t i = 0; i < n; i++)
				bad += (int64_t)le(r + i * LCS_RECORD + 16, 8) != want[i];
			if (bad)
				ktap_diag("%zu references over %llu pages: %zu wrong",
					  n, (unsigned long long)spans[s], bad);
			EXPECT_EQ(bad, 0);
			free(r);
			free(pages);
			free(want);
			free(last);
		}
	}
}

KTAP_MAIN()
