/*
 * close.c -- a descriptor closed without losing errno: the lowest call
 * of the layer, which every file of it, the OS files included, makes.
 */
#include <errno.h>
#include <unistd.h>

#include "platform.h"

/* see platform.h */
void
plat_close(int fd)
{
	int saved = errno;

	if (fd >= 0)
		(void)close(fd);
	errno = saved;
}
