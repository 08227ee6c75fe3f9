/*
 * sandbox_posix.c -- pfx_sandbox_confine() where pfextract knows no
 * sandbox: nothing is enforced, and INFO says so.  The containment of
 * the platform layer still holds; only the kernel backstop against a
 * compromised decoder is missing.  (OpenBSD's pledge(2) and unveil(2),
 * or FreeBSD's Capsicum, would go in a file of their own.)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "platform.h"
#include "pfx_sandbox.h"

/* see pfx_sandbox.h */
int
pfx_sandbox_confine(int destfd, unsigned int flags,
    struct pfx_sandbox_info *info)
{
	return plat_sandbox_confine(destfd, flags, 0, info);
}

/* see platform.h */
int
plat_sandbox_confine(int destfd, unsigned int flags, unsigned int internal,
    struct pfx_sandbox_info *info)
{
	struct stat st;

	memset(info, 0, sizeof(*info));
	(void)snprintf(info->text, sizeof(info->text),
	    "none: no sandbox on this system");
	if ((flags & ~(unsigned int)(PFX_SANDBOX_REQUIRE |
	    PFX_SANDBOX_SYMLINKS | PFX_SANDBOX_NO_DEST |
	    PFX_SANDBOX_SETID)) != 0 ||
	    (internal & ~(unsigned int)(PLAT_SANDBOX_SIGNAL_OUT |
	    PLAT_SANDBOX_DECODER)) != 0)
		return -EINVAL;
	if ((flags & PFX_SANDBOX_NO_DEST) == 0) {
		if (destfd < 0 || fstat(destfd, &st) == -1)
			return -EBADF;
		if (!S_ISDIR(st.st_mode))
			return -ENOTDIR;
	}
	if ((flags & PFX_SANDBOX_REQUIRE) != 0)
		return -ENOSYS;
	return 0;
}
