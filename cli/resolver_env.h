/*
 * resolver_env.h -- how the tools let a user force a resolver:
 * PFEXTRACT_RESOLVER=walk, =openat2 or =auto (the default when unset).
 * The library itself never reads the environment.
 */
#ifndef CLI_RESOLVER_ENV_H
#define CLI_RESOLVER_ENV_H

#include "../platform/pfx_root.h"

#define RESOLVER_ENV "PFEXTRACT_RESOLVER"

/*
 * Parse VALUE (NULL or "" means unset) into *OUT.
 * Return: 0, or -1 if VALUE names no resolver.
 */
int cli_resolver_parse(const char *value, enum pfx_resolver *out);

#endif /* CLI_RESOLVER_ENV_H */
