/*
 * windows.c -- names that are harmless here but dangerous on Windows.
 *
 * Archives made for (or extracted on) Windows consumers can smuggle paths
 * that POSIX treats as ordinary bytes: '\' is a separator there, "C:x" is
 * relative to another drive, "\\host\share" reaches the network, "\\?\"
 * bypasses normalisation, "CON" or "nul.txt" open devices, "a. " and "a"
 * are the same file, and "a:b" writes an alternate data stream.  This file
 * recognises those forms; it is consulted only under PFX_POLICY_WINDOWS.
 *
 * The ACSL contracts are proved by Frama-C/WP (make prove): every read
 * stays inside IN, every loop ends, and nothing is written.
 */
#include "component.h"
#include "core.h"
#include "windows.h"

/*
 * The bytes Windows refuses in a name: the controls 0x01-0x1f, the
 * wildcards and redirections < > " | ? *, and ':' (a stream).
 */
/*@
  predicate win_forbidden(char c) = 0x01 <= (unsigned char)c <= 0x1f ||
    c == '<' || c == '>' || c == '"' || c == '|' || c == '?' || c == '*';
  predicate win_bad(char c) = win_forbidden(c) || c == ':';
*/

/*@
  assigns \nothing;
*/
static bool
is_sep(char c)
{
	return c == '/' || c == '\\';
}

/*@
  assigns \nothing;
  ensures 'a' <= c <= 'z' ==> \result == c - 'a' + 'A';
  ensures !('a' <= c <= 'z') ==> \result == c;
*/
static char
ascii_upper(char c)
{
	if (c >= 'a' && c <= 'z')
		return (char)(c - 'a' + 'A');
	return c;
}

/*@
  assigns \nothing;
*/
static bool
is_letter(char c)
{
	c = ascii_upper(c);
	return c >= 'A' && c <= 'Z';
}

/*
 * Does S (LEN bytes) equal WORD (WLEN bytes, upper case), ignoring ASCII
 * case?  WORD comes with its length, not as a C string, so that no read
 * depends on where a NUL is.
 */
/*@
  requires \valid_read(s + (0 .. len - 1));
  requires \valid_read(word + (0 .. wlen - 1));
  assigns \nothing;
*/
static bool
equal_nocase(const char *s, size_t len, const char *word, size_t wlen)
{
	size_t i;

	if (len != wlen)
		return false;
	/*@ loop invariant 0 <= i <= len;
	    loop assigns i;
	    loop variant len - i; */
	for (i = 0; i < len; i++) {
		if (ascii_upper(s[i]) != word[i])
			return false;
	}
	return true;
}

/*
 * Is the device-name stem S (LEN bytes) COMn or LPTn, with n a digit or
 * one of the superscript digits Windows also treats as devices?
 */
/*@
  requires \valid_read(s + (0 .. len - 1));
  assigns \nothing;
*/
static bool
is_port_name(const char *s, size_t len)
{
	if (len < 4)
		return false;
	if (!equal_nocase(s, 3, "COM", 3) && !equal_nocase(s, 3, "LPT", 3))
		return false;
	if (len == 4)
		return s[3] >= '0' && s[3] <= '9';
	/* U+00B9, U+00B2, U+00B3 in UTF-8. */
	return len == 5 && s[3] == '\xc2' &&
	    (s[4] == '\xb9' || s[4] == '\xb2' || s[4] == '\xb3');
}

/*
 * Is component C (LEN bytes) a reserved device name?  Windows ignores an
 * extension and trailing spaces: "NUL.txt" and "con .x" are devices too.
 */
/*@
  requires \valid_read(c + (0 .. len - 1));
  assigns \nothing;
*/
static bool
is_reserved(const char *c, size_t len)
{
	size_t stem;

	stem = 0;
	/*@ loop invariant 0 <= stem <= len;
	    loop assigns stem;
	    loop variant len - stem; */
	while (stem < len && c[stem] != '.')
		stem++;
	/*@ loop invariant 0 <= stem <= len;
	    loop assigns stem;
	    loop variant stem; */
	while (stem > 0 && c[stem - 1] == ' ')
		stem--;
	/* Each name comes with its length: no read looks for its NUL. */
	return equal_nocase(c, stem, "CON", 3) ||
	    equal_nocase(c, stem, "PRN", 3) ||
	    equal_nocase(c, stem, "AUX", 3) ||
	    equal_nocase(c, stem, "NUL", 3) ||
	    equal_nocase(c, stem, "CONIN$", 6) ||
	    equal_nocase(c, stem, "CONOUT$", 7) ||
	    is_port_name(c, stem);
}

/*@
  assigns \nothing;
  ensures \result <==> win_forbidden(c);
*/
static bool
is_forbidden_char(char c)
{
	unsigned char u = (unsigned char)c;

	return (u >= 0x01 && u <= 0x1f) || c == '<' || c == '>' ||
	    c == '"' || c == '|' || c == '?' || c == '*';
}

/*
 * Check one '/'-separated component, IN[START .. END), not "." or "..".
 * It is given by its bounds in IN, not as a pointer and length, so that
 * what the proof says about it names the same bytes as the caller's.
 */
/*@
  requires start < end;
  requires \valid_read(in + (start .. end - 1));
  assigns \nothing;
  ensures \result == PFX_R_NONE ||
    (PFX_R_WIN_RESERVED <= \result <= PFX_R_WIN_CHAR);
  ensures \result == PFX_R_NONE ==>
    \forall integer k; start <= k < end ==> !win_bad(in[k]);
*/
static enum pfx_reason
check_component(const char *in, size_t start, size_t end)
{
	size_t i;

	/*@ loop invariant start <= i <= end;
	    loop invariant \forall integer k; start <= k < i ==>
	      !win_forbidden(in[k]);
	    loop assigns i;
	    loop variant end - i; */
	for (i = start; i < end; i++) {
		if (is_forbidden_char(in[i]))
			return PFX_R_WIN_CHAR;
	}
	/*@ loop invariant start <= i <= end;
	    loop invariant \forall integer k; start <= k < i ==> in[k] != ':';
	    loop assigns i;
	    loop variant end - i; */
	for (i = start; i < end; i++) {
		if (in[i] == ':')
			return PFX_R_WIN_STREAM;
	}
	if (is_reserved(in + start, end - start))
		return PFX_R_WIN_RESERVED;
	if (in[end - 1] == '.' || in[end - 1] == ' ')
		return PFX_R_WIN_TRAILING;
	return PFX_R_NONE;
}

/*@
  requires \valid_read(c + (0 .. len - 1));
  assigns \nothing;
  ensures \result ==> (len == 1 || len == 2) && c[0] == '.' &&
    c[len - 1] == '.';
*/
static bool
is_dot_or_dotdot(const char *c, size_t len)
{
	return (len == 1 && c[0] == '.') ||
	    (len == 2 && c[0] == '.' && c[1] == '.');
}

/* Is IN (LEN bytes) a "\\?\", "\\.\", "//?/" or NT object "\??\" path? */
/*@
  requires \valid_read(in + (0 .. len - 1));
  assigns \nothing;
*/
static bool
is_device_path(const char *in, size_t len)
{
	if (len < 4)
		return false;
	if (is_sep(in[0]) && is_sep(in[1]) &&
	    (in[2] == '?' || in[2] == '.') && is_sep(in[3]))
		return true;
	return in[0] == '\\' && in[1] == '?' && in[2] == '?' &&
	    in[3] == '\\';
}

/*
 * The forms decided by the first bytes of IN (LEN bytes): device paths,
 * UNC prefixes and drive letters.
 */
/*@
  requires \valid_read(in + (0 .. len - 1));
  assigns \nothing;
  ensures \result == PFX_R_NONE ||
    (PFX_R_WIN_DRIVE <= \result <= PFX_R_WIN_DEVICE_PATH);
*/
static enum pfx_reason
check_prefix(const char *in, size_t len)
{
	if (is_device_path(in, len))
		return PFX_R_WIN_DEVICE_PATH;
	if (len >= 2 && is_sep(in[0]) && is_sep(in[1]))
		return PFX_R_WIN_UNC;
	if (len >= 2 && is_letter(in[0]) && in[1] == ':')
		return PFX_R_WIN_DRIVE;
	return PFX_R_NONE;
}

/*@
  requires \valid_read(in + (0 .. len - 1));
  assigns \nothing;
  ensures \result <==> \exists integer k; 0 <= k < len && in[k] == '\\';
*/
static bool
has_backslash(const char *in, size_t len)
{
	size_t i;

	/*@ loop invariant 0 <= i <= len;
	    loop invariant \forall integer k; 0 <= k < i ==> in[k] != '\\';
	    loop assigns i;
	    loop variant len - i; */
	for (i = 0; i < len; i++) {
		if (in[i] == '\\')
			return true;
	}
	return false;
}

/*
 * Check each '/'-separated component of IN (LEN bytes) in turn; "." and
 * ".." are left to normalisation.
 */
/*@
  requires \valid_read(in + (0 .. len - 1));
  assigns \nothing;
  ensures \result == PFX_R_NONE ||
    (PFX_R_WIN_RESERVED <= \result <= PFX_R_WIN_CHAR);
  ensures \result == PFX_R_NONE ==>
    \forall integer k; 0 <= k < len ==> !win_bad(in[k]);
*/
static enum pfx_reason
check_components(const char *in, size_t len)
{
	enum pfx_reason r;
	size_t i, start;

	i = 0;
	/*@ loop invariant 0 <= i <= len;
	    loop invariant \forall integer k; 0 <= k < i ==> !win_bad(in[k]);
	    loop assigns i, start, r;
	    loop variant len - i; */
	while (i < len) {
		start = core_next_component(in, len, &i);
		if (i == start || is_dot_or_dotdot(in + start, i - start))
			continue;
		r = check_component(in, start, i);
		if (r != PFX_R_NONE)
			return r;
	}
	return PFX_R_NONE;
}

/* see windows.h */
/*@
  requires \valid_read(in + (0 .. len - 1));
  assigns \nothing;
  ensures \result == PFX_R_NONE ||
    (PFX_R_WIN_BACKSLASH <= \result <= PFX_R_WIN_CHAR);
  ensures \result == PFX_R_WIN_BACKSLASH ==>
    \exists integer k; 0 <= k < len && in[k] == '\\';
  ensures \result == PFX_R_NONE ==>
    \forall integer k; 0 <= k < len ==> in[k] != '\\' && !win_bad(in[k]);
*/
enum pfx_reason
core_windows_check(const char *in, size_t len)
{
	enum pfx_reason r;

	r = check_prefix(in, len);
	if (r != PFX_R_NONE)
		return r;
	if (has_backslash(in, len))
		return PFX_R_WIN_BACKSLASH;
	return check_components(in, len);
}
