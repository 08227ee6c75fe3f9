/* TEMPORARY until the filter branch lands. */
#include "platform.h"
#include "pfx_sandbox.h"
int
plat_sandbox_confine(int destfd, unsigned int flags, unsigned int internal,
    struct pfx_sandbox_info *info)
{
	(void)internal;
	return pfx_sandbox_confine(destfd, flags & ~0x8u, info);
}
