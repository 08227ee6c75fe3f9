/*
 * harness.c -- checks that more than one harness makes (fuzz.h), linked
 * into each libFuzzer binary and each replay driver.
 */
#include <fcntl.h>
#include <string.h>

#include "pfx_path.h"
#include "fuzz.h"

/* Descriptors below this are counted. */
#define FD_SCAN 1024

/* see fuzz.h */
bool
fuzz_rel_ok(const char *rel)
{
	const char *c = rel, *e;
	size_t n;

	if (rel[0] == '\0')
		return true;
	if (strnlen(rel, PFX_PATH_MAX) >= PFX_PATH_MAX - 1)
		return false;
	for (;;) {
		e = strchr(c, '/');
		n = e != NULL ? (size_t)(e - c) : strlen(c);
		if (n == 0 || n > PFX_NAME_MAX || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (e == NULL)
			return true;
		c = e + 1;
	}
}

/* see fuzz.h */
int
fuzz_count_fds(void)
{
	int fd, n = 0;

	for (fd = 0; fd < FD_SCAN; fd++)
		n += fcntl(fd, F_GETFD) != -1;
	return n;
}
