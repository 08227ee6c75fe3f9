/*
 * windows.c -- names that are harmless here but dangerous on Windows.
 *
 * Archives made for (or extracted on) Windows consumers can smuggle paths
 * that POSIX treats as ordinary bytes: '\' is a separator there, "C:x" is
 * relative to another drive, "\\host\share" reaches the network, "\\?\"
 * bypasses normalisation, "CON" or "nul.txt" open devices, "a. " and "a"
 * are the same file, and "a:b" writes an alternate data stream.  This file
 * recognises those forms; it is consulted only under PFX_POLICY_WINDOWS.
 */
#include "core.h"

static bool
is_sep(char c)
{
	return c == '/' || c == '\\';
}

static char
ascii_upper(char c)
{
	if (c >= 'a' && c <= 'z')
		return (char)(c - 'a' + 'A');
	return c;
}

static bool
is_letter(char c)
{
	c = ascii_upper(c);
	return c >= 'A' && c <= 'Z';
}

/* Does S (LEN bytes) equal WORD, ignoring ASCII case? */
static bool
equal_nocase(const char *s, size_t len, const char *word)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (word[i] == '\0' || ascii_upper(s[i]) != word[i])
			return false;
	}
	return word[len] == '\0';
}

/*
 * Is the device-name stem S (LEN bytes) COMn or LPTn, with n a digit or
 * one of the superscript digits Windows also treats as devices?
 */
static bool
is_port_name(const char *s, size_t len)
{
	if (len < 4)
		return false;
	if (!equal_nocase(s, 3, "COM") && !equal_nocase(s, 3, "LPT"))
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
static bool
is_reserved(const char *c, size_t len)
{
	static const char *const names[] = {
		"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"
	};
	size_t stem, i;

	stem = 0;
	while (stem < len && c[stem] != '.')
		stem++;
	while (stem > 0 && c[stem - 1] == ' ')
		stem--;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (equal_nocase(c, stem, names[i]))
			return true;
	}
	return is_port_name(c, stem);
}

static bool
is_forbidden_char(char c)
{
	unsigned char u = (unsigned char)c;

	return (u >= 0x01 && u <= 0x1f) || c == '<' || c == '>' ||
	    c == '"' || c == '|' || c == '?' || c == '*';
}

/* Check one '/'-separated component C (LEN bytes, not "." or ".."). */
static enum pfx_reason
check_component(const char *c, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (is_forbidden_char(c[i]))
			return PFX_R_WIN_CHAR;
	}
	for (i = 0; i < len; i++) {
		if (c[i] == ':')
			return PFX_R_WIN_STREAM;
	}
	if (is_reserved(c, len))
		return PFX_R_WIN_RESERVED;
	if (c[len - 1] == '.' || c[len - 1] == ' ')
		return PFX_R_WIN_TRAILING;
	return PFX_R_NONE;
}

static bool
is_dot_or_dotdot(const char *c, size_t len)
{
	return (len == 1 && c[0] == '.') ||
	    (len == 2 && c[0] == '.' && c[1] == '.');
}

/* see core.h */
enum pfx_reason
core_windows_check(const char *in, size_t len)
{
	enum pfx_reason r;
	size_t i, start;

	/* "\\?\", "\\.\", "//?/", and the NT object prefix "\??\". */
	if (len >= 4 && is_sep(in[0]) && is_sep(in[1]) &&
	    (in[2] == '?' || in[2] == '.') && is_sep(in[3]))
		return PFX_R_WIN_DEVICE_PATH;
	if (len >= 4 && in[0] == '\\' && in[1] == '?' && in[2] == '?' &&
	    in[3] == '\\')
		return PFX_R_WIN_DEVICE_PATH;
	if (len >= 2 && is_sep(in[0]) && is_sep(in[1]))
		return PFX_R_WIN_UNC;
	if (len >= 2 && is_letter(in[0]) && in[1] == ':')
		return PFX_R_WIN_DRIVE;
	for (i = 0; i < len; i++) {
		if (in[i] == '\\')
			return PFX_R_WIN_BACKSLASH;
	}
	i = 0;
	while (i < len) {
		start = core_next_component(in, len, &i);
		if (i == start || is_dot_or_dotdot(in + start, i - start))
			continue;
		r = check_component(in + start, i - start);
		if (r != PFX_R_NONE)
			return r;
	}
	return PFX_R_NONE;
}
