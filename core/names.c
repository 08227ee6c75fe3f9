/*
 * names.c -- the stable strings of decisions and reasons.  These names are
 * an interface (pathfence(1) JSON, pfextract --report=json): never rename
 * one, only add.
 */
#include "core.h"

/* see pfx_path.h */
/*@
  assigns \nothing;
  ensures \valid_read(\result);
*/
const char *
pfx_decision_name(enum pfx_decision decision)
{
	switch (decision) {
	case PFX_ALLOW:
		return "allow";
	case PFX_DENY:
		return "deny";
	case PFX_REJECT:
		return "reject";
	}
	return "unknown";
}

/* see pfx_path.h */
/*@
  assigns \nothing;
  ensures \valid_read(\result);
*/
const char *
pfx_reason_name(enum pfx_reason reason)
{
	static const char *const names[PFX_R_COUNT_] = {
		[PFX_R_NONE] = "none",
		[PFX_R_OUTSIDE] = "outside",
		[PFX_R_DENIED] = "denied",
		[PFX_R_EMPTY] = "empty",
		[PFX_R_NUL] = "nul",
		[PFX_R_TOO_LONG] = "too_long",
		[PFX_R_ESCAPES] = "escapes",
		[PFX_R_RELATIVE] = "relative",
		[PFX_R_WIN_BACKSLASH] = "backslash",
		[PFX_R_WIN_DRIVE] = "drive",
		[PFX_R_WIN_UNC] = "unc",
		[PFX_R_WIN_DEVICE_PATH] = "device_path",
		[PFX_R_WIN_RESERVED] = "reserved_name",
		[PFX_R_WIN_TRAILING] = "trailing_dot_space",
		[PFX_R_WIN_STREAM] = "stream",
		[PFX_R_WIN_CHAR] = "invalid_char",
	};

	if ((unsigned int)reason >= PFX_R_COUNT_)
		return "unknown";
	return names[reason];
}
