// SPDX-License-Identifier: MIT
/* Writing JSON strings, escaped as JSON requires (json.h). */
#include <stdint.h>
#include <string.h>
#include "core/json.h"

/* The length of the valid UTF-8 sequence at P (N bytes left), or 0. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	uint32_t c;
	size_t len, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, c = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, c = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, c = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	/* overlong forms, surrogates, past U+10FFFF */
	if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	return len;
}

void json_print_bytes(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, len;

	fputc('"', f);
	while (i < n) {
		if (p[i] == '"' || p[i] == '\\') {
			fprintf(f, "\\%c", p[i++]);
		} else if (p[i] < 0x20) {
			fprintf(f, "\\u%04x", p[i++]);
		} else if ((len = utf8_len(p + i, n - i))) {
			fwrite(p + i, 1, len, f);
			i += len;
		} else {
			fputs("\\ufffd", f);	/* as Go's encoding/json does */
			i++;
		}
	}
	fputc('"', f);
}

void json_print_string(FILE *f, const char *s)
{
	json_print_bytes(f, s, strlen(s));
}
