/*
 * input.c -- open an archive that the caller named by path, for reading
 * only.  The path is the caller's own (as -f's operand is), not an
 * archive's: it may be absolute and may cross symlinks.  It is opened so
 * that a process can confine itself afterwards and still read it.
 */
#include <errno.h>
#include <fcntl.h>

#include "pfx_root.h"

/* see pfx_root.h */
int
pfx_input_open(const char *path)
{
	int fd;

	/* O_NOCTTY: a terminal named by mistake never becomes ours. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	return fd >= 0 ? fd : -errno;
}
