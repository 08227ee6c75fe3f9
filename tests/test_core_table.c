/*
 * test_core_table.c -- example tests of the decision core (pfx_path.h).
 *
 * One named row per case: the row gives a policy, the requested bytes and
 * the whole expected verdict.  The table runs as a ParameterizedTest over
 * row indices, so every row is its own test process and every failure
 * message starts with the row's name.  Cases that need inputs too long to
 * write as literals (the PFX_PATH_MAX and PFX_NAME_MAX boundaries) and the
 * direct tests of pfx_path_normalize() and the name functions follow the
 * table as ordinary Tests.
 */
#include <stddef.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "../core/pfx_path.h"

/* A string literal as pointer and length; the literal may hold NULs. */
#define IN(s)	(s), sizeof(s) - 1

/* The allowed root of the reference cases. */
#define R	"/tmp/allowed_dir"

/* allow = ["/tmp/allowed_dir"], the policy of the reference cases. */
static const struct pfx_span ref_allow[] = {
	{ IN(R) }
};
static const struct pfx_policy pol_ref = {
	ref_allow, 1, NULL, 0, 0
};

/* The same policy, with the Windows forms also rejected. */
static const struct pfx_policy pol_win = {
	ref_allow, 1, NULL, 0, PFX_POLICY_WINDOWS
};

/* Several roots, the most specific first; relative requests use "/srv/a". */
static const struct pfx_span multi_allow[] = {
	{ IN("/srv/a") },
	{ IN("/srv") },
	{ IN(R) }
};
static const struct pfx_policy pol_multi = {
	multi_allow, 3, NULL, 0, 0
};

/* Nested roots, the least specific first: the first match is reported. */
static const struct pfx_span order_allow[] = {
	{ IN("/srv") },
	{ IN("/srv/a") }
};
static const struct pfx_policy pol_order = {
	order_allow, 2, NULL, 0, 0
};

/* The root "/": everything absolute is allowed. */
static const struct pfx_span slash_allow[] = {
	{ IN("/") }
};
static const struct pfx_policy pol_slash = {
	slash_allow, 1, NULL, 0, 0
};

/* Two denied directories beneath the root; "secret" is deny index 1. */
static const struct pfx_span deny_list[] = {
	{ IN(R "/other") },
	{ IN(R "/secret") }
};
static const struct pfx_policy pol_deny = {
	ref_allow, 1, deny_list, 2, 0
};

/* A denied directory outside every allowed root. */
static const struct pfx_span deny_etc[] = {
	{ IN("/etc") }
};
static const struct pfx_policy pol_deny_etc = {
	ref_allow, 1, deny_etc, 1, 0
};

/* The allowed root is itself denied: deny wins. */
static const struct pfx_policy pol_deny_root = {
	ref_allow, 1, ref_allow, 1, 0
};

/* No allowed root at all, with and without a deny list. */
static const struct pfx_policy pol_none = {
	NULL, 0, NULL, 0, 0
};
static const struct pfx_span deny_x[] = {
	{ IN("/x") }
};
static const struct pfx_policy pol_none_deny = {
	NULL, 0, deny_x, 1, 0
};

/*
 * One case.  PATH is the expected normalised path (NULL for a reject).
 * ROOT is checked for PFX_ALLOW and for PFX_DENY with PFX_R_DENIED; REL,
 * the expected relative part, only for PFX_ALLOW.
 */
struct check_row {
	const char *name;
	const struct pfx_policy *policy;
	const char *in;
	size_t len;
	enum pfx_decision decision;
	enum pfx_reason reason;
	const char *path;
	size_t root;
	const char *rel;
};

#define ALLOW(name, pol, s, path, root, rel) \
	{ (name), (pol), IN(s), PFX_ALLOW, PFX_R_NONE, (path), (root), (rel) }
#define DENY(name, pol, s, why, path, root) \
	{ (name), (pol), IN(s), PFX_DENY, (why), (path), (root), NULL }
#define REJECT(name, pol, s, why) \
	{ (name), (pol), IN(s), PFX_REJECT, (why), NULL, 0, NULL }

static const struct check_row rows[] = {
	/* The three reference cases. */
	DENY("ref_sibling_prefix", &pol_ref, R "_malicious/secret",
	    PFX_R_OUTSIDE, R "_malicious/secret", 0),
	REJECT("ref_dotdot_first", &pol_ref, "../x", PFX_R_ESCAPES),
	ALLOW("ref_dotdot_inside", &pol_ref, "a/../b", R "/b", 0, "b"),

	/* Normalisation. */
	DENY("norm_double_slash", &pol_ref, "//", PFX_R_OUTSIDE, "/", 0),
	ALLOW("norm_dot", &pol_ref, ".", R, 0, ""),
	ALLOW("norm_trailing_slash", &pol_ref, "a/", R "/a", 0, "a"),
	ALLOW("norm_abs_trailing_slash", &pol_ref, R "/x/", R "/x", 0, "x"),
	ALLOW("norm_dot_and_doubles", &pol_ref, "a/./b//c/", R "/a/b/c", 0,
	    "a/b/c"),
	ALLOW("norm_root_itself", &pol_ref, R, R, 0, ""),
	ALLOW("norm_root_slash", &pol_ref, R "/", R, 0, ""),
	ALLOW("norm_root_slash_dot", &pol_ref, R "/./", R, 0, ""),
	DENY("norm_slash", &pol_ref, "/", PFX_R_OUTSIDE, "/", 0),
	REJECT("norm_slash_dotdot", &pol_ref, "/..", PFX_R_ESCAPES),
	REJECT("norm_tmp_up_up", &pol_ref, "/tmp/../..", PFX_R_ESCAPES),
	REJECT("norm_up_past_base", &pol_ref, "a/../../x", PFX_R_ESCAPES),
	REJECT("norm_dot_up", &pol_ref, "./../x", PFX_R_ESCAPES),
	REJECT("norm_up_three", &pol_ref, "a/b/../../..", PFX_R_ESCAPES),
	REJECT("norm_dotdot_alone", &pol_ref, "..", PFX_R_ESCAPES),
	REJECT("norm_no_clamp", &pol_ref, "/../tmp/allowed_dir",
	    PFX_R_ESCAPES),
	ALLOW("norm_up_to_base", &pol_ref, "a/b/../..", R, 0, ""),
	ALLOW("norm_out_and_back", &pol_ref, R "/../allowed_dir/x", R "/x", 0,
	    "x"),
	ALLOW("norm_out_and_back_deep", &pol_ref,
	    R "/a/../../allowed_dir/b", R "/b", 0, "b"),
	DENY("norm_up_from_root", &pol_ref, R "/..", PFX_R_OUTSIDE, "/tmp",
	    0),
	ALLOW("norm_dots_everywhere", &pol_ref, "/tmp/./allowed_dir//y/.",
	    R "/y", 0, "y"),
	DENY("norm_many_slashes", &pol_ref, "////x", PFX_R_OUTSIDE, "/x", 0),
	ALLOW("norm_three_dots_is_a_name", &pol_ref, "...", R "/...", 0,
	    "..."),
	ALLOW("norm_dotdot_prefix_is_a_name", &pol_ref, "..a/.b",
	    R "/..a/.b", 0, "..a/.b"),
	ALLOW("norm_any_byte", &pol_ref, "\xff\xfe/\x7f", R "/\xff\xfe/\x7f",
	    0, "\xff\xfe/\x7f"),

	/* Empty and NUL. */
	REJECT("empty", &pol_ref, "", PFX_R_EMPTY),
	REJECT("nul_inside", &pol_ref, "a\0b", PFX_R_NUL),
	REJECT("nul_alone", &pol_ref, "\0", PFX_R_NUL),
	REJECT("nul_at_end", &pol_ref, R "/\0", PFX_R_NUL),
	REJECT("nul_before_escapes", &pol_ref, "../\0", PFX_R_NUL),
	REJECT("nul_before_relative", &pol_none, "x\0", PFX_R_NUL),
	REJECT("empty_no_root", &pol_none, "", PFX_R_EMPTY),

	/* Roots and deny lists match whole components. */
	DENY("whole_component_longer", &pol_ref, R "x", PFX_R_OUTSIDE, R "x",
	    0),
	DENY("whole_component_shorter", &pol_ref, "/tmp/allowed_di",
	    PFX_R_OUTSIDE, "/tmp/allowed_di", 0),
	DENY("whole_component_parent", &pol_ref, "/tmp", PFX_R_OUTSIDE,
	    "/tmp", 0),

	/* Several roots: the first one in policy order that contains it. */
	ALLOW("multi_first", &pol_multi, "/srv/a/x", "/srv/a/x", 0, "x"),
	ALLOW("multi_second", &pol_multi, "/srv/b", "/srv/b", 1, "b"),
	ALLOW("multi_second_whole_component", &pol_multi, "/srv/ab",
	    "/srv/ab", 1, "ab"),
	ALLOW("multi_second_itself", &pol_multi, "/srv", "/srv", 1, ""),
	ALLOW("multi_third", &pol_multi, R "/z", R "/z", 2, "z"),
	ALLOW("multi_relative_uses_first", &pol_multi, "x", "/srv/a/x", 0,
	    "x"),
	REJECT("multi_relative_base_is_first", &pol_multi, "../b",
	    PFX_R_ESCAPES),
	DENY("multi_outside", &pol_multi, "/etc/passwd", PFX_R_OUTSIDE,
	    "/etc/passwd", 0),
	ALLOW("order_first_not_most_specific", &pol_order, "/srv/a/x",
	    "/srv/a/x", 0, "a/x"),

	/* The root "/". */
	ALLOW("slash_root_itself", &pol_slash, "/", "/", 0, ""),
	ALLOW("slash_root_abs", &pol_slash, "/etc/passwd", "/etc/passwd", 0,
	    "etc/passwd"),
	ALLOW("slash_root_relative", &pol_slash, "x", "/x", 0, "x"),
	ALLOW("slash_root_doubles", &pol_slash, "//a//b/", "/a/b", 0, "a/b"),
	ALLOW("slash_root_dot", &pol_slash, ".", "/", 0, ""),
	REJECT("slash_root_relative_up", &pol_slash, "..", PFX_R_ESCAPES),
	REJECT("slash_root_abs_up", &pol_slash, "/..", PFX_R_ESCAPES),

	/* Deny lists. */
	DENY("deny_inside", &pol_deny, R "/secret/key", PFX_R_DENIED,
	    R "/secret/key", 1),
	DENY("deny_inside_relative", &pol_deny, "secret/key", PFX_R_DENIED,
	    R "/secret/key", 1),
	DENY("deny_dir_itself", &pol_deny, R "/secret", PFX_R_DENIED,
	    R "/secret", 1),
	DENY("deny_dir_itself_slash", &pol_deny, "secret/", PFX_R_DENIED,
	    R "/secret", 1),
	DENY("deny_first_entry", &pol_deny, "other", PFX_R_DENIED, R "/other",
	    0),
	DENY("deny_after_dotdot", &pol_deny, "x/../secret/./k", PFX_R_DENIED,
	    R "/secret/k", 1),
	ALLOW("deny_sibling_longer", &pol_deny, R "/secretx", R "/secretx", 0,
	    "secretx"),
	ALLOW("deny_sibling_shorter", &pol_deny, R "/secre", R "/secre", 0,
	    "secre"),
	ALLOW("deny_left_again", &pol_deny, "secret/../x", R "/x", 0, "x"),
	DENY("deny_outside_not_denied", &pol_deny, "/etc", PFX_R_OUTSIDE,
	    "/etc", 0),
	DENY("deny_outside_root", &pol_deny_etc, "/etc/passwd", PFX_R_DENIED,
	    "/etc/passwd", 0),
	DENY("deny_wins_over_allow", &pol_deny_root, "x", PFX_R_DENIED,
	    R "/x", 0),
	DENY("deny_wins_root_itself", &pol_deny_root, R, PFX_R_DENIED, R, 0),

	/* No allowed root. */
	REJECT("relative_no_root", &pol_none, "x", PFX_R_RELATIVE),
	REJECT("relative_no_root_dot", &pol_none, "./x", PFX_R_RELATIVE),
	REJECT("relative_no_root_dotdot", &pol_none, "..", PFX_R_RELATIVE),
	DENY("absolute_no_root", &pol_none, "/x", PFX_R_OUTSIDE, "/x", 0),
	DENY("absolute_no_root_denied", &pol_none_deny, "/x/y", PFX_R_DENIED,
	    "/x/y", 0),

	/*
	 * The Windows forms: rejected under PFX_POLICY_WINDOWS, ordinary
	 * names without it.
	 */
	REJECT("win_backslash", &pol_win, "a\\b", PFX_R_WIN_BACKSLASH),
	ALLOW("posix_backslash", &pol_ref, "a\\b", R "/a\\b", 0, "a\\b"),
	REJECT("win_backslash_first", &pol_win, "\\x", PFX_R_WIN_BACKSLASH),
	ALLOW("posix_backslash_first", &pol_ref, "\\x", R "/\\x", 0, "\\x"),
	REJECT("win_backslash_dotdot", &pol_win, "x/..\\..\\y",
	    PFX_R_WIN_BACKSLASH),
	ALLOW("posix_backslash_dotdot", &pol_ref, "x/..\\..\\y",
	    R "/x/..\\..\\y", 0, "x/..\\..\\y"),
	REJECT("win_drive", &pol_win, "C:", PFX_R_WIN_DRIVE),
	ALLOW("posix_drive", &pol_ref, "C:", R "/C:", 0, "C:"),
	REJECT("win_drive_dotdot", &pol_win, "C:..", PFX_R_WIN_DRIVE),
	ALLOW("posix_drive_dotdot", &pol_ref, "C:..", R "/C:..", 0, "C:.."),
	REJECT("win_drive_lower_backslash", &pol_win, "c:\\x",
	    PFX_R_WIN_DRIVE),
	ALLOW("posix_drive_lower_backslash", &pol_ref, "c:\\x", R "/c:\\x", 0,
	    "c:\\x"),
	REJECT("win_drive_relative", &pol_win, "C:x", PFX_R_WIN_DRIVE),
	ALLOW("posix_drive_relative", &pol_ref, "C:x", R "/C:x", 0, "C:x"),
	REJECT("win_drive_slash", &pol_win, "z:/x", PFX_R_WIN_DRIVE),
	ALLOW("posix_drive_slash", &pol_ref, "z:/x", R "/z:/x", 0, "z:/x"),
	REJECT("win_unc_backslash", &pol_win, "\\\\server\\share",
	    PFX_R_WIN_UNC),
	ALLOW("posix_unc_backslash", &pol_ref, "\\\\server\\share",
	    R "/\\\\server\\share", 0, "\\\\server\\share"),
	REJECT("win_unc_slash", &pol_win, "//server/share", PFX_R_WIN_UNC),
	DENY("posix_unc_slash", &pol_ref, "//server/share", PFX_R_OUTSIDE,
	    "/server/share", 0),
	REJECT("win_device_question", &pol_win, "\\\\?\\C:\\x",
	    PFX_R_WIN_DEVICE_PATH),
	ALLOW("posix_device_question", &pol_ref, "\\\\?\\C:\\x",
	    R "/\\\\?\\C:\\x", 0, "\\\\?\\C:\\x"),
	REJECT("win_device_dot", &pol_win, "\\\\.\\pipe",
	    PFX_R_WIN_DEVICE_PATH),
	ALLOW("posix_device_dot", &pol_ref, "\\\\.\\pipe", R "/\\\\.\\pipe", 0,
	    "\\\\.\\pipe"),
	REJECT("win_device_slash_question", &pol_win, "//?/x",
	    PFX_R_WIN_DEVICE_PATH),
	DENY("posix_device_slash_question", &pol_ref, "//?/x", PFX_R_OUTSIDE,
	    "/?/x", 0),
	REJECT("win_device_slash_dot", &pol_win, "//./x",
	    PFX_R_WIN_DEVICE_PATH),
	DENY("posix_device_slash_dot", &pol_ref, "//./x", PFX_R_OUTSIDE, "/x",
	    0),
	REJECT("win_device_nt_object", &pol_win, "\\??\\C:\\x",
	    PFX_R_WIN_DEVICE_PATH),
	ALLOW("posix_device_nt_object", &pol_ref, "\\??\\C:\\x",
	    R "/\\??\\C:\\x", 0, "\\??\\C:\\x"),
	REJECT("win_reserved_con", &pol_win, "CON", PFX_R_WIN_RESERVED),
	ALLOW("posix_reserved_con", &pol_ref, "CON", R "/CON", 0, "CON"),
	REJECT("win_reserved_con_lower", &pol_win, "con", PFX_R_WIN_RESERVED),
	REJECT("win_reserved_prn", &pol_win, "PRN", PFX_R_WIN_RESERVED),
	REJECT("win_reserved_aux_ext_abs", &pol_win, R "/aux.c",
	    PFX_R_WIN_RESERVED),
	ALLOW("posix_reserved_aux_ext_abs", &pol_ref, R "/aux.c", R "/aux.c",
	    0, "aux.c"),
	REJECT("win_reserved_nul_ext", &pol_win, "nul.txt",
	    PFX_R_WIN_RESERVED),
	ALLOW("posix_reserved_nul_ext", &pol_ref, "nul.txt", R "/nul.txt", 0,
	    "nul.txt"),
	REJECT("win_reserved_com1_deep", &pol_win, "a/COM1",
	    PFX_R_WIN_RESERVED),
	ALLOW("posix_reserved_com1_deep", &pol_ref, "a/COM1", R "/a/COM1", 0,
	    "a/COM1"),
	REJECT("win_reserved_lpt9_ext", &pol_win, "LPT9.log",
	    PFX_R_WIN_RESERVED),
	REJECT("win_reserved_space_ext", &pol_win, "CON .txt",
	    PFX_R_WIN_RESERVED),
	ALLOW("posix_reserved_space_ext", &pol_ref, "CON .txt",
	    R "/CON .txt", 0, "CON .txt"),
	REJECT("win_reserved_conin", &pol_win, "CONIN$", PFX_R_WIN_RESERVED),
	REJECT("win_reserved_conout_lower", &pol_win, "conout$",
	    PFX_R_WIN_RESERVED),
	REJECT("win_reserved_com_superscript1", &pol_win, "COM\xc2\xb9",
	    PFX_R_WIN_RESERVED),
	ALLOW("posix_reserved_com_superscript1", &pol_ref, "COM\xc2\xb9",
	    R "/COM\xc2\xb9", 0, "COM\xc2\xb9"),
	REJECT("win_reserved_lpt_superscript3", &pol_win, "lpt\xc2\xb3.x",
	    PFX_R_WIN_RESERVED),
	REJECT("win_reserved_before_escapes", &pol_win, "../CON",
	    PFX_R_WIN_RESERVED),
	ALLOW("win_fine_console", &pol_win, "CONSOLE", R "/CONSOLE", 0,
	    "CONSOLE"),
	ALLOW("win_fine_com10", &pol_win, "COM10", R "/COM10", 0, "COM10"),
	ALLOW("win_fine_nulx", &pol_win, "nulx", R "/nulx", 0, "nulx"),
	ALLOW("win_fine_com", &pol_win, "COM", R "/COM", 0, "COM"),
	ALLOW("win_fine_xcon", &pol_win, "a/xcon.txt", R "/a/xcon.txt", 0,
	    "a/xcon.txt"),
	REJECT("win_trailing_dot", &pol_win, "a.", PFX_R_WIN_TRAILING),
	ALLOW("posix_trailing_dot", &pol_ref, "a.", R "/a.", 0, "a."),
	REJECT("win_trailing_space", &pol_win, "a ", PFX_R_WIN_TRAILING),
	ALLOW("posix_trailing_space", &pol_ref, "a ", R "/a ", 0, "a "),
	REJECT("win_trailing_dot_dir", &pol_win, "dir./x",
	    PFX_R_WIN_TRAILING),
	ALLOW("posix_trailing_dot_dir", &pol_ref, "dir./x", R "/dir./x", 0,
	    "dir./x"),
	REJECT("win_trailing_three_dots", &pol_win, "...",
	    PFX_R_WIN_TRAILING),
	REJECT("win_trailing_dotdot_space", &pol_win, ".. ",
	    PFX_R_WIN_TRAILING),
	ALLOW("posix_trailing_dotdot_space", &pol_ref, ".. ", R "/.. ", 0,
	    ".. "),
	ALLOW("win_dot_not_trailing", &pol_win, ".", R, 0, ""),
	ALLOW("win_dot_inside_not_trailing", &pol_win, "a/./b", R "/a/b", 0,
	    "a/b"),
	ALLOW("win_dotdot_not_trailing", &pol_win, "a/..", R, 0, ""),
	REJECT("win_dotdot_still_escapes", &pol_win, "../x", PFX_R_ESCAPES),
	/*
	 * One letter and a colon are a drive even with more after them:
	 * Windows takes "a:b" as "b" relative to drive A's current
	 * directory, not as stream "b" of file "a".
	 */
	REJECT("win_drive_not_stream", &pol_win, "a:b", PFX_R_WIN_DRIVE),
	ALLOW("posix_drive_not_stream", &pol_ref, "a:b", R "/a:b", 0, "a:b"),
	REJECT("win_stream", &pol_win, "ab:c", PFX_R_WIN_STREAM),
	ALLOW("posix_stream", &pol_ref, "ab:c", R "/ab:c", 0, "ab:c"),
	REJECT("win_stream_after_slash", &pol_win, "x/a:b", PFX_R_WIN_STREAM),
	REJECT("win_stream_deep", &pol_win, "x/file.txt:stream",
	    PFX_R_WIN_STREAM),
	ALLOW("posix_stream_deep", &pol_ref, "x/file.txt:stream",
	    R "/x/file.txt:stream", 0, "x/file.txt:stream"),
	REJECT("win_stream_abs", &pol_win, R "/x:$DATA", PFX_R_WIN_STREAM),
	REJECT("win_char_lt", &pol_win, "a<b", PFX_R_WIN_CHAR),
	ALLOW("posix_char_lt", &pol_ref, "a<b", R "/a<b", 0, "a<b"),
	REJECT("win_char_gt", &pol_win, "a>b", PFX_R_WIN_CHAR),
	REJECT("win_char_pipe", &pol_win, "a|b", PFX_R_WIN_CHAR),
	ALLOW("posix_char_pipe", &pol_ref, "a|b", R "/a|b", 0, "a|b"),
	REJECT("win_char_question", &pol_win, "a?b", PFX_R_WIN_CHAR),
	ALLOW("posix_char_question", &pol_ref, "a?b", R "/a?b", 0, "a?b"),
	REJECT("win_char_star", &pol_win, "a*b", PFX_R_WIN_CHAR),
	ALLOW("posix_char_star", &pol_ref, "a*b", R "/a*b", 0, "a*b"),
	REJECT("win_char_quote", &pol_win, "a\"b", PFX_R_WIN_CHAR),
	ALLOW("posix_char_quote", &pol_ref, "a\"b", R "/a\"b", 0, "a\"b"),
	REJECT("win_char_ctrl_01", &pol_win, "a\x01" "b", PFX_R_WIN_CHAR),
	ALLOW("posix_char_ctrl_01", &pol_ref, "a\x01" "b", R "/a\x01" "b", 0,
	    "a\x01" "b"),
	REJECT("win_char_ctrl_1f", &pol_win, "a\x1f" "b", PFX_R_WIN_CHAR),
	REJECT("win_char_tab", &pol_win, "\tx", PFX_R_WIN_CHAR),
	REJECT("win_nul_first", &pol_win, "C:\0", PFX_R_NUL),
	REJECT("win_empty", &pol_win, "", PFX_R_EMPTY)
};

#define NROWS	(sizeof(rows) / sizeof(rows[0]))

/*
 * Check VERDICT against the expectations of ROW: decision, reason, and
 * for allow and deny the path, root and relative part.
 */
static void
expect_row(const struct check_row *row, enum pfx_decision ret,
    const struct pfx_verdict *v)
{
	size_t plen, rlen;

	cr_expect(ret == v->decision, "%s: returned %s but the verdict says %s",
	    row->name, pfx_decision_name(ret), pfx_decision_name(v->decision));
	cr_expect(v->decision == row->decision && v->reason == row->reason,
	    "%s: got %s/%s, expected %s/%s", row->name,
	    pfx_decision_name(v->decision), pfx_reason_name(v->reason),
	    pfx_decision_name(row->decision), pfx_reason_name(row->reason));
	if (v->decision != row->decision)
		return;
	if (row->decision == PFX_REJECT) {
		cr_expect(v->path_len == 0, "%s: reject with path_len %zu",
		    row->name, v->path_len);
		return;
	}

	cr_assert(v->path_len < PFX_PATH_MAX, "%s: path_len %zu", row->name,
	    v->path_len);
	plen = strlen(row->path);
	cr_expect(v->path_len == plen &&
	    memcmp(v->path, row->path, plen) == 0,
	    "%s: path \"%.*s\" (%zu bytes), expected \"%s\" (%zu bytes)",
	    row->name, (int)v->path_len, v->path, v->path_len, row->path,
	    plen);
	cr_expect(v->path[v->path_len] == '\0',
	    "%s: path not NUL-terminated", row->name);
	if (row->decision == PFX_ALLOW || row->reason == PFX_R_DENIED)
		cr_expect(v->root == row->root, "%s: root %zu, expected %zu",
		    row->name, v->root, row->root);
	if (row->decision != PFX_ALLOW)
		return;

	rlen = strlen(row->rel);
	cr_assert(v->rel_off <= v->path_len &&
	    v->rel_len <= v->path_len - v->rel_off,
	    "%s: rel_off %zu, rel_len %zu outside path_len %zu", row->name,
	    v->rel_off, v->rel_len, v->path_len);
	cr_expect(v->rel_len == rlen &&
	    memcmp(v->path + v->rel_off, row->rel, rlen) == 0,
	    "%s: rel \"%.*s\" (%zu bytes), expected \"%s\" (%zu bytes)",
	    row->name, (int)v->rel_len, v->path + v->rel_off, v->rel_len,
	    row->rel, rlen);
	cr_expect(v->rel_off + v->rel_len == v->path_len,
	    "%s: rel does not run to the end of the path", row->name);
}

ParameterizedTestParameters(core_table, check)
{
	static size_t index[NROWS];
	size_t i;

	for (i = 0; i < NROWS; i++)
		index[i] = i;
	return cr_make_param_array(size_t, index, NROWS);
}

ParameterizedTest(size_t *i, core_table, check)
{
	const struct check_row *row = &rows[*i];
	struct pfx_verdict v;
	enum pfx_decision ret;

	/* Poison the verdict: pfx_path_check must write all of it. */
	memset(&v, 0xa5, sizeof(v));
	ret = pfx_path_check(row->policy, row->in, row->len, &v);
	expect_row(row, ret, &v);
}

/*
 * Long inputs.  Each test builds its input in a buffer, then checks it as
 * a row would be checked.
 */

/* Append N copies of byte C to BUF at *N_IO. */
static void
put_bytes(char *buf, size_t *n_io, char c, size_t n)
{
	memset(buf + *n_io, c, n);
	*n_io += n;
}

/* Append the string S to BUF at *N_IO. */
static void
put_str(char *buf, size_t *n_io, const char *s)
{
	size_t n = strlen(s);

	memcpy(buf + *n_io, s, n);
	*n_io += n;
}

/*
 * Append '/'-separated components of up to 200 'a' bytes to BUF at *N_IO
 * until it holds exactly END bytes.  The first byte appended is a
 * component byte, never '/', and so is the last.
 */
static void
put_components(char *buf, size_t *n_io, size_t end)
{
	size_t run = 0;

	while (*n_io < end) {
		if (run == 200 && *n_io + 1 < end) {
			buf[(*n_io)++] = '/';
			run = 0;
		} else {
			buf[(*n_io)++] = 'a';
			run++;
		}
	}
}

/* Check IN under POLICY, expecting a reject with reason WHY. */
static void
expect_reject(const char *name, const struct pfx_policy *policy,
    const char *in, size_t len, enum pfx_reason why)
{
	struct check_row row = {
		name, policy, in, len, PFX_REJECT, why, NULL, 0, NULL
	};
	struct pfx_verdict v;
	enum pfx_decision ret;

	memset(&v, 0xa5, sizeof(v));
	ret = pfx_path_check(policy, in, len, &v);
	expect_row(&row, ret, &v);
}

/* Check IN under POLICY, expecting it allowed as PATH beneath root 0. */
static void
expect_allow(const char *name, const struct pfx_policy *policy,
    const char *in, size_t len, const char *path, const char *rel)
{
	struct check_row row = {
		name, policy, in, len, PFX_ALLOW, PFX_R_NONE, path, 0, rel
	};
	struct pfx_verdict v;
	enum pfx_decision ret;

	memset(&v, 0xa5, sizeof(v));
	ret = pfx_path_check(policy, in, len, &v);
	expect_row(&row, ret, &v);
}

Test(core_long, input_path_max_minus_one_ok)
{
	static char in[PFX_PATH_MAX + 16];
	size_t n = 0;

	/* R followed by slashes: 4095 bytes that normalise to R. */
	put_str(in, &n, R);
	put_bytes(in, &n, '/', PFX_PATH_MAX - 1 - n);
	cr_assert(n == PFX_PATH_MAX - 1);
	expect_allow("input_4095_slashes", &pol_ref, in, n, R, "");

	/* "./" repeated, then "x": 4095 bytes that normalise to R/x. */
	n = 0;
	while (n < PFX_PATH_MAX - 3)
		put_str(in, &n, "./");
	put_str(in, &n, "x");
	cr_assert(n == PFX_PATH_MAX - 1);
	expect_allow("input_4095_dots", &pol_ref, in, n, R "/x", "x");
}

Test(core_long, input_path_max_rejected)
{
	static char in[PFX_PATH_MAX + 16];
	size_t n = 0;

	put_str(in, &n, R);
	put_bytes(in, &n, '/', PFX_PATH_MAX - n);
	cr_assert(n == PFX_PATH_MAX);
	expect_reject("input_4096_slashes", &pol_ref, in, n, PFX_R_TOO_LONG);

	/* Too long comes before the Windows forms... */
	in[20] = '\\';
	expect_reject("input_4096_win_backslash", &pol_win, in, n,
	    PFX_R_TOO_LONG);
	/* ...and after NUL. */
	in[n - 1] = '\0';
	expect_reject("input_4096_nul", &pol_ref, in, n, PFX_R_NUL);
}

Test(core_long, component_name_max)
{
	static char in[PFX_PATH_MAX];
	static char path[PFX_PATH_MAX];
	size_t n = 0, p = 0;

	/* An absolute request with a 255-byte component. */
	put_str(in, &n, R "/");
	put_bytes(in, &n, 'c', PFX_NAME_MAX);
	expect_allow("component_255_abs", &pol_ref, in, n, in, in + 17);

	/* The same component, relative. */
	put_bytes(path, &p, 'c', PFX_NAME_MAX);
	path[p] = '\0';
	expect_allow("component_255_rel", &pol_ref, path, p, in, path);

	/* One byte more is too long, absolute or relative. */
	put_bytes(in, &n, 'c', 1);
	expect_reject("component_256_abs", &pol_ref, in, n, PFX_R_TOO_LONG);
	put_bytes(path, &p, 'c', 1);
	expect_reject("component_256_rel", &pol_ref, path, p,
	    PFX_R_TOO_LONG);

	/* Even when a later ".." would remove it. */
	put_str(path, &p, "/..");
	expect_reject("component_256_then_dotdot", &pol_ref, path, p,
	    PFX_R_TOO_LONG);
}

Test(core_long, result_path_max)
{
	static char in[PFX_PATH_MAX];
	static char path[PFX_PATH_MAX + 16];
	size_t n = 0, p = 0;

	/*
	 * A relative request of 4078 bytes joins with R (16 bytes) and a
	 * '/' into exactly 4095 bytes.
	 */
	put_components(in, &n, PFX_PATH_MAX - 1 - strlen(R) - 1);
	put_str(path, &p, R "/");
	memcpy(path + p, in, n);
	p += n;
	path[p] = '\0';
	cr_assert(p == PFX_PATH_MAX - 1);
	in[n] = '\0';
	expect_allow("join_4095", &pol_ref, in, n, path, in);

	/* One byte more and the joined path is too long. */
	in[n++] = 'a';
	expect_reject("join_4096", &pol_ref, in, n, PFX_R_TOO_LONG);

	/* Under the root "/" a relative request of 4095 bytes is too long. */
	n = 0;
	put_components(in, &n, PFX_PATH_MAX - 1);
	expect_reject("join_slash_4096", &pol_slash, in, n, PFX_R_TOO_LONG);

	/* An absolute request of exactly 4095 bytes is allowed as is. */
	n = 0;
	put_str(in, &n, R "/");
	put_components(in, &n, PFX_PATH_MAX - 1);
	in[n] = '\0';
	expect_allow("absolute_4095", &pol_ref, in, n, in, in + strlen(R) + 1);
}

/*
 * The contract counts the input and the result against PFX_PATH_MAX - 1,
 * not the path on the way: a relative request that climbs back down with
 * ".." before the end has a short result and must be allowed.
 */
Test(core_long, joined_path_too_long_on_the_way)
{
	static char in[PFX_PATH_MAX];
	size_t n = 0;

	/*
	 * "aaa.../aaa.../.../aaa/../b", 4095 bytes.  Joined with R, the
	 * components before the ".." are more than 4095 bytes: the joined
	 * path is too long on the way, even though the ".." would shorten
	 * the result.  The core refuses it rather than keep a longer buffer
	 * (pfx_path.h: "the joined path on the way" counts).
	 */
	put_components(in, &n, PFX_PATH_MAX - 1 - strlen("/../b"));
	put_str(in, &n, "/../b");
	cr_assert(n == PFX_PATH_MAX - 1);
	expect_reject("long_detour_then_dotdot", &pol_ref, in, n,
	    PFX_R_TOO_LONG);
}

Test(core_check, null_pointer_with_zero_length)
{
	expect_reject("null_empty", &pol_ref, NULL, 0, PFX_R_EMPTY);
}

/* pfx_path_normalize() on its own. */

Test(core_normalize, relative_without_base)
{
	char buf[64];
	size_t out_len = 99;

	cr_expect(pfx_path_normalize(IN("a"), NULL, 0, 0, buf, sizeof(buf),
	    &out_len) == PFX_R_RELATIVE, "relative \"a\" with no base");
	cr_expect(pfx_path_normalize(IN("./a"), "", 0, 0, buf, sizeof(buf),
	    &out_len) == PFX_R_RELATIVE, "relative \"./a\" with no base");
	cr_expect(pfx_path_normalize(IN(".."), NULL, 0, 0, buf, sizeof(buf),
	    &out_len) == PFX_R_RELATIVE, "relative \"..\" with no base");
}

Test(core_normalize, absolute_without_base)
{
	char buf[64];
	size_t out_len = 99;

	memset(buf, 'X', sizeof(buf));
	cr_assert(pfx_path_normalize(IN("/a/./b/../c//"), NULL, 0, 0, buf,
	    sizeof(buf), &out_len) == PFX_R_NONE, "absolute with no base");
	cr_expect(out_len == 4 && memcmp(buf, "/a/c", 4) == 0,
	    "got \"%.*s\", expected \"/a/c\"", (int)out_len, buf);
	cr_expect(buf[out_len] == '\0', "result not NUL-terminated");

	memset(buf, 'X', sizeof(buf));
	cr_assert(pfx_path_normalize(IN("/./"), NULL, 0, 0, buf, sizeof(buf),
	    &out_len) == PFX_R_NONE, "\"/./\" with no base");
	cr_expect(out_len == 1 && buf[0] == '/' && buf[1] == '\0',
	    "\"/./\" gives \"%.*s\"", (int)out_len, buf);
	cr_expect(pfx_path_normalize(IN("/.."), NULL, 0, 0, buf, sizeof(buf),
	    &out_len) == PFX_R_ESCAPES, "\"/..\" escapes");
}

Test(core_normalize, relative_with_base)
{
	char buf[64];
	size_t out_len = 99;

	memset(buf, 'X', sizeof(buf));
	cr_assert(pfx_path_normalize(IN("x/../y"), IN("/r"), 0, buf,
	    sizeof(buf), &out_len) == PFX_R_NONE, "x/../y under /r");
	cr_expect(out_len == 4 && memcmp(buf, "/r/y\0", 5) == 0,
	    "got \"%.*s\", expected \"/r/y\"", (int)out_len, buf);
	cr_expect(pfx_path_normalize(IN("x/../.."), IN("/r"), 0, buf,
	    sizeof(buf), &out_len) == PFX_R_ESCAPES, "x/../.. under /r");

	memset(buf, 'X', sizeof(buf));
	cr_assert(pfx_path_normalize(IN("x"), IN("/"), 0, buf, sizeof(buf),
	    &out_len) == PFX_R_NONE, "x under /");
	cr_expect(out_len == 2 && memcmp(buf, "/x\0", 3) == 0,
	    "got \"%.*s\", expected \"/x\"", (int)out_len, buf);
	cr_expect(pfx_path_normalize(IN(".."), IN("/"), 0, buf, sizeof(buf),
	    &out_len) == PFX_R_ESCAPES, ".. under /");

	/* An absolute request ignores the base. */
	memset(buf, 'X', sizeof(buf));
	cr_assert(pfx_path_normalize(IN("/q"), IN("/r"), 0, buf, sizeof(buf),
	    &out_len) == PFX_R_NONE, "/q under /r");
	cr_expect(out_len == 2 && memcmp(buf, "/q\0", 3) == 0,
	    "got \"%.*s\", expected \"/q\"", (int)out_len, buf);
}

Test(core_normalize, flags)
{
	char buf[64];
	size_t out_len = 99;

	cr_expect(pfx_path_normalize(IN("a\\b"), IN("/r"), PFX_POLICY_WINDOWS,
	    buf, sizeof(buf), &out_len) == PFX_R_WIN_BACKSLASH,
	    "a\\b under the Windows flag");
	cr_expect(pfx_path_normalize(IN("a\\b"), IN("/r"), 0, buf,
	    sizeof(buf), &out_len) == PFX_R_NONE, "a\\b without the flag");
	cr_expect(pfx_path_normalize(IN("a\0"), IN("/r"), 0, buf,
	    sizeof(buf), &out_len) == PFX_R_NUL, "NUL inside the length");
	cr_expect(pfx_path_normalize(NULL, 0, IN("/r"), 0, buf,
	    sizeof(buf), &out_len) == PFX_R_EMPTY, "empty request");
}

Test(core_normalize, capacity)
{
	char buf[16];
	size_t out_len = 99;

	/* "/abc" needs 5 bytes with its NUL. */
	memset(buf, 'X', sizeof(buf));
	cr_expect(pfx_path_normalize(IN("/abc"), NULL, 0, 0, buf, 4,
	    &out_len) == PFX_R_TOO_LONG, "\"/abc\" in 4 bytes");
	cr_expect(buf[4] == 'X', "wrote past a capacity of 4");
	cr_assert(pfx_path_normalize(IN("/abc"), NULL, 0, 0, buf, 5,
	    &out_len) == PFX_R_NONE, "\"/abc\" in 5 bytes");
	cr_expect(out_len == 4 && memcmp(buf, "/abc\0", 5) == 0,
	    "got \"%.*s\", expected \"/abc\"", (int)out_len, buf);
	cr_expect(buf[5] == 'X', "wrote past a capacity of 5");

	/* The base counts too: "/r/x" needs 5 bytes. */
	cr_expect(pfx_path_normalize(IN("x"), IN("/r"), 0, buf, 4,
	    &out_len) == PFX_R_TOO_LONG, "x under /r in 4 bytes");

	/* "/" needs 2 bytes; fewer can hold nothing. */
	cr_assert(pfx_path_normalize(IN("/"), NULL, 0, 0, buf, 2,
	    &out_len) == PFX_R_NONE, "\"/\" in 2 bytes");
	cr_expect(out_len == 1 && buf[0] == '/' && buf[1] == '\0',
	    "\"/\" gives \"%.*s\"", (int)out_len, buf);
	cr_expect(pfx_path_normalize(IN("/"), NULL, 0, 0, buf, 1,
	    &out_len) == PFX_R_TOO_LONG, "\"/\" in 1 byte");
	cr_expect(pfx_path_normalize(IN("/"), NULL, 0, 0, buf, 0,
	    &out_len) == PFX_R_TOO_LONG, "\"/\" in 0 bytes");
}

/* The stable names. */

struct reason_name {
	enum pfx_reason reason;
	const char *name;
};

static const struct reason_name reason_names[] = {
	{ PFX_R_NONE, "none" },
	{ PFX_R_OUTSIDE, "outside" },
	{ PFX_R_DENIED, "denied" },
	{ PFX_R_EMPTY, "empty" },
	{ PFX_R_NUL, "nul" },
	{ PFX_R_TOO_LONG, "too_long" },
	{ PFX_R_ESCAPES, "escapes" },
	{ PFX_R_RELATIVE, "relative" },
	{ PFX_R_WIN_BACKSLASH, "backslash" },
	{ PFX_R_WIN_DRIVE, "drive" },
	{ PFX_R_WIN_UNC, "unc" },
	{ PFX_R_WIN_DEVICE_PATH, "device_path" },
	{ PFX_R_WIN_RESERVED, "reserved_name" },
	{ PFX_R_WIN_TRAILING, "trailing_dot_space" },
	{ PFX_R_WIN_STREAM, "stream" },
	{ PFX_R_WIN_CHAR, "invalid_char" }
};

Test(core_names, reasons)
{
	size_t i;
	const char *got;

	cr_expect(sizeof(reason_names) / sizeof(reason_names[0]) ==
	    PFX_R_COUNT_, "the table does not name every reason");
	for (i = 0; i < sizeof(reason_names) / sizeof(reason_names[0]); i++) {
		got = pfx_reason_name(reason_names[i].reason);
		cr_expect(got != NULL && strcmp(got, reason_names[i].name) == 0,
		    "reason %d: \"%s\", expected \"%s\"",
		    (int)reason_names[i].reason, got != NULL ? got : "(null)",
		    reason_names[i].name);
	}
}

Test(core_names, reasons_out_of_range)
{
	const char *got;

	got = pfx_reason_name(PFX_R_COUNT_);
	cr_expect(got != NULL && strcmp(got, "unknown") == 0,
	    "PFX_R_COUNT_: \"%s\"", got != NULL ? got : "(null)");
	got = pfx_reason_name((enum pfx_reason)1000);
	cr_expect(got != NULL && strcmp(got, "unknown") == 0,
	    "reason 1000: \"%s\"", got != NULL ? got : "(null)");
	got = pfx_reason_name((enum pfx_reason)-1);
	cr_expect(got != NULL && strcmp(got, "unknown") == 0,
	    "reason -1: \"%s\"", got != NULL ? got : "(null)");
}

Test(core_names, decisions)
{
	const char *got;

	got = pfx_decision_name(PFX_ALLOW);
	cr_expect(got != NULL && strcmp(got, "allow") == 0, "PFX_ALLOW: \"%s\"",
	    got != NULL ? got : "(null)");
	got = pfx_decision_name(PFX_DENY);
	cr_expect(got != NULL && strcmp(got, "deny") == 0, "PFX_DENY: \"%s\"",
	    got != NULL ? got : "(null)");
	got = pfx_decision_name(PFX_REJECT);
	cr_expect(got != NULL && strcmp(got, "reject") == 0,
	    "PFX_REJECT: \"%s\"", got != NULL ? got : "(null)");
	got = pfx_decision_name((enum pfx_decision)3);
	cr_expect(got != NULL && strcmp(got, "unknown") == 0,
	    "decision 3: \"%s\"", got != NULL ? got : "(null)");
	got = pfx_decision_name((enum pfx_decision)-1);
	cr_expect(got != NULL && strcmp(got, "unknown") == 0,
	    "decision -1: \"%s\"", got != NULL ? got : "(null)");
}
