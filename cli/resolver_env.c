/*
 * resolver_env.c -- PFEXTRACT_RESOLVER, read by the tools so that every
 * test can run both resolvers on any machine.
 */
#include <stddef.h>
#include <string.h>

#include "resolver_env.h"

/* see resolver_env.h */
int
cli_resolver_parse(const char *value, enum pfx_resolver *out)
{
	if (value == NULL || value[0] == '\0' || strcmp(value, "auto") == 0)
		*out = PFX_RESOLVER_AUTO;
	else if (strcmp(value, "walk") == 0)
		*out = PFX_RESOLVER_WALK;
	else if (strcmp(value, "openat2") == 0)
		*out = PFX_RESOLVER_OPENAT2;
	else
		return -1;
	return 0;
}
