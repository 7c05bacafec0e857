// SPDX-License-Identifier: MIT
/* -U: printing a user stack, frame by frame, inlined calls included
 * (user_stack.h). */
#include "core/json.h"
#include "cli/user_stack.h"

/* Inlined frames a PC can have, and print. */
#define MAX_INLINED	16

/* An address no name is known for. */
static void print_address(FILE *f, bool json, uint64_t addr)
{
	if (json)
		fprintf(f, "{\"addr\":\"0x%llx\"}", (unsigned long long)addr);
	else
		fprintf(f, "        0x%llx\n", (unsigned long long)addr);
}

static void print_frame(FILE *f, bool json, const struct pcline_frame *fr,
			uint64_t pc, bool first)
{
	if (json) {
		fprintf(f, "%s{\"func\":", first ? "" : ",");
		json_print_string(f, fr->func);
		fprintf(f, ",\"file\":");
		json_print_string(f, fr->file);
		fprintf(f, ",\"line\":%d,\"inlined\":%s}", fr->line,
			fr->inlined ? "true" : "false");
	} else if (fr->inlined) {
		fprintf(f, "        %s (inlined) %s:%d\n", fr->func, fr->file,
			fr->line);
	} else {
		fprintf(f, "        %s+0x%llx %s:%d\n", fr->func,
			(unsigned long long)(pc - fr->func_entry), fr->file,
			fr->line);
	}
}

void user_stack__print(struct traced_binary *tb, FILE *f, bool json,
		       pid_t pid, uint64_t start_code, const __u64 *frames,
		       uint32_t n)
{
	struct pcline_frame inl[MAX_INLINED];
	size_t nf, k;
	uint64_t pc;
	uint32_t i;

	for (i = 0; i < n; i++) {
		/* a return address is after its call: look up the call */
		uint64_t back = i ? 1 : 0;

		if (json && i)
			fputs(",", f);
		if (!tb || !tb->lines ||
		    !traced_binary__file_address(tb, pid, start_code, frames[i],
						 &pc) ||
		    pcline__frames(tb->lines, pc - back, inl, MAX_INLINED, &nf) ||
		    !nf) {
			print_address(f, json, frames[i]);
			continue;
		}
		for (k = 0; k < nf; k++)
			print_frame(f, json, &inl[k], pc, k == 0);
	}
}
