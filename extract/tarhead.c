/*
 * tarhead.c -- the two facts of a raw tar header block that the readers
 * which look at blocks themselves need (label.c, the archive's label;
 * volumes.c, the joins of a multi-volume archive): a numeric field's
 * value, and whether the block checks as a header.  Pure: no I/O.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tarhead.h"

/* see tarhead.h */
int
xtr_tar_number(const unsigned char *f, size_t w, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	if (w > 0 && (f[0] & 0x80) != 0) {	/* base-256, positive only */
		if ((f[0] & 0x40) != 0)
			return -1;
		v = f[0] & 0x3f;
		for (i = 1; i < w; i++) {
			if (v > (UINT64_MAX >> 8))
				return -1;
			v = (v << 8) | f[i];
		}
		*out = v;
		return 0;
	}
	while (i < w && f[i] == ' ')
		i++;
	for (; i < w && f[i] >= '0' && f[i] <= '7'; i++) {
		if (v > (UINT64_MAX >> 3))
			return -1;
		v = (v << 3) | (uint64_t)(f[i] - '0');
	}
	if (i < w && f[i] != '\0' && f[i] != ' ')
		return -1;
	*out = v;
	return 0;
}

/* see tarhead.h */
bool
xtr_tar_header_ok(const unsigned char *b)
{
	uint64_t want;
	long u = 0, s = 0;
	size_t i;

	if (xtr_tar_number(b + 148, 8, &want) != 0)
		return false;
	for (i = 0; i < XTR_TAR_BLOCK; i++) {
		unsigned char c = i >= 148 && i < 156 ? ' ' : b[i];

		u += c;
		s += (signed char)c;
	}
	return want == (uint64_t)u || (s >= 0 && want == (uint64_t)s);
}
