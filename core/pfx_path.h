/*
 * pfx_path.h -- the pfextract decision core: may this path be used?
 *
 * Conventions.  Pure functions: no I/O, no allocation, no global state, no
 * errno.  Every string is given as a pointer and an explicit length; it need
 * not be NUL-terminated and may contain any byte (a NUL byte inside the
 * length is an answer, "nul", not undefined behaviour).  Pointer arguments
 * MUST NOT be NULL unless the length beside them is 0.  Results are written
 * into caller-owned storage.  The core is lexical: it never looks at the
 * filesystem, so "allow" means "this name, taken literally, stays beneath a
 * root".  Symlinks and races on disk are the platform layer's job
 * (pfx_root.h).
 *
 * The question.  Given a policy -- allowed roots, and denied directories --
 * and one requested path, the core answers:
 *   PFX_ALLOW   the normalised absolute path, the root it is under, and the
 *               path relative to that root;
 *   PFX_DENY    the normalised path is outside every allowed root
 *               (PFX_R_OUTSIDE) or inside a denied directory (PFX_R_DENIED);
 *   PFX_REJECT  the request is malformed or hostile, with a reason from the
 *               closed set enum pfx_reason.
 *
 * Normalisation.  Components are separated by '/'; empty components ("//")
 * and "." vanish; ".." removes the previous component.  A ".." that would
 * climb above its base -- "/" for an absolute path, the first allowed root
 * for a relative one -- is rejected (PFX_R_ESCAPES), never clamped.  Root
 * and deny matching is by whole components: /tmp/a_b is not under /tmp/a.
 * Deny always wins over allow.  Among several allowed roots the first one,
 * in policy order, that contains the path is reported.
 */
#ifndef PFX_PATH_H
#define PFX_PATH_H

#include <stddef.h>

#ifndef PFX_API
#define PFX_API __attribute__((visibility("default")))
#endif

/*
 * PFX_PATH_MAX is Linux's PATH_MAX, which counts the terminating NUL: a
 * normalised path, input or output, may hold at most PFX_PATH_MAX - 1
 * bytes.  PFX_NAME_MAX is the longest component in bytes (NAME_MAX).
 */
#define PFX_PATH_MAX 4096
#define PFX_NAME_MAX 255

enum pfx_decision {
	PFX_ALLOW = 0,
	PFX_DENY = 1,
	PFX_REJECT = 2
};

/*
 * Reasons.  The set is closed; pfx_reason_name() gives the stable string
 * used by pathfence(1) and pfextract's JSON report.  The PFX_R_WIN_* reasons
 * are only ever returned under PFX_POLICY_WINDOWS.
 */
enum pfx_reason {
	PFX_R_NONE = 0,		/* "none": the path is allowed */
	PFX_R_OUTSIDE,		/* "outside": under no allowed root (deny) */
	PFX_R_DENIED,		/* "denied": under a denied directory (deny) */
	PFX_R_EMPTY,		/* "empty": zero-length request */
	PFX_R_NUL,		/* "nul": a NUL byte inside the request */
	PFX_R_TOO_LONG,		/* "too_long": a path over PFX_PATH_MAX - 1
				   bytes (the input, or the input joined to
				   its base at any point of normalisation)
				   or a component over PFX_NAME_MAX bytes */
	PFX_R_ESCAPES,		/* "escapes": ".." climbs above its base */
	PFX_R_RELATIVE,		/* "relative": relative request, no root */
	PFX_R_WIN_BACKSLASH,	/* "backslash": '\' is a separator there */
	PFX_R_WIN_DRIVE,	/* "drive": "C:", "C:..", "C:\x" */
	PFX_R_WIN_UNC,		/* "unc": "\\server\share", "//server" */
	PFX_R_WIN_DEVICE_PATH,	/* "device_path": "\\?\", "\\.\", "//?/" */
	PFX_R_WIN_RESERVED,	/* "reserved_name": CON, NUL.txt, COM1 ... */
	PFX_R_WIN_TRAILING,	/* "trailing_dot_space": "a.", "a " */
	PFX_R_WIN_STREAM,	/* "stream": ':' (alternate data stream) */
	PFX_R_WIN_CHAR,		/* "invalid_char": < > " | ? * or 0x01-0x1f */
	PFX_R_COUNT_
};

/* A string with its length.  It need not be NUL-terminated. */
struct pfx_span {
	const char *ptr;
	size_t len;
};

/* Policy flags. */
#define PFX_POLICY_WINDOWS 0x1u	/* also reject forms dangerous on Windows */

/*
 * A policy.  Each allowed root and denied directory MUST already be a
 * normalised absolute path: pfx_path_normalize() with no base produces one.
 * The arrays are borrowed for the duration of a call.
 */
struct pfx_policy {
	const struct pfx_span *allow;
	size_t nallow;
	const struct pfx_span *deny;
	size_t ndeny;
	unsigned int flags;
};

/*
 * A verdict.  For PFX_ALLOW and PFX_DENY, path[0 .. path_len) is the
 * normalised absolute path and path[path_len] is NUL.  For PFX_ALLOW,
 * root is the index of the allowed root in policy order and the relative
 * path is path + rel_off, rel_len bytes (rel_len is 0 when the path is the
 * root itself).  For PFX_DENY with PFX_R_DENIED, root is the index of the
 * denied directory.  For PFX_REJECT only decision and reason are set,
 * and path_len is 0.
 */
struct pfx_verdict {
	enum pfx_decision decision;
	enum pfx_reason reason;
	size_t root;
	size_t path_len;
	size_t rel_off;
	size_t rel_len;
	char path[PFX_PATH_MAX];
};

/*
 * Decide on the request IN (LEN bytes) under POLICY; the answer goes to
 * *OUT, which is always fully written.  Relative requests are taken against
 * policy->allow[0]; with no allowed root they are rejected (PFX_R_RELATIVE).
 * Checks run in this order and the first failure is the reason: empty, nul,
 * too_long (input), the Windows forms (if enabled), then normalisation
 * (escapes, too_long), then deny lists, then allowed roots.
 * Return: out->decision.
 */
PFX_API enum pfx_decision pfx_path_check(const struct pfx_policy *policy,
    const char *in, size_t len, struct pfx_verdict *out);

/*
 * Normalise IN (LEN bytes) into BUF (CAP bytes, NUL-terminated on success).
 * An absolute IN is normalised against "/"; a relative IN is appended to
 * BASE (BASE_LEN bytes, a normalised absolute path), and ".." may not climb
 * above BASE.  With no base (BASE_LEN 0) a relative IN is rejected
 * (PFX_R_RELATIVE).  FLAGS are policy flags (PFX_POLICY_WINDOWS).
 * Return: PFX_R_NONE and *OUT_LEN set, or the reason it was rejected.
 */
PFX_API enum pfx_reason pfx_path_normalize(const char *in, size_t len,
    const char *base, size_t base_len, unsigned int flags, char *buf,
    size_t cap, size_t *out_len);

/* Return: the stable name of DECISION ("allow", "deny", "reject"). */
PFX_API const char *pfx_decision_name(enum pfx_decision decision);

/* Return: the stable name of REASON, or "unknown" outside the set. */
PFX_API const char *pfx_reason_name(enum pfx_reason reason);

#endif /* PFX_PATH_H */
