/*
 * windows.h -- the names dangerous on Windows (windows.c), for the
 * normalisation above it (normalize.c).
 */
#ifndef CORE_WINDOWS_H
#define CORE_WINDOWS_H

#include <stddef.h>

#include "pfx_path.h"

/*
 * Check IN (LEN bytes) for the forms that are dangerous when the name is
 * later used on Windows: device paths, UNC prefixes, drive letters,
 * backslashes, reserved device names, trailing dots and spaces, ':' streams
 * and characters Windows forbids.
 * Return: PFX_R_NONE, or the first PFX_R_WIN_* reason found.
 */
enum pfx_reason core_windows_check(const char *in, size_t len);

#endif /* CORE_WINDOWS_H */
