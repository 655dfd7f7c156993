// SPDX-License-Identifier: GPL-2.0
/*
 * export-json - a trace's records as JSON objects, one per line, for
 * pgfreport export json.
 */
#include <stdio.h>
#include "export.h"

const char *export_result_name(enum pgft_result r)
{
	static const char * const n[] = {
		"minor", "major", "reref", "SIGSEGV", "SIGBUS", "OOM"
	};

	return n[r];
}

static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(out, "\\u%04x", *s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

void json_rec(FILE *out, const struct pgft_rec *r, bool tree)
{
	static const char * const types[] = {
		"start", "fault", "lost", "exec", "stop", "exit", "layout", "map",
		"change", "unmap", "remote", "rearm", "child", "refs", "sample",
		"file", "cache", "pages",
	};
	const char *p;

	fprintf(out, "{\"type\":\"%s\"", r->type == PGFT_PAGES ?
		pgft_change_names[r->change] : types[r->type]);
	if (tree)
		fprintf(out, ",\"pid\":%d", r->pid);
	if (r->type != PGFT_LOST)
		fprintf(out, ",\"time\":%llu", r->time);
	switch (r->type) {
	case PGFT_FAULT:
		fprintf(out, ",\"tid\":%d,\"address\":%llu,\"access\":\"%c\",\"mode\":\"%s\","
		       "\"result\":\"%s\",\"ip\":%llu", r->tid, r->addr, r->access,
		       r->kernel ? "kernel" : "user", export_result_name(r->result), r->ip);
		if (r->has_frame)
			fprintf(out, ",\"pfn\":%llu,\"node\":%d,\"order\":%u,\"level\":\"%s\"",
				r->pfn, r->node, r->order, pgft_level_names[r->level]);
		break;
	case PGFT_REMOTE:
		fprintf(out, ",\"tid\":%d,\"access\":\"%c\",\"result\":\"%s\"",
		       r->tid, r->access, export_result_name(r->result));
		break;
	case PGFT_MAP:
	case PGFT_CHANGE:
		fprintf(out, ",\"id\":%llu,\"start\":%llu,\"end\":%llu,\"perms\":\"%s\","
		       "\"offset\":%llu,\"dev\":\"%02x:%02x\",\"inode\":%llu,\"name\":",
		       r->id, r->start, r->end, r->perms, r->offset, r->major,
		       r->minor, r->inode);
		json_str(out, r->name);
		break;
	case PGFT_UNMAP:
		fprintf(out, ",\"id\":%llu", r->id);
		break;
	case PGFT_LAYOUT:
		fprintf(out, ",\"count\":%llu", r->n[0]);
		break;
	case PGFT_LOST:
		fprintf(out, ",\"faults\":%llu,\"other\":%llu", r->n[0], r->n[1]);
		break;
	case PGFT_EXEC:
		fprintf(out, ",\"tid\":%d,\"path\":", r->tid);
		json_str(out, r->text);
		break;
	case PGFT_STOP:
		fprintf(out, ",\"reason\":");
		json_str(out, r->text);
		break;
	case PGFT_REARM:
		fprintf(out, ",\"pages\":%llu,\"how\":", r->n[0]);
		json_str(out, r->text);
		break;
	case PGFT_START:
		fprintf(out, ",\"mode\":");
		json_str(out, *r->text ? r->text : "first");
		if (r->n[0])
			fprintf(out, ",\"inherit\":true");
		if (r->n[2])
			fprintf(out, ",\"files\":true");
		break;
	case PGFT_CHILD:
		/* the new process: "child" (a tree file's records have "pid") */
		fprintf(out, ",\"tid\":%d,\"child\":%llu", r->tid, r->n[0]);
		if (r->n[1])
			fprintf(out, ",\"untraced\":true");
		break;
	case PGFT_EXIT:
		fprintf(out, ",\"status\":%llu,\"faults\":%llu,\"lost\":%llu,\"regions\":%llu",
		       r->n[0], r->n[1], r->n[2], r->n[3]);
		if (r->flags & PGFT_EXIT_CACHE)
			fprintf(out, ",\"cache_kept\":%llu,\"cache_lost\":%llu",
				r->n[4], r->n[5]);
		break;
	case PGFT_FILE:
		fprintf(out, ",\"id\":%llu,\"dev\":\"%02x:%02x\",\"inode\":%llu,\"path\":",
			r->id, r->major, r->minor, r->inode);
		json_str(out, r->name);
		break;
	case PGFT_CACHE:
		fprintf(out, ",\"tid\":%d,\"file\":%llu,\"index\":%llu,\"pages\":%llu,"
			"\"access\":\"%c\",\"cache\":\"%s\"", r->tid, r->id, r->start,
			r->n[0], r->access, pgft_cache_names[r->cache]);
		break;
	case PGFT_PAGES:
		/* a change (version 9): a frame "-" is -1 (node) or null (pfn) */
		fprintf(out, ",\"tid\":%d,\"address\":%llu,\"pages\":%llu,\"cause\":",
			r->tid, r->addr, r->n[0]);
		json_str(out, r->text);
		fprintf(out, ",\"node\":%d,\"new_node\":%d", r->node, r->new_node);
		if (!r->has_frame)
			break;
		if (r->pfn == PGFT_NO_PFN)
			fprintf(out, ",\"pfn\":null");
		else
			fprintf(out, ",\"pfn\":%llu", r->pfn);
		if (r->new_pfn == PGFT_NO_PFN)
			fprintf(out, ",\"new_pfn\":null");
		else
			fprintf(out, ",\"new_pfn\":%llu", r->new_pfn);
		fprintf(out, ",\"order\":%u,\"level\":\"%s\"", r->order,
			pgft_level_names[r->level]);
		break;
	case PGFT_REFS: {
		unsigned long long a, n;
		const char *sep = "";

		/* Each run as [address, pages]. */
		fprintf(out, ",\"tid\":%d,\"runs\":[", r->tid);
		for (p = r->text; pgft_run(&p, &a, &n); sep = ",")
			fprintf(out, "%s[%llu,%llu]", sep, a, n);
		fprintf(out, "]");
		break;
	}
	case PGFT_SAMPLE:
		fprintf(out, ",\"tid\":%d,\"scanned\":%llu,\"referenced\":%llu,\"ns\":%llu",
		       r->tid, r->n[0], r->n[1], r->n[2]);
		if (r->flags & PGFT_SAMPLE_BASELINE)
			fprintf(out, ",\"baseline\":true");
		if (r->flags & PGFT_SAMPLE_INCOMPLETE)
			fprintf(out, ",\"incomplete\":true");
		if (r->flags & PGFT_SAMPLE_STOPPED)
			fprintf(out, ",\"stopped\":true");
		break;
	default:
		break;
	}
	fputs("}\n", out);
}
