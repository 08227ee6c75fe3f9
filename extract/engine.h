/*
 * engine.h -- the extraction engine: one run, entry by entry (engine.c).
 */
#ifndef XTR_ENGINE_H
#define XTR_ENGINE_H

#include "extract.h"

/*
 * PFX_OPT_SANDBOX (else nothing): confine the calling process to DESTFD,
 * or to no destination when DESTFD is -1 (listing).  Called once the
 * decoder process runs (it was forked first, so that this process may
 * still signal it) and before the first entry is read.  Fills INFO; on
 * failure sets RES's status, error and message.  Return: 0, or -1 (the
 * run must stop).
 */
int xtr_confine(const struct pfx_options *opt, int destfd,
    struct pfx_sandbox_info *info, struct pfx_result *res);

/*
 * pfx_extract() without PFX_OPT_ATOMIC: extract beneath DEST, resolved
 * from DIRFD, as it is.  Return: RESULT->status.
 */
enum pfx_status xtr_extract(const struct xtr_in *src, int dirfd,
    const char *dest, const struct pfx_options *opt,
    struct pfx_result *result);

/*
 * xtr_extract() reading entries from FD (owned), which carries the
 * decoder process's messages (wire.h), with no child: the fuzzer's and
 * the tests' way to play a hostile decoder.  Return: RESULT->status.
 */
enum pfx_status xtr_extract_wire(int fd, int dirfd, const char *dest,
    const struct pfx_options *opt, struct pfx_result *result);

/*
 * pfx_extract() with PFX_OPT_ATOMIC over a populated destination DEST:
 * every name beside its own until the archive is read whole (journal.c).
 */
enum pfx_status xtr_extract_journaled(const struct xtr_in *src, int dirfd,
    const char *dest, const struct pfx_options *opt,
    struct pfx_result *result);

#endif /* XTR_ENGINE_H */
