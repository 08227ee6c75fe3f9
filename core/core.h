/*
 * core.h -- internals shared by the files of the decision core.
 * Nothing here is exported; see pfx_path.h for the contract.
 */
#ifndef CORE_H
#define CORE_H

#include <stdbool.h>
#include <stddef.h>

#include "pfx_path.h"
#include "spec.h"

/*
 * Check IN (LEN bytes) for the forms that are dangerous when the name is
 * later used on Windows: device paths, UNC prefixes, drive letters,
 * backslashes, reserved device names, trailing dots and spaces, ':' streams
 * and characters Windows forbids.
 * Return: PFX_R_NONE, or the first PFX_R_WIN_* reason found.
 */
enum pfx_reason core_windows_check(const char *in, size_t len);

/*
 * Find the next '/'-separated component of IN (LEN bytes) at or after
 * *POS: separators are skipped, the component's first byte is returned
 * and *POS is left just past its last.  At the end the component is
 * empty (*POS - start == 0).
 */
size_t core_next_component(const char *in, size_t len, size_t *pos);

/*
 * Is PATH (PLEN bytes, normalised absolute) equal to or beneath DIR (DLEN
 * bytes, normalised absolute), by whole components?
 */
bool core_is_beneath(const char *path, size_t plen, const char *dir,
    size_t dlen);

#endif /* CORE_H */
