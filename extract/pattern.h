/*
 * pattern.h -- the patterns of member selection (pattern.c).
 */
#ifndef XTR_PATTERN_H
#define XTR_PATTERN_H

#include "extract.h"

/* xtr_glob() flags. */
#define XTR_GLOB_TAIL	0x1u	/* match NAME or any part after a '/' */
#define XTR_GLOB_WHOLE	0x2u	/* NAME whole (but for trailing '/'s),
				   not a leading directory of it */
#define XTR_GLOB_FOLD	0x4u	/* ASCII case does not count
				   (fnmatch's FNM_CASEFOLD) */
#define XTR_GLOB_NOSLASH 0x8u	/* '*', '?' and [...] never match '/'
				   (FNM_PATHNAME) */
#define XTR_GLOB_TRIM	0x10u	/* NAME's trailing '/'s are not part of
				   it, as in GNU tar ("d/" is "d") */
#define XTR_GLOB_POSIX	0x20u	/* '^' after '[' is no negation (glibc's
				   fnmatch under POSIXLY_CORRECT) */

/*
 * Does the pattern PAT match NAME, as fnmatch(PAT, NAME, FNM_LEADING_DIR)
 * would in glibc's single-byte path ("a*" also matches "ab/c")?  Under
 * XTR_GLOB_TAIL, does it match NAME or any part of NAME after a '/'?
 * Adds to *WORK (if WORK is not NULL) the number of pattern elements
 * compared with a byte of NAME: at most (n + 1) * (m + 1) for a name of
 * n bytes and a pattern of m, XTR_GLOB_TAIL or not -- (n + 1) * (m + 1) *
 * (s + 1) under XTR_GLOB_TAIL and XTR_GLOB_NOSLASH, for a pattern of s
 * slashes.
 */
bool xtr_glob(const char *pat, const char *name, unsigned int flags,
    uint64_t *work);

/* XTR_GLOB_POSIX if OPT asks for it (PFX_OPT_POSIX_GLOB), else 0. */
unsigned int xtr_glob_posix(const struct pfx_options *opt);

#endif /* XTR_PATTERN_H */
