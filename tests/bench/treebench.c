// SPDX-License-Identifier: GPL-2.0
/*
 * treebench - what following a process tree costs: a shell script that
 * runs N short commands (/bin/true), untraced and under tracepgfault -f,
 * alternately, REPS times each; prints the median wall times, their ratio,
 * and what the traced runs recorded: processes, records, lost records.
 *
 *   treebench [N [REPS [SCRIPT]]]   (default 200 commands, 5 reps)
 *
 * SCRIPT replaces the loop of N commands with a shell command line.
 * Lines starting with "result " are for scripts; the rest is for people.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TRACE "/tmp/treebench.trace"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run argv; its wall time in seconds, or -1 if it failed. */
static double timed(char *const argv[])
{
	double t0 = now();
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return now() - t0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Processes, records and lost records of a tree file. */
static int tree_counts(unsigned long long *procs, unsigned long long *recs,
		       unsigned long long *lost)
{
	unsigned long long f, o;
	char line[8192];
	FILE *fp = fopen(TRACE, "r");

	*procs = *recs = *lost = 0;
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		if (!strncmp(line, "pgfault_history ", 16))
			(*procs)++;
		else if (!strncmp(line, "pid ", 4) ||
			 !strncmp(line, "pgfault_history_tree ", 21))
			continue;
		else
			(*recs)++;
		if (sscanf(line, "lost %llu %llu", &f, &o) == 2)
			*lost += f + o;
	}
	fclose(fp);
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200;
	int reps = argc > 2 ? atoi(argv[2]) : 5;
	unsigned long long procs, recs, lost, max_lost = 0;
	double *plain, *traced, mp, mt;
	char script[512];

	if (n < 1 || reps < 1 || reps > 1000) {
		fprintf(stderr, "usage: treebench [N [REPS [SCRIPT]]]\n");
		return 1;
	}
	if (argc > 3)
		snprintf(script, sizeof(script), "%s", argv[3]);
	else
		snprintf(script, sizeof(script),
			 "i=0; while [ $i -lt %d ]; do /bin/true; i=$((i+1)); done",
			 n);
	plain = calloc(reps, sizeof(*plain));
	traced = calloc(reps, sizeof(*traced));
	if (!plain || !traced)
		return 1;
	printf("# treebench: sh -c '%s', %d reps each, alternating\n", script,
	       reps);
	for (int i = 0; i < reps; i++) {
		char *p[] = { "sh", "-c", script, NULL };
		char *t[] = { "tracepgfault", "-q", "-F", "-f", "-o", TRACE,
			      "sh", "-c", script, NULL };

		plain[i] = timed(p);
		traced[i] = timed(t);
		if (plain[i] < 0 || traced[i] < 0 ||
		    tree_counts(&procs, &recs, &lost)) {
			fprintf(stderr, "treebench: a run failed\n");
			return 1;
		}
		if (lost > max_lost)
			max_lost = lost;
		printf("# rep %d: untraced %.3f s, traced %.3f s, %llu processes, %llu records, %llu lost\n",
		       i, plain[i], traced[i], procs, recs, lost);
	}
	qsort(plain, reps, sizeof(*plain), cmp);
	qsort(traced, reps, sizeof(*traced), cmp);
	mp = plain[reps / 2];
	mt = traced[reps / 2];
	printf("result tree untraced_s=%.3f traced_s=%.3f ratio=%.2f processes=%llu records=%llu lost_max=%llu\n",
	       mp, mt, mt / mp, procs, recs, max_lost);
	unlink(TRACE);
	return 0;
}
