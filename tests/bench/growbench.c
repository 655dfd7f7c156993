// SPDX-License-Identifier: GPL-2.0
/*
 * growbench - a program that grows to many VMAs while it is traced, as a
 * JVM, a browser or a database does, run under tracepgfault as a user
 * would, with the default buffer limit.
 *
 *   growbench [-v vmas] [-n pairs] [-r reps]
 *
 * The program (this one, run again as "growbench --child V PAIRS MAPS")
 * maps V pages and mprotect()s every other one read-only, one call at a
 * time, which leaves V VMAs (plus the dozen a static program has): the
 * growth. Then it times PAIRS one-page mmap()+munmap() pairs (default
 * 100), and writes its /proc/self/maps to MAPS. Untraced it runs alone;
 * traced it runs as "tracepgfault -q TRACE growbench --child ...", whose
 * reader writes the trace to a file while it runs. Untraced and traced
 * runs alternate, `reps` times (default 5); the figures are medians.
 *
 * The trace is then replayed (tools/lib/pgftrace.c): how many records
 * its "lost" lines counted, how many layouts it holds, and whether the
 * regions it ends with are the program's last /proc/self/maps. A trace
 * may end owing its layout: when records were lost and the exit comes
 * before the reader has taken the layout sent again in parts, what the
 * control ring's limit does not hold is counted lost (the kernel's
 * pgf_group_exit()). Such a trace is counted apart ("owed"), and must
 * still account for every region: each one it tells is in the maps, and
 * the maps' others are no more than the records lost since its last
 * layout began.
 *
 * Output: "result grow vmas=V pairs=P off_us=.. traced_us=.. ratio=..
 * grow_off_us=.. grow_traced_us=.. grow_ratio=.. lost=N layouts=N
 * regions=N exact=0|1 owed=N" (per pair, per VMA grown; lost summed over
 * the reps, regions of the last rep, exact 1 if every rep's trace is the
 * maps or owes its layout with every missing region counted, owed the
 * reps whose trace ended owing it). A rep whose trace is neither ends the
 * run there, exit status 1, its trace and maps left in
 * /tmp/growbench.trace and .maps.
 */
#include <errno.h>
#include <getopt.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include "bench.h"
#include "../../tools/lib/pgftrace.h"

#define MAXREPS 32

static long vmas = 60000;
static long pairs = 100;
static int reps = 5;

static void die(const char *what)
{
	fprintf(stderr, "growbench: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* ---- the program ----------------------------------------------------- */

static int child(long v, long n, const char *maps_path)
{
	long psz = sysconf(_SC_PAGESIZE);
	char buf[65536];
	double t0, grow, pair;
	FILE *in, *out;
	char *many;
	size_t got;

	many = mmap(NULL, v * psz, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (many == MAP_FAILED)
		die("mmap");
	t0 = now();
	for (long i = 1; i < v; i += 2)
		if (mprotect(many + i * psz, psz, PROT_READ))
			die("mprotect");
	grow = (now() - t0) * 1e6 / v;
	t0 = now();
	for (long i = 0; i < n; i++) {
		void *p = mmap(NULL, psz, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED || munmap(p, psz))
			die("mmap+munmap");
	}
	pair = (now() - t0) * 1e6 / n;
	in = fopen("/proc/self/maps", "r");
	out = fopen(maps_path, "w");
	if (!in || !out)
		die(maps_path);
	while ((got = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, got, out);
	fclose(in);
	if (fclose(out))
		die(maps_path);
	printf("child grow_us=%.3f pair_us=%.2f\n", grow, pair);
	return 0;
}

/* ---- the measurement ---------------------------------------------------- */

/* Run argv, its stdout read for the child's line; 0 or -1. */
static int run(char *const argv[], double *grow, double *pair)
{
	char line[256] = "";
	int fds[2], status;
	FILE *f;
	pid_t pid;

	if (pipe(fds))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "child grow_us=%lf pair_us=%lf", grow, pair) == 2)
			break;
	if (f)
		fclose(f);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		struct statvfs sv;
		struct stat st;

		fprintf(stderr, "growbench: %s failed (status %#x)\n", argv[0], status);
		/* A trace that never ends fills /tmp: say how full it is. */
		if (!statvfs("/tmp", &sv) && !stat("/tmp/growbench.trace", &st))
			fprintf(stderr, "growbench: /tmp has %llu KiB free; the trace %lld KiB\n",
				(unsigned long long)sv.f_bavail * sv.f_frsize / 1024,
				(long long)st.st_size / 1024);
		return -1;
	}
	return 0;
}

/* Is @l, a maps line, region @g: range, permissions, offset? */
static int is_region(const char *l, const struct pgft_region *g)
{
	unsigned long long start, end, offset;
	char perms[5];

	return sscanf(l, "%llx-%llx %4s %llx", &start, &end, perms, &offset) == 4 &&
	       g->start == start && g->end == end && !strcmp(g->perms, perms) &&
	       g->offset == offset;
}

/*
 * A trace that owes its layout: is every region it tells in @maps, and
 * are the maps' others no more than @lost?
 */
static int counted_in_maps(struct pgft_space *s, const char *maps,
			   unsigned long long lost)
{
	const char *l = maps;
	size_t i = 0, lines = 0;

	pgft_sort(s);
	for (; *l; l = strchr(l, '\n') + 1) {
		if (strstr(l, "[vsyscall]") && strstr(l, "[vsyscall]") < strchr(l, '\n'))
			continue;
		lines++;
		if (i < s->nr && is_region(l, &s->v[i]))
			i++;
	}
	return i == s->nr && lines - s->nr <= lost;
}

/* The replayed regions are the maps text's: ranges, permissions, offsets. */
static int same_as_maps(struct pgft_space *s, const char *maps)
{
	unsigned long long start, end, offset;
	const char *l = maps;
	char perms[5];
	size_t i = 0;

	pgft_sort(s);
	for (; *l; l = strchr(l, '\n') + 1) {
		if (strstr(l, "[vsyscall]") && strstr(l, "[vsyscall]") < strchr(l, '\n'))
			continue;	/* x86's gate page: not a VMA */
		if (sscanf(l, "%llx-%llx %4s %llx", &start, &end, perms, &offset) != 4 ||
		    i == s->nr || s->v[i].start != start || s->v[i].end != end ||
		    strcmp(s->v[i].perms, perms) || s->v[i].offset != offset)
			return 0;
		i++;
	}
	return i == s->nr;
}

struct replay {
	unsigned long long lost, layouts;
	unsigned long long lost_end;	/* since the last layout began */
	size_t regions;
	int exact;			/* the regions are the maps */
	int owed;			/* it ends owing its layout, counted */
};

static int replay(const char *trace, const char *maps_path, struct replay *r)
{
	struct pgft_space s = { 0 };
	struct pgft_reader rd;
	struct pgft_rec rec;
	FILE *f = fopen(trace, "r"), *m = fopen(maps_path, "r");
	static char maps[64 << 20];
	size_t len;
	int ret;

	memset(r, 0, sizeof(*r));
	if (!f || !m || pgft_open(&rd, f, trace))
		return -1;
	while ((ret = pgft_next(&rd, &rec)) > 0) {
		if (rec.type == PGFT_LOST) {
			r->lost += rec.n[0] + rec.n[1];
			r->lost_end += rec.n[0] + rec.n[1];
		}
		if (rec.type == PGFT_LAYOUT) {
			r->layouts++;
			r->lost_end = 0;
		}
		pgft_apply(&s, &rec);
	}
	if (ret < 0)
		fprintf(stderr, "growbench: %s\n", rd.error);
	len = fread(maps, 1, sizeof(maps) - 1, m);
	maps[len] = '\0';
	r->regions = s.nr;
	r->exact = ret == 0 && same_as_maps(&s, maps);
	r->owed = ret == 0 && !r->exact && (r->lost_end || s.layout_left) &&
		  counted_in_maps(&s, maps, r->lost_end);
	pgft_close(&rd);
	pgft_space_free(&s);
	fclose(f);
	fclose(m);
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: growbench [-v vmas] [-n pairs] [-r reps]\n"
		"  A program that grows to VMAS VMAs (default 60000) under tracepgfault,\n"
		"  then times PAIRS (100) one-page mmap+munmap pairs; REPS (5) runs\n"
		"  untraced and traced, alternating. See the comment in tests/bench/growbench.c.\n");
}

int main(int argc, char **argv)
{
	double goff[MAXREPS], gon[MAXREPS], poff[MAXREPS], pon[MAXREPS];
	long nreps = reps;
	char vs[32], ns[32], maps[] = "/tmp/growbench.maps";
	char trace[] = "/tmp/growbench.trace", self[4096];
	unsigned long long lost = 0;
	struct replay r = { 0 };
	int c, exact = 1, owed = 0;
	ssize_t n;

	/* a kept trace against its maps, as a rep checks it */
	if (argc == 4 && !strcmp(argv[1], "--replay")) {
		if (replay(argv[2], argv[3], &r) < 0)
			return 1;
		printf("# %llu lost, %llu layouts, %zu regions at the end, %s\n",
		       r.lost, r.layouts, r.regions, r.exact ? "= maps" : r.owed ?
		       "owes the layout, the rest of the maps counted lost" : "NOT maps");
		return !r.exact && !r.owed;
	}
	if (argc == 5 && !strcmp(argv[1], "--child"))
		return child(atol(argv[2]), atol(argv[3]), argv[4]);
	while ((c = getopt(argc, argv, "v:n:r:h")) != -1) {
		switch (c) {
		case 'v':
			if (parse_num_opt("growbench", optarg, 'v', 2, 1000000, &vmas))
				return 2;
			break;
		case 'n':
			if (parse_num_opt("growbench", optarg, 'n', 1, 1000000, &pairs))
				return 2;
			break;
		case 'r':
			if (parse_num_opt("growbench", optarg, 'r', 1, MAXREPS, &nreps))
				return 2;
			reps = nreps;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		die("/proc/self/exe");
	self[n] = '\0';
	snprintf(vs, sizeof(vs), "%ld", vmas);
	snprintf(ns, sizeof(ns), "%ld", pairs);
	{
		FILE *f = fopen("/proc/sys/vm/max_map_count", "w");

		/* Room for the VMAs (the default is 65530). */
		if (f) {
			fprintf(f, "%ld\n", vmas + 10000 > 65530 ? vmas + 10000 : 65530);
			fclose(f);
		}
	}
	for (int i = 0; i < reps; i++) {
		char *off[] = { self, "--child", vs, ns, maps, NULL };
		char *on[] = { "tracepgfault", "-q", "-F", "-o", trace, self,
			       "--child", vs, ns, maps, NULL };

		if (run(off, &goff[i], &poff[i]) || run(on, &gon[i], &pon[i]) ||
		    replay(trace, maps, &r))
			return 1;
		lost += r.lost;
		exact &= r.exact || r.owed;
		owed += r.owed;
		printf("# rep %d: untraced grow %.2f us/VMA, %.2f us/pair; traced %.2f, %.2f; "
		       "%llu lost, %llu layouts, %zu regions at the end, %s\n",
		       i, goff[i], poff[i], gon[i], pon[i], r.lost, r.layouts,
		       r.regions, r.exact ? "= maps" : r.owed ?
		       "owes the layout, the rest of the maps counted lost" : "NOT maps");
		fflush(stdout);
		if (!r.exact && !r.owed) {
			/* Kept for a look: the first trace that went wrong. */
			fprintf(stderr, "growbench: rep %d not exact: its trace is %s, "
				"the program's last maps %s\n", i, trace, maps);
			return 1;
		}
	}
	unlink(trace);
	unlink(maps);
	printf("result grow vmas=%ld pairs=%ld off_us=%.2f traced_us=%.2f ratio=%.2f "
	       "grow_off_us=%.3f grow_traced_us=%.3f grow_ratio=%.2f lost=%llu "
	       "layouts=%llu regions=%zu exact=%d owed=%d\n",
	       vmas, pairs, median(poff, reps), median(pon, reps),
	       median(pon, reps) / median(poff, reps), median(goff, reps),
	       median(gon, reps), median(gon, reps) / median(goff, reps), lost,
	       r.layouts, r.regions, exact, owed);
	return 0;
}
