// SPDX-License-Identifier: GPL-2.0
/*
 * lcs_misses - the exact misses of libCacheSim's own LRU, FIFO, Clock and
 * Belady on an oracleGeneral trace (pgfreport export lcs), each object of
 * size 1 (cachesim's --ignore-obj-size 1), at each cache size given, one
 * line each: POLICY SIZE REQUESTS MISSES. cachesim prints miss ratios to 4
 * places; this prints the counts, to compare with pgfreport mrc exactly.
 * Built against libCacheSim by tests/bench/libcachesim.sh: a benchmark
 * peer, never part of the tools.
 *
 *	lcs_misses TRACE SIZE...
 */
#include <stdio.h>
#include <stdlib.h>
#include "libCacheSim.h"

int main(int argc, char **argv)
{
	static const char *const names[] = { "lru", "fifo", "clock", "opt" };

	if (argc < 3) {
		fprintf(stderr, "usage: lcs_misses TRACE SIZE...\n");
		return 2;
	}
	for (int k = 0; k < 4; k++) {
		for (int a = 2; a < argc; a++) {
			reader_init_param_t rp = default_reader_init_params();
			common_cache_params_t cp = { .cache_size = strtoull(argv[a], NULL, 10),
						     .hashpower = 20,
						     .consider_obj_metadata = false };
			reader_t *reader;
			request_t *req = new_request();
			long long n = 0, miss = 0;
			cache_t *c;

			rp.ignore_obj_size = true;
			reader = open_trace(argv[1], ORACLE_GENERAL_TRACE, &rp);
			c = k == 0 ? LRU_init(cp, NULL) : k == 1 ? FIFO_init(cp, NULL) :
			    k == 2 ? Clock_init(cp, NULL) : Belady_init(cp, NULL);
			while (read_one_req(reader, req) == 0) {
				req->obj_size = 1;
				n++;
				miss += !c->get(c, req);
			}
			printf("%s %s %lld %lld\n", names[k], argv[a], n, miss);
			c->cache_free(c);
			free_request(req);
			close_reader(reader);
		}
	}
	return 0;
}
