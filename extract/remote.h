/*
 * remote.h -- the parent's side of the decoder process (remote.c).
 */
#ifndef XTR_REMOTE_H
#define XTR_REMOTE_H

#include "extract.h"

struct xtr_remote;

/*
 * Fork the decoder process for IN, its decoders given DEC_FLAGS
 * (xtr_child_main).  Return: 0 with *OUT set, or -1 with RES the fatal
 * error.  Its confinement report is then awaited by xtr_remote_confined(),
 * so that this process can confine itself meanwhile.
 */
int xtr_remote_start(struct xtr_remote **out, const struct pfx_input *in,
    const struct pfx_options *opt, unsigned int dec_flags,
    unsigned int cpus, struct pfx_result *res);

/* Wait for the started process's confinement report (RES->sandbox).
 * Return: 0, or -1 with RES the fatal error. */
int xtr_remote_confined(struct xtr_remote *rm,
    const struct pfx_options *opt, struct pfx_result *res);

/* The same over FD (owned), with no process: WHO sends (NULL: "the
 * decoder process"), as messages name it. */
int xtr_remote_open_fd(struct xtr_remote **out, int fd, const char *who,
    const struct pfx_options *opt, struct pfx_result *res);

int xtr_remote_next(struct xtr_remote *rm, struct archive_entry *ae);
/* What the ARCHIVE_WARN xtr_remote_next() returned was. */
enum xtr_header_warn xtr_remote_warning(const struct xtr_remote *rm);
int xtr_remote_data(struct xtr_remote *rm, const void **buf, size_t *size,
    int64_t *offset);
int xtr_remote_format(const struct xtr_remote *rm);
uint64_t xtr_remote_raw(const struct xtr_remote *rm);
/* The bytes the child sent: every message taken, head and body, and the
 * ring blocks they placed. */
uint64_t xtr_remote_sent(const struct xtr_remote *rm);
int64_t xtr_remote_header_pos(const struct xtr_remote *rm);
uint64_t xtr_remote_archive_bytes(const struct xtr_remote *rm);
bool xtr_remote_sparse(const struct xtr_remote *rm);
/* The archive's first bytes the child sent (wire.h LABEL), or NULL. */
const struct xtr_head *xtr_remote_head(const struct xtr_remote *rm);
const char *xtr_remote_error(const struct xtr_remote *rm, int *error,
    bool *channel);

/*
 * End the decoder process and every process in its group, and reap it,
 * within bounded time.  Return: 0, or -errno with MSG (CAP bytes) saying
 * how it misbehaved (it lingered after its END, failed, or would not
 * die).
 */
int xtr_remote_stop(struct xtr_remote *rm, char *msg, size_t cap);

/* Stop (if not yet) and free RM (NULL allowed). */
void xtr_remote_free(struct xtr_remote *rm);

/* The oldest NOTE or SKIP not yet taken (xtr_volumes_note()): its name,
 * and its *KIND (notes.h); else NULL. */
const char *xtr_remote_note(struct xtr_remote *rm, int *kind);

#endif /* XTR_REMOTE_H */
