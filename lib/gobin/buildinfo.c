// SPDX-License-Identifier: MIT
/*
 * Go build info, as debug/buildinfo reads it. A 32-byte header, 16-byte
 * aligned: the magic (14 bytes), the pointer size, a flags byte (bit 0: big
 * endian, bit 1: inline strings). Before 1.18 two pointers to Go strings
 * (runtime.buildVersion, runtime.modinfo) follow the magic at offset 16;
 * from 1.18 the strings follow the header inline, each prefixed with its
 * uvarint length.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include "gobin/buildinfo.h"
#include "core/error.h"

static const uint8_t magic[14] = "\xff Go buildinf:";

#define HEADER_ALIGN	16
#define HEADER_SIZE	32
#define FLAG_BIG_ENDIAN	0x1
#define FLAG_INLINE	0x2

static int corrupt(const char *why)
{
	return gt_error(-EINVAL, "corrupt Go build info: %s", why);
}

/* Read a PTR_SIZE-byte pointer-sized word. */
static uint64_t get_word(const uint8_t *p, int ptr_size, bool big_endian)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < ptr_size; i++) {
		int b = big_endian ? i : ptr_size - 1 - i;

		v = v << 8 | p[b];
	}
	return v;
}

static int check_len(uint64_t len, size_t version_len)
{
	if (len == 0)
		return corrupt("empty Go version");
	if (len >= version_len)
		return corrupt("Go version string too long");
	return 0;
}

/* Copy the version string S (LEN bytes) into VERSION. */
static int copy_version(const uint8_t *s, uint64_t len, char *version,
			size_t version_len)
{
	uint64_t i;
	int err;

	err = check_len(len, version_len);
	if (err)
		return err;
	for (i = 0; i < len; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return corrupt("Go version has unprintable bytes");
	memcpy(version, s, len);
	version[len] = '\0';
	return 0;
}

/* 1.18+: the uvarint length and the version follow the header. */
static int version_inline(const uint8_t *p, size_t avail, char *version,
			  size_t version_len)
{
	uint64_t len = 0;
	size_t n;

	for (n = 0;; n++) {
		if (n >= avail)
			return corrupt("truncated version length");
		if (n == 10)
			return corrupt("version length overflows");
		len |= (uint64_t)(p[n] & 0x7f) << (7 * n);
		if (!(p[n] & 0x80))
			break;
	}
	n++;
	if (len > avail - n)
		return corrupt("version runs off the data");
	return copy_version(p + n, len, version, version_len);
}

/* Before 1.18: follow the pointer to the runtime.buildVersion string. */
static int version_pointer(const uint8_t *hdr, buildinfo_read_fn read,
			   void *ctx, char *version, size_t version_len)
{
	int ptr_size = hdr[14];
	bool big_endian = hdr[15] & FLAG_BIG_ENDIAN;
	const uint8_t *str, *s;
	uint64_t addr, len;

	if (ptr_size != 4 && ptr_size != 8)
		return corrupt("bad pointer size");
	if (!read)
		return corrupt("pointer format needs a reader");
	addr = get_word(hdr + 16, ptr_size, big_endian);
	if (read(ctx, addr, 2 * ptr_size, &str))
		return corrupt("version pointer out of range");
	addr = get_word(str, ptr_size, big_endian);
	len = get_word(str + ptr_size, ptr_size, big_endian);
	if (check_len(len, version_len))
		return -EINVAL;
	if (read(ctx, addr, len, &s))
		return corrupt("version string out of range");
	return copy_version(s, len, version, version_len);
}

int buildinfo__version(const uint8_t *data, size_t size,
		       buildinfo_read_fn read, void *ctx,
		       char *version, size_t version_len)
{
	size_t off;

	if (!data)
		return gt_error(-ENOENT, "no Go build info");
	for (off = 0; off < size && size - off >= HEADER_SIZE;
	     off += HEADER_ALIGN) {
		const uint8_t *hdr = data + off;

		if (memcmp(hdr, magic, sizeof(magic)) != 0)
			continue;
		if (hdr[15] & FLAG_INLINE)
			return version_inline(hdr + HEADER_SIZE,
					      size - off - HEADER_SIZE,
					      version, version_len);
		return version_pointer(hdr, read, ctx, version, version_len);
	}
	return gt_error(-ENOENT, "no Go build info");
}
