/*
 * check.h -- what the decision (check.c) exports besides pfx_path.h:
 * nothing else of the core calls it.
 */
#ifndef CORE_CHECK_H
#define CORE_CHECK_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Is PATH (PLEN bytes, normalised absolute) equal to or beneath DIR (DLEN
 * bytes, normalised absolute), by whole components?
 */
bool core_is_beneath(const char *path, size_t plen, const char *dir,
    size_t dlen);

#endif /* CORE_CHECK_H */
