/*
 * test_linkcheck.c -- tests of the symlink containment check (linkcheck.h).
 *
 * The table: one named row per case, with the link, its target, the other
 * links of the tree as {path, target} pairs, and the expected answer (and
 * for a contained link, the resolved path).  The rows run as a
 * ParameterizedTest over row indices, so each row is its own process and
 * every failure message starts with the row's name.  The lookup answers
 * from the row's links, the link under test first; it also asserts that it
 * is only ever asked about normalised relative paths.
 *
 * Then ordinary Tests for what does not fit in a row: long targets near
 * PFX_PATH_MAX and PFX_NAME_MAX, lookup errors and truncation, a NULL
 * lookup, the RESOLVED buffer's size.
 *
 * Last, a property: random small trees of links are built for real in a
 * mkdtemp(3) directory, and every link is resolved by the kernel
 * (openat2(2), O_PATH, RESOLVE_BENEATH, following symlinks); the kernel's
 * answer must be xtr_link_contained's.  The seed is fixed, so a failure
 * names its tree and can be replayed.
 */
#include <sys/stat.h>
#include <sys/syscall.h>

#include <linux/openat2.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "../core/pfx_path.h"
#include "../extract/linkcheck.h"

/* One symlink of a tree: where it is and what it says. */
struct lc_link {
	const char *path;
	const char *target;
};

/*
 * The tree the lookup describes: the link under test, the other links,
 * and optionally a path whose lookup fails with FAIL_ERR, or a path whose
 * target is returned without its NUL (a lookup that truncates).
 */
struct lc_set {
	const char *self;
	const char *self_target;
	const struct lc_link *v;
	size_t n;
	const char *fail_path;
	int fail_err;
	const char *trunc_path;
	size_t calls;
};

/*
 * Assert that REL is what linkcheck.h promises a lookup: a normalised
 * relative path, not "", no leading '/', no empty, "." or ".." component.
 */
static void
assert_normalised(const char *rel)
{
	const char *c;
	size_t n;

	cr_assert(rel[0] != '\0', "lookup asked about \"\"");
	cr_assert(strlen(rel) < PFX_PATH_MAX, "lookup path too long");
	for (c = rel;; c += n + 1) {
		n = strcspn(c, "/");
		cr_assert(n > 0 && n <= PFX_NAME_MAX &&
		    !(n == 1 && c[0] == '.') &&
		    !(n == 2 && c[0] == '.' && c[1] == '.'),
		    "lookup asked about a non-normalised path \"%s\"", rel);
		if (c[n] == '\0')
			break;
	}
}

/* Copy TARGET into BUF (CAP bytes) as a lookup must. */
static int
put_target(const char *target, char *buf, size_t cap)
{
	size_t len;

	len = strlen(target);
	if (len >= cap)
		return -ENAMETOOLONG;
	memcpy(buf, target, len + 1);
	return 1;
}

/* The lookup over a struct lc_set. */
static int
set_lookup(void *arg, const char *rel, char *buf, size_t cap)
{
	struct lc_set *s = arg;
	size_t i;

	s->calls++;
	assert_normalised(rel);
	cr_assert(cap >= PFX_PATH_MAX, "lookup given only %zu bytes", cap);
	if (s->fail_path != NULL && strcmp(rel, s->fail_path) == 0)
		return s->fail_err;
	if (s->trunc_path != NULL && strcmp(rel, s->trunc_path) == 0) {
		memset(buf, 'x', cap);
		return 1;
	}
	if (s->self != NULL && strcmp(rel, s->self) == 0)
		return put_target(s->self_target, buf, cap);
	for (i = 0; i < s->n; i++)
		if (strcmp(rel, s->v[i].path) == 0)
			return put_target(s->v[i].target, buf, cap);
	return 0;
}

/*
 * One case.  EXPECT is 1 (contained, and RESOLVED is the expected result),
 * 0 (escapes) or a negative errno.  SET and NSET are the other links.
 */
struct lc_row {
	const char *name;
	const char *link;
	const char *target;
	int expect;
	const char *resolved;
	const struct lc_link *set;
	size_t nset;
};

/* The other links of a row. */
#define L(p, t)	{ (p), (t) }
#define SET(...) \
	((const struct lc_link[]){ __VA_ARGS__ }), \
	(sizeof((const struct lc_link[]){ __VA_ARGS__ }) / \
	    sizeof(struct lc_link))
#define NONE	NULL, 0

#define IN(name, link, target, resolved, set) \
	{ (name), (link), (target), 1, (resolved), set }
#define OUT(name, link, target, set) \
	{ (name), (link), (target), 0, NULL, set }
#define ERR(name, link, target, err, set) \
	{ (name), (link), (target), (err), NULL, set }

/* c0 -> c1 -> ... -> c40 -> f: 41 links in a row. */
static const struct lc_link chain41[] = {
	L("c0", "c1"), L("c1", "c2"), L("c2", "c3"), L("c3", "c4"),
	L("c4", "c5"), L("c5", "c6"), L("c6", "c7"), L("c7", "c8"),
	L("c8", "c9"), L("c9", "c10"), L("c10", "c11"), L("c11", "c12"),
	L("c12", "c13"), L("c13", "c14"), L("c14", "c15"), L("c15", "c16"),
	L("c16", "c17"), L("c17", "c18"), L("c18", "c19"), L("c19", "c20"),
	L("c20", "c21"), L("c21", "c22"), L("c22", "c23"), L("c23", "c24"),
	L("c24", "c25"), L("c25", "c26"), L("c26", "c27"), L("c27", "c28"),
	L("c28", "c29"), L("c29", "c30"), L("c30", "c31"), L("c31", "c32"),
	L("c32", "c33"), L("c33", "c34"), L("c34", "c35"), L("c35", "c36"),
	L("c36", "c37"), L("c37", "c38"), L("c38", "c39"), L("c39", "c40"),
	L("c40", "f")
};
#define CHAIN41	chain41, sizeof(chain41) / sizeof(chain41[0])

static const struct lc_row rows[] = {
	/* The chains the issue names. */
	IN("issue_dotdot_link_alone_is_the_root", "d/l", "..", "", NONE),
	OUT("issue_dotdot_after_link_to_root", "d/l2", "l/..",
	    SET(L("d/l", ".."))),
	IN("issue_up_link_alone", "a/b/c/up", "../..", "a", NONE),
	OUT("issue_dotdot_after_up_link", "a/b/esc", "c/up/../..",
	    SET(L("a/b/c/up", "../.."))),
	OUT("issue_absolute_etc", "x", "/etc", NONE),
	OUT("issue_top_level_dotdot", "x", "../y", NONE),
	ERR("issue_two_link_loop", "l1", "l2", -ELOOP,
	    SET(L("l2", "l1"))),
	ERR("issue_two_link_loop_other_end", "l2", "l1", -ELOOP,
	    SET(L("l1", "l2"))),
	ERR("issue_chain_of_41_links", "c0", "c1", -ELOOP, CHAIN41),
	IN("chain_of_40_links_is_the_limit", "c1", "c2", "f", CHAIN41),

	/* Ordinary archives. */
	IN("node_modules_bin", "node_modules/.bin/tool",
	    "../pkg/bin/tool.js", "node_modules/pkg/bin/tool.js", NONE),
	IN("node_modules_bin_through_pnpm_link", "node_modules/.bin/tool",
	    "../pkg/bin/tool.js",
	    "node_modules/.pnpm/pkg@1.0.0/node_modules/pkg/bin/tool.js",
	    SET(L("node_modules/pkg",
		".pnpm/pkg@1.0.0/node_modules/pkg"))),
	IN("linux_dt_bindings_under_a_top_dir",
	    "src/arch/x/include/dt-bindings", "../../../../include/dt-bindings",
	    "include/dt-bindings", NONE),
	OUT("linux_dt_bindings_one_level_too_shallow",
	    "arch/x/include/dt-bindings", "../../../../include/dt-bindings",
	    NONE),
	IN("linux_include_prefixes_dt_bindings",
	    "linux-6.1/scripts/dtc/include-prefixes/dt-bindings",
	    "../../../include/dt-bindings", "linux-6.1/include/dt-bindings",
	    NONE),
	IN("linux_include_prefixes_arm64",
	    "linux-6.1/scripts/dtc/include-prefixes/arm64",
	    "../../../arch/arm64/boot/dts", "linux-6.1/arch/arm64/boot/dts",
	    NONE),
	IN("sibling", "a", "b", "b", NONE),
	IN("dot_dir_dotdot", "a", "./b/../c", "c", NONE),
	IN("shared_library_name", "lib/libfoo.so", "libfoo.so.1",
	    "lib/libfoo.so.1", NONE),
	IN("shared_library_chain", "lib/libfoo.so", "libfoo.so.1",
	    "lib/libfoo.so.1.2.3",
	    SET(L("lib/libfoo.so.1", "libfoo.so.1.2.3"))),
	IN("directory_link_chain_inside", "srv/www", "../data/www",
	    "store/v1/www",
	    SET(L("data", "vol/d1"), L("vol/d1", "../store/v1"))),
	IN("usrmerge_bin", "x/sh", "../bin/sh", "usr/bin/sh",
	    SET(L("bin", "usr/bin"), L("lib", "usr/lib"))),

	/* A target that passes through its own link. */
	ERR("self_direct", "l", "l", -ELOOP, NONE),
	ERR("self_dot", "d/l", "./l", -ELOOP, NONE),
	ERR("self_through_parent", "d/l", "../d/l/x", -ELOOP, NONE),
	ERR("self_through_other_link", "d/l", "m", -ELOOP,
	    SET(L("d/m", "l"))),

	/* ".." at the boundary. */
	IN("dotdot_to_exactly_the_root_then_down", "a/b/c/l", "../../../x",
	    "x", NONE),
	IN("dotdot_to_exactly_the_root", "a/b/c/l", "../../..", "", NONE),
	OUT("dotdot_one_too_many", "a/b/c/l", "../../../..", NONE),
	OUT("dotdot_out_and_back_in_by_name", "l", "../dest/l2", NONE),
	OUT("dotdot_out_and_back_into_same_dir", "a/l", "../../a", NONE),
	IN("down_then_dotdot_to_the_root", "a/l", "x/../../y", "y", NONE),
	OUT("top_level_dotdot_alone", "l", "..", NONE),

	/* Spelling: ".", "//", trailing '/'. */
	IN("trailing_slash", "a/l", "b/", "a/b", NONE),
	IN("trailing_slash_dotdot", "a/l", "../", "", NONE),
	OUT("trailing_slash_dotdot_escapes", "a/l", "../../", NONE),
	IN("double_slash", "a/l", "b//c", "a/b/c", NONE),
	IN("dot_and_double_slashes", "a/l", ".//..//x", "x", NONE),
	IN("dot", "a/l", ".", "a", NONE),
	IN("dots_only", "a/l", "./././.", "a", NONE),
	IN("top_level_dot", "l", ".", "", NONE),
	IN("three_dots_is_a_name", "a/l", ".../x", "a/.../x", NONE),
	IN("dotdot_prefix_is_a_name", "a/l", "..a/x", "a/..a/x", NONE),
	IN("dangling_is_taken_as_spelled", "a/l", "nothere/../x", "a/x",
	    NONE),

	/* Absolute and empty targets, also further down the chain. */
	OUT("absolute_double_slash", "l", "//etc", NONE),
	OUT("absolute_slash", "l", "/", NONE),
	OUT("absolute_naming_an_inside_place", "a/l", "/a/x", NONE),
	OUT("empty_target", "l", "", NONE),
	OUT("empty_target_on_the_way", "a/l", "m/x", SET(L("a/m", ""))),
	OUT("absolute_on_the_way", "a/l", "m", SET(L("a/m", "/tmp"))),
	OUT("absolute_two_links_down", "a/l", "m/n/x",
	    SET(L("a/m", "k"), L("a/k/n", "/"))),

	/* A link to a file, followed by more components. */
	IN("file_link_then_dotdot", "a/l", "f/../../x", "x",
	    SET(L("a/f", "file.txt"))),
	OUT("file_link_climbs_from_where_it_points", "a/l", "f/../..",
	    SET(L("a/f", "../top.txt"))),
	IN("file_link_deeper_then_back", "a/l", "f/../..", "a",
	    SET(L("a/f", "sub/file"))),

	/* Real semantics: ".." climbs from where the link points. */
	OUT("through_link_to_above", "ok", "inner/x",
	    SET(L("inner", "../.."))),
	OUT("through_dot_link_many_times", "d/l2", "l/l/l/../..",
	    SET(L("d/l", "."))),
	IN("through_dot_link_stays", "d/l2", "l/l/x", "d/x",
	    SET(L("d/l", "."))),
	OUT("dotdot_after_link_to_the_root", "a/b/l", "up/../x",
	    SET(L("a/b/up", "../.."))),
	IN("through_link_to_the_root", "a/b/l", "up/x", "x",
	    SET(L("a/b/up", "../.."))),
	IN("through_link_to_dot", "a", "b/c", "c", SET(L("b", "."))),
	IN("through_link_to_subdir", "d/l2", "l/x", "d/sub/x",
	    SET(L("d/l", "sub"))),
	IN("dotdot_after_deep_link", "a/l", "m/../n", "a/x/y/n",
	    SET(L("a/m", "x/y/z"))),
	IN("lexically_out_really_in", "a/l", "m/../../..", "",
	    SET(L("a/m", "x/y"))),
	IN("link_target_from_its_own_dir", "a/b/l", "m/x", "c/x",
	    SET(L("a/b/m", "../../c"))),
	IN("top_level_down_and_up", "l", "a/b/../../c", "c", NONE),
	OUT("dotdot_inside_link_escapes", "a/l", "m/..",
	    SET(L("a/m", "../.."))),
	ERR("three_link_loop", "a", "b", -ELOOP,
	    SET(L("b", "c"), L("c", "a"))),
	ERR("loop_through_a_directory_link", "a/l", "m/x", -ELOOP,
	    SET(L("a/m", "../a/m"))),

	/* LINK itself must be a normalised relative path. */
	ERR("link_empty", "", "x", -EINVAL, NONE),
	ERR("link_absolute", "/l", "x", -EINVAL, NONE),
	ERR("link_dotdot_component", "a/../l", "x", -EINVAL, NONE),
	ERR("link_double_slash", "a//l", "x", -EINVAL, NONE),
	ERR("link_dot_component", "./l", "x", -EINVAL, NONE),
	ERR("link_trailing_slash", "a/l/", "x", -EINVAL, NONE),
	ERR("link_dot", ".", "x", -EINVAL, NONE),
	ERR("link_dotdot", "..", "x", -EINVAL, NONE),
};

#define NROWS (sizeof(rows) / sizeof(rows[0]))

/* A name for an answer, for messages. */
static const char *
answer_name(int r)
{
	static char buf[32];

	switch (r) {
	case 1:
		return "contained";
	case 0:
		return "escapes";
	case -ELOOP:
		return "-ELOOP";
	case -ENAMETOOLONG:
		return "-ENAMETOOLONG";
	case -EINVAL:
		return "-EINVAL";
	case -ERANGE:
		return "-ERANGE";
	default:
		snprintf(buf, sizeof(buf), "%d", r);
		return buf;
	}
}

/*
 * Check LINK -> TARGET over SET: the answer is EXPECT and, if contained,
 * the resolved path is RESOLVED (unless NULL), NUL-terminated, with the
 * rest of the buffer untouched.  The answer must not depend on whether a
 * result buffer is given.
 */
static void
expect_case(const char *name, const char *link, const char *target,
    struct lc_set *set, int expect, const char *resolved)
{
	struct xtr_link_lookup lu = { set_lookup, set, NULL, NULL, false };
	char out[PFX_PATH_MAX + 16];
	size_t len;
	int r, r2;

	memset(out, 0xa5, sizeof(out));
	r = xtr_link_contained(link, target, &lu, out, PFX_PATH_MAX);
	cr_assert(r == expect, "%s: got %s, expected %s", name,
	    answer_name(r), answer_name(expect));
	cr_assert((unsigned char)out[PFX_PATH_MAX] == 0xa5,
	    "%s: wrote past CAP", name);
	if (r == 1) {
		len = strnlen(out, PFX_PATH_MAX);
		cr_assert(len < PFX_PATH_MAX, "%s: result not terminated",
		    name);
		if (resolved != NULL)
			cr_assert(strcmp(out, resolved) == 0,
			    "%s: resolved \"%s\", expected \"%s\"", name, out,
			    resolved);
	}
	r2 = xtr_link_contained(link, target, &lu, NULL, 0);
	cr_assert(r2 == r, "%s: %s without a result buffer, %s with one",
	    name, answer_name(r2), answer_name(r));
}

ParameterizedTestParameters(linkcheck, table)
{
	static size_t index[NROWS];
	size_t i;

	for (i = 0; i < NROWS; i++)
		index[i] = i;
	return cr_make_param_array(size_t, index, NROWS);
}

ParameterizedTest(size_t *i, linkcheck, table)
{
	const struct lc_row *row = &rows[*i];
	struct lc_set set = { row->link, row->target, row->set, row->nset,
	    NULL, 0, NULL, 0 };

	expect_case(row->name, row->link, row->target, &set, row->expect,
	    row->resolved);
}

/*
 * Long and odd inputs.  Each test builds its input in a buffer, then
 * checks it as a row would be checked.
 */

/*
 * Fill BUF with "a/a/.../a" of exactly LEN bytes (LEN odd, so it ends in
 * a component) and NUL-terminate it.
 */
static void
fill_aaa(char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = i % 2 == 0 ? 'a' : '/';
	buf[len] = '\0';
}

Test(linkcheck_long, target_4000_bytes_contained)
{
	static char t[PFX_PATH_MAX];
	struct lc_set set = { "l", t, NULL, 0, NULL, 0, NULL, 0 };

	fill_aaa(t, 3999);
	expect_case("4000 byte target from the top", "l", t, &set, 1, t);
	set.self = "d/l";
	expect_case("4000 byte target from d", "d/l", t, &set, 1, NULL);
}

Test(linkcheck_long, target_of_path_max_minus_one)
{
	static char t[PFX_PATH_MAX];
	struct lc_set set = { "l", t, NULL, 0, NULL, 0, NULL, 0 };

	fill_aaa(t, PFX_PATH_MAX - 1);
	expect_case("4095 byte target from the top", "l", t, &set, 1, t);
	set.self = "d/l";
	expect_case("4095 byte target from d: path too long", "d/l", t, &set,
	    -ENAMETOOLONG, NULL);
}

Test(linkcheck_long, target_of_path_max_is_too_long)
{
	static char t[2 * PFX_PATH_MAX + 1];
	struct lc_set set = { "l", t, NULL, 0, NULL, 0, NULL, 0 };

	fill_aaa(t, PFX_PATH_MAX + 1);
	expect_case("4097 byte target", "l", t, &set, -ENAMETOOLONG, NULL);
	fill_aaa(t, 2 * PFX_PATH_MAX - 1);
	expect_case("8191 byte target", "l", t, &set, -ENAMETOOLONG, NULL);
	memset(t, 'a', PFX_PATH_MAX);
	t[PFX_PATH_MAX] = '\0';
	expect_case("4096 byte single name", "l", t, &set, -ENAMETOOLONG,
	    NULL);
}

Test(linkcheck_long, target_4000_bytes_of_dotdot_escapes)
{
	static char t[PFX_PATH_MAX];
	struct lc_set set = { "d/l", t, NULL, 0, NULL, 0, NULL, 0 };
	size_t i;

	for (i = 0; i + 3 <= 3999; i += 3)
		memcpy(t + i, "../", 3);
	t[i++] = 'x';
	t[i] = '\0';
	expect_case("../../... 4000 bytes", "d/l", t, &set, 0, NULL);
}

Test(linkcheck_long, component_of_name_max)
{
	static char t[PFX_PATH_MAX];
	static char want[PFX_PATH_MAX + 2];
	struct lc_set set = { "d/l", t, NULL, 0, NULL, 0, NULL, 0 };

	memset(t, 'n', PFX_NAME_MAX);
	t[PFX_NAME_MAX] = '\0';
	snprintf(want, sizeof(want), "d/%s", t);
	expect_case("255 byte name", "d/l", t, &set, 1, want);
	t[PFX_NAME_MAX] = 'n';
	t[PFX_NAME_MAX + 1] = '\0';
	expect_case("256 byte name", "d/l", t, &set, -ENAMETOOLONG, NULL);
}

Test(linkcheck_long, link_path_limits)
{
	static char link[PFX_PATH_MAX + 2];
	struct lc_set set = { link, "x", NULL, 0, NULL, 0, NULL, 0 };

	memset(link, 'l', PFX_NAME_MAX + 1);
	link[PFX_NAME_MAX + 1] = '\0';
	expect_case("256 byte link name", link, "x", &set, -ENAMETOOLONG,
	    NULL);
	fill_aaa(link, PFX_PATH_MAX - 1);
	expect_case("4095 byte link path", link, "..", &set, 1, NULL);
	fill_aaa(link, PFX_PATH_MAX + 1);
	expect_case("4097 byte link path", link, "x", &set, -ENAMETOOLONG,
	    NULL);
}

/*
 * The remaining path (a looked-up target with the rest of the path after
 * it) may not pass PFX_PATH_MAX - 1 bytes: l -> m/<4000 bytes>, and m is a
 * link to a 200 byte name.
 */
Test(linkcheck_long, remaining_path_too_long)
{
	static char t[PFX_PATH_MAX];
	static char m[PFX_NAME_MAX + 1];
	struct lc_link others[1];
	struct lc_set set = { "l", t, others, 1, NULL, 0, NULL, 0 };

	memcpy(t, "m/", 2);
	fill_aaa(t + 2, 3999);
	memset(m, 'm', 200);
	m[200] = '\0';
	others[0].path = "m";
	others[0].target = m;
	expect_case("l -> m/<4000 bytes>, m -> <200 bytes>", "l", t, &set,
	    -ENAMETOOLONG, NULL);
	m[50] = '\0';
	expect_case("l -> m/<4000 bytes>, m -> <50 bytes>", "l", t, &set, 1,
	    NULL);
}

/*
 * The resolved path may not pass PFX_PATH_MAX - 1 bytes either: a link at
 * the end of 3000 bytes of directories points down another 1200.
 */
Test(linkcheck_long, resolved_path_too_long)
{
	static char t[PFX_PATH_MAX];
	static char key[PFX_PATH_MAX];
	static char down[PFX_PATH_MAX];
	struct lc_link others[1];
	struct lc_set set = { "l", t, others, 1, NULL, 0, NULL, 0 };
	size_t i;

	fill_aaa(t, 2999);
	memcpy(t + 2999, "/m", 3);
	memcpy(key, t, 3002);
	for (i = 0; i < 6; i++) {
		memset(down + i * 201, 'b', 200);
		down[i * 201 + 200] = '/';
	}
	down[6 * 201 - 1] = '\0';
	others[0].path = key;
	others[0].target = down;
	expect_case("3000 bytes down, then a link 1200 bytes further", "l",
	    t, &set, -ENAMETOOLONG, NULL);
	down[2 * 201 - 1] = '\0';
	expect_case("3000 bytes down, then a link 400 bytes further", "l", t,
	    &set, 1, NULL);
}

Test(linkcheck_lookup, error_is_passed_on)
{
	struct lc_set set = { "a/l", "m/x", NULL, 0, "a/m", -EIO, NULL, 0 };

	expect_case("lookup fails with EIO", "a/l", "m/x", &set, -EIO, NULL);
	set.fail_path = "a/m/x";
	set.fail_err = -EACCES;
	expect_case("lookup fails with EACCES at the end", "a/l", "m/x", &set,
	    -EACCES, NULL);
}

Test(linkcheck_lookup, escape_before_error_wins)
{
	struct lc_set set = { "a/l", "../../m", NULL, 0, "m", -EIO, NULL, 0 };

	expect_case("escape comes first", "a/l", "../../m", &set, 0, NULL);
}

Test(linkcheck_lookup, truncated_target_is_too_long)
{
	struct lc_set set = { "a/l", "m/x", NULL, 0, NULL, 0, "a/m", 0 };

	expect_case("lookup fills BUF with no NUL", "a/l", "m/x", &set,
	    -ENAMETOOLONG, NULL);
}

Test(linkcheck_lookup, asked_about_every_component_once)
{
	struct lc_set set = { "a/l", "b//c/./d/", NULL, 0, NULL, 0, NULL, 0 };

	expect_case("a/l -> b//c/./d/", "a/l", "b//c/./d/", &set, 1,
	    "a/b/c/d");
	/* Twice: with and without a result buffer; a/l itself is not asked. */
	cr_assert(set.calls == 6, "lookup called %zu times, expected 6",
	    set.calls);
}

Test(linkcheck_lookup, null_lookup)
{
	char out[PFX_PATH_MAX];
	struct xtr_link_lookup nofn = { NULL, NULL, NULL, NULL, false };

	cr_assert(xtr_link_contained("d/l2", "l/..", NULL, out,
	    sizeof(out)) == 1);
	cr_assert(strcmp(out, "d") == 0, "resolved \"%s\"", out);
	cr_assert(xtr_link_contained("l", "l", NULL, NULL, 0) == -ELOOP);
	cr_assert(xtr_link_contained("d/l", "../..", &nofn, NULL, 0) == 0);
	cr_assert(xtr_link_contained("d/l", "../x", &nofn, out,
	    sizeof(out)) == 1);
	cr_assert(strcmp(out, "x") == 0, "resolved \"%s\"", out);
}

Test(linkcheck_lookup, link_itself_is_its_target)
{
	static const struct lc_link others[] = { L("l", "/etc") };
	struct lc_set set = { NULL, NULL, others, 1, NULL, 0, NULL, 0 };

	expect_case("the lookup says l -> /etc, TARGET says x", "l", "x",
	    &set, 1, "x");
	cr_assert(set.calls == 2, "lookup called %zu times, expected 2",
	    set.calls);
}

Test(linkcheck_lookup, resolved_buffer_size)
{
	char out[9];

	memset(out, 0xa5, sizeof(out));
	cr_assert(xtr_link_contained("d/l", "abcde", NULL, out, 8) == 1);
	cr_assert(strcmp(out, "d/abcde") == 0, "resolved \"%s\"", out);
	memset(out, 0xa5, sizeof(out));
	cr_assert(xtr_link_contained("d/l", "abcdef", NULL, out, 8) ==
	    -ERANGE);
	cr_assert((unsigned char)out[8] == 0xa5, "wrote past CAP");
	cr_assert(xtr_link_contained("d/l", "..", NULL, out, 1) == 1);
	cr_assert(out[0] == '\0');
	cr_assert(xtr_link_contained("d/l", "..", NULL, out, 0) == -ERANGE);
	cr_assert(xtr_link_contained("d/l", "../..", NULL, out, 0) == 0);
}

/*
 * The property.  Each tree is built in ROOT, a fresh mkdtemp(3) directory,
 * from this skeleton:
 *
 *	root/
 *	|-- a/   |-- a/   |-- a/
 *	|        |        `-- b/
 *	|        `-- b/   |-- a/
 *	|                 `-- b/
 *	`-- b/   (the same four below)
 *
 * that is every path over {a, b} of depth 1 to 3, as directories, and 1
 * to 6 symlinks named a, b, l or m in a directory of depth 0 to 2.  A link
 * named a or b takes the place of that directory and of what would be
 * below it; no link is below another.  Targets are 1 to 5 components
 * drawn from "..", ".", "", a, b, l and m, sometimes absolute, sometimes
 * with a trailing '/'.
 *
 * The kernel resolves each link with openat2(ROOT, link, O_PATH,
 * RESOLVE_BENEATH): success means contained, and the descriptor's path
 * (from /proc/self/fd) must be the resolved one; EXDEV means escapes;
 * ELOOP means -ELOOP.  ENOENT (a dangling link, or a path deeper than the
 * skeleton) is not compared: the kernel stops where linkcheck goes on by
 * the name alone.  Those are counted and must stay a minority.
 */

#define PROP_TREES	4000
#define PROP_MAXLINKS	6
#define PROP_NDIRS	14

struct prop_tree {
	char dirs[PROP_NDIRS][8];
	bool made[PROP_NDIRS];
	char paths[PROP_MAXLINKS][16];
	char targets[PROP_MAXLINKS][32];
	struct lc_link links[PROP_MAXLINKS];
	size_t nlinks;
};

/* Advance the xorshift64 state *S and return the new value. */
static uint64_t
rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

/* Return: a number in [0, N). */
static size_t
rng_below(uint64_t *s, size_t n)
{
	return (size_t)(rng_next(s) % n);
}

/* Is A equal to B or a directory above it? */
static bool
path_covers(const char *a, const char *b)
{
	size_t la;

	la = strlen(a);
	return strncmp(a, b, la) == 0 && (b[la] == '\0' || b[la] == '/');
}

/* Is A equal to B, or one of them a directory above the other? */
static bool
paths_overlap(const char *a, const char *b)
{
	return path_covers(a, b) || path_covers(b, a);
}

/* Fill T->dirs with the skeleton, shallowest first. */
static void
prop_skeleton(struct prop_tree *t)
{
	static const char *const ab[] = { "a", "b" };
	size_t i, j, k, n;

	n = 0;
	for (i = 0; i < 2; i++)
		snprintf(t->dirs[n++], sizeof(t->dirs[0]), "%s", ab[i]);
	for (i = 0; i < 2; i++)
		for (j = 0; j < 2; j++)
			snprintf(t->dirs[n++], sizeof(t->dirs[0]), "%s/%s",
			    ab[i], ab[j]);
	for (i = 0; i < 2; i++)
		for (j = 0; j < 2; j++)
			for (k = 0; k < 2; k++)
				snprintf(t->dirs[n++], sizeof(t->dirs[0]),
				    "%s/%s/%s", ab[i], ab[j], ab[k]);
	cr_assert(n == PROP_NDIRS);
}

/* Draw a target into BUF (CAP bytes). */
static void
prop_target(uint64_t *s, char *buf, size_t cap)
{
	static const char *const comp[] = {
		"..", "..", "..", "..", "..", "..", ".", "", "a", "a", "a",
		"b", "b", "l", "l", "m", "m"
	};
	size_t ncomp, i, len;
	const char *c;

	len = 0;
	buf[0] = '\0';
	if (rng_below(s, 16) == 0)
		buf[len++] = '/';
	ncomp = 1 + rng_below(s, 5);
	for (i = 0; i < ncomp; i++) {
		c = comp[rng_below(s, sizeof(comp) / sizeof(comp[0]))];
		if (i == 0 && c[0] == '\0')
			c = ".";
		if (i > 0)
			buf[len++] = '/';
		len += (size_t)snprintf(buf + len, cap - len, "%s", c);
	}
	if (rng_below(s, 10) == 0)
		buf[len++] = '/';
	buf[len] = '\0';
	cr_assert(len < cap);
}

/* Draw the links of a tree. */
static void
prop_draw(uint64_t *s, struct prop_tree *t)
{
	static const char *const parents[] = {
		"", "a", "b", "a/a", "a/b", "b/a", "b/b"
	};
	static const char *const names[] = { "a", "b", "l", "m" };
	size_t want, i, j, tries;
	const char *p, *nm;
	bool clash;

	t->nlinks = 0;
	want = 1 + rng_below(s, PROP_MAXLINKS);
	for (i = 0; i < want; i++) {
		for (tries = 0; tries < 8; tries++) {
			p = parents[rng_below(s, 7)];
			nm = names[rng_below(s, 4)];
			snprintf(t->paths[t->nlinks], sizeof(t->paths[0]),
			    "%s%s%s", p, p[0] != '\0' ? "/" : "", nm);
			clash = false;
			for (j = 0; j < t->nlinks; j++)
				if (paths_overlap(t->paths[j],
				    t->paths[t->nlinks]))
					clash = true;
			if (!clash)
				break;
		}
		if (clash)
			continue;
		prop_target(s, t->targets[t->nlinks], sizeof(t->targets[0]));
		t->links[t->nlinks].path = t->paths[t->nlinks];
		t->links[t->nlinks].target = t->targets[t->nlinks];
		t->nlinks++;
	}
}

/* Make T under ROOTFD: the skeleton's directories, then the links. */
static void
prop_build(int rootfd, struct prop_tree *t)
{
	size_t i, j;

	for (i = 0; i < PROP_NDIRS; i++) {
		t->made[i] = true;
		for (j = 0; j < t->nlinks; j++)
			if (path_covers(t->paths[j], t->dirs[i]))
				t->made[i] = false;
		if (t->made[i])
			cr_assert(mkdirat(rootfd, t->dirs[i], 0755) == 0,
			    "mkdirat %s: %s", t->dirs[i], strerror(errno));
	}
	for (j = 0; j < t->nlinks; j++)
		cr_assert(symlinkat(t->targets[j], rootfd, t->paths[j]) == 0,
		    "symlinkat %s: %s", t->paths[j], strerror(errno));
}

/* Undo prop_build: the links, then the directories, deepest first. */
static void
prop_clear(int rootfd, struct prop_tree *t)
{
	size_t i, j;

	for (j = 0; j < t->nlinks; j++)
		cr_assert(unlinkat(rootfd, t->paths[j], 0) == 0,
		    "unlinkat %s: %s", t->paths[j], strerror(errno));
	for (i = PROP_NDIRS; i-- > 0;)
		if (t->made[i])
			cr_assert(unlinkat(rootfd, t->dirs[i],
			    AT_REMOVEDIR) == 0, "rmdir %s: %s", t->dirs[i],
			    strerror(errno));
}

/*
 * Open PATH beneath ROOTFD the way the kernel resolves it, following
 * symlinks.  openat2 fails with EAGAIN when a rename anywhere on the
 * system races a ".." of the lookup, and the race tests running beside
 * this one rename without pause: retry at once a few times, then with a
 * millisecond's pause, for up to about ten seconds.  Return: a
 * descriptor, or -errno.
 */
static int
kernel_open(int rootfd, const char *path)
{
	struct timespec pause = { 0, 1000000 };
	struct open_how how;
	long fd;
	int tries;

	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_CLOEXEC;
	how.resolve = RESOLVE_BENEATH;
	for (tries = 0; tries < 10128; tries++) {
		fd = syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
		if (fd >= 0)
			return (int)fd;
		if (errno != EAGAIN)
			return -errno;
		if (tries >= 128)
			(void)nanosleep(&pause, NULL);
	}
	return -EAGAIN;
}

/* Does this kernel have openat2(2) at all? */
static bool
kernel_has_openat2(void)
{
	return !(syscall(SYS_openat2, -1, "", NULL, (size_t)0) == -1 &&
	    errno == ENOSYS);
}

/* Write the path of FD into BUF (CAP bytes).  Return: false if unknown. */
static bool
fd_path(int fd, char *buf, size_t cap)
{
	char proc[64];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, buf, cap - 1);
	if (n < 0 || (size_t)n >= cap - 1)
		return false;
	buf[n] = '\0';
	return true;
}

/* Describe tree T in BUF, for failure messages. */
static const char *
prop_describe(const struct prop_tree *t, char *buf, size_t cap)
{
	size_t i, len;

	len = 0;
	buf[0] = '\0';
	for (i = 0; i < t->nlinks && len < cap; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%s -> \"%s\"",
		    i > 0 ? ", " : "", t->paths[i], t->targets[i]);
	return buf;
}

/*
 * A memo for linkcheck (linkcheck.h), kept over one tree: the answers
 * with it must be exactly those without.
 */
#define TMEMO_MAX 1024
struct tmemo {
	char *key[TMEMO_MAX];
	struct xtr_link_res res[TMEMO_MAX];
	char *resolved[TMEMO_MAX];
	size_t n, hits;
};

static int
tmemo_get(void *arg, const char *rel, struct xtr_link_res *res)
{
	struct tmemo *m = arg;
	size_t i;

	for (i = 0; i < m->n; i++) {
		if (strcmp(m->key[i], rel) == 0) {
			*res = m->res[i];
			res->resolved = m->resolved[i];
			m->hits++;
			return 1;
		}
	}
	return 0;
}

static void
tmemo_put(void *arg, const char *rel, const struct xtr_link_res *res)
{
	struct tmemo *m = arg;

	if (m->n == TMEMO_MAX)
		return;
	m->key[m->n] = strdup(rel);
	m->resolved[m->n] = strdup(res->r == 1 ? res->resolved : "");
	cr_assert(m->key[m->n] != NULL && m->resolved[m->n] != NULL);
	m->res[m->n] = *res;
	m->n++;
}

static void
tmemo_clear(struct tmemo *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		free(m->key[i]);
		free(m->resolved[i]);
	}
	m->n = 0;
}

Test(linkcheck_prop, agrees_with_the_kernel, .timeout = 300.)
{
	static struct prop_tree t;
	const char *tmp;
	char top[PATH_MAX], rootpath[PATH_MAX], fdpath[PATH_MAX];
	char want[PATH_MAX + PFX_PATH_MAX + 1], out[PFX_PATH_MAX];
	char desc[512];
	static struct xtr_link_frame frames[8];
	static struct tmemo tm;
	struct xtr_link_memo memo = { tmemo_get, tmemo_put, &tm, frames, 8 };
	char out2[PFX_PATH_MAX];
	struct xtr_link_lookup lu = { NULL, NULL, NULL, NULL, false };
	struct lc_set set;
	uint64_t seed, steps;
	int r2;
	size_t tree, j, compared, nin, nout, nloop, nent;
	int rootfd, fd, r, expect;
	bool have_proc;

	if (!kernel_has_openat2())
		cr_skip_test("openat2 is not available on this kernel");

	tmp = getenv("TMPDIR");
	if (tmp == NULL || tmp[0] == '\0')
		tmp = "/tmp";
	snprintf(top, sizeof(top), "%s/pfx-linkcheck.XXXXXX", tmp);
	cr_assert(mkdtemp(top) != NULL, "mkdtemp: %s", strerror(errno));
	rootfd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(rootfd >= 0, "open %s: %s", top, strerror(errno));
	have_proc = fd_path(rootfd, rootpath, sizeof(rootpath));

	prop_skeleton(&t);
	seed = 0x9e3779b97f4a7c15u;
	compared = nin = nout = nloop = nent = 0;
	for (tree = 0; tree < PROP_TREES; tree++) {
		prop_draw(&seed, &t);
		prop_build(rootfd, &t);
		for (j = 0; j < t.nlinks; j++) {
			fd = kernel_open(rootfd, t.paths[j]);
			if (fd == -ENOENT) {
				nent++;
				continue;
			}
			cr_assert(fd >= 0 || fd == -EXDEV || fd == -ELOOP,
			    "tree %zu [%s]: kernel says %s for %s", tree,
			    prop_describe(&t, desc, sizeof(desc)),
			    strerror(-fd), t.paths[j]);
			expect = fd >= 0 ? 1 : fd == -EXDEV ? 0 : -ELOOP;

			memset(&set, 0, sizeof(set));
			set.v = t.links;
			set.n = t.nlinks;
			lu.fn = set_lookup;
			lu.arg = &set;
			r = xtr_link_contained(t.paths[j], t.targets[j], &lu,
			    out, sizeof(out));
			lu.memo = &memo;
			steps = 0;
			lu.steps = &steps;
			r2 = xtr_link_contained(t.paths[j], t.targets[j], &lu,
			    out2, sizeof(out2));
			lu.memo = NULL;
			lu.steps = NULL;
			cr_assert(r2 == r && (r != 1 ||
			    strcmp(out, out2) == 0) && steps > 0,
			    "tree %zu [%s]: %s: %s with a memo, %s without",
			    tree, prop_describe(&t, desc, sizeof(desc)),
			    t.paths[j], answer_name(r2), answer_name(r));
			cr_assert(r == expect,
			    "tree %zu [%s]: %s: linkcheck %s, kernel %s", tree,
			    prop_describe(&t, desc, sizeof(desc)), t.paths[j],
			    answer_name(r), answer_name(expect));
			if (fd >= 0 && have_proc) {
				cr_assert(fd_path(fd, fdpath,
				    sizeof(fdpath)));
				snprintf(want, sizeof(want), "%s%s%s",
				    rootpath, out[0] != '\0' ? "/" : "", out);
				cr_assert(strcmp(fdpath, want) == 0,
				    "tree %zu [%s]: %s: linkcheck resolves "
				    "to \"%s\", the kernel to %s", tree,
				    prop_describe(&t, desc, sizeof(desc)),
				    t.paths[j], out, fdpath);
			}
			if (fd >= 0)
				close(fd);
			compared++;
			if (expect == 1)
				nin++;
			else if (expect == 0)
				nout++;
			else
				nloop++;
		}
		prop_clear(rootfd, &t);
		tmemo_clear(&tm);
	}
	close(rootfd);
	cr_log_info("linkcheck property: %zu memo hits", tm.hits);
	cr_assert(tm.hits > 0, "the memo was never used");
	cr_assert(rmdir(top) == 0, "rmdir %s: %s", top, strerror(errno));

	cr_log_info("linkcheck property: %zu links compared (%zu contained, "
	    "%zu escape, %zu loop), %zu dangling skipped", compared, nin,
	    nout, nloop, nent);
	cr_assert(compared >= 5000, "only %zu links compared", compared);
	cr_assert(nin >= 500 && nout >= 500 && nloop >= 50,
	    "too few of a kind: %zu contained, %zu escape, %zu loop", nin,
	    nout, nloop);
	cr_assert(nent < compared, "%zu dangling, %zu compared", nent,
	    compared);
}

/*
 * The limit of XTR_LINK_MAX_FOLLOW, counting the link itself, is the
 * kernel's: chain41 built for real, with f a directory.  Following c1
 * takes 40 links and works; following c0 takes 41 and fails with ELOOP.
 */
Test(linkcheck_prop, chain_limit_is_the_kernels)
{
	const char *tmp;
	char top[PATH_MAX];
	struct lc_set set = { NULL, NULL, CHAIN41, NULL, 0, NULL, 0 };
	struct xtr_link_lookup lu = { set_lookup, &set, NULL, NULL, false };
	size_t i;
	int rootfd, fd, r;

	if (!kernel_has_openat2())
		cr_skip_test("openat2 is not available on this kernel");
	tmp = getenv("TMPDIR");
	if (tmp == NULL || tmp[0] == '\0')
		tmp = "/tmp";
	snprintf(top, sizeof(top), "%s/pfx-linkcheck.XXXXXX", tmp);
	cr_assert(mkdtemp(top) != NULL, "mkdtemp: %s", strerror(errno));
	rootfd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(rootfd >= 0, "open %s: %s", top, strerror(errno));
	cr_assert(mkdirat(rootfd, "f", 0755) == 0);
	for (i = 0; i < set.n; i++)
		cr_assert(symlinkat(set.v[i].target, rootfd,
		    set.v[i].path) == 0, "symlinkat %s: %s", set.v[i].path,
		    strerror(errno));

	fd = kernel_open(rootfd, "c0");
	cr_assert(fd == -ELOOP, "kernel: c0 gives %s", answer_name(fd));
	r = xtr_link_contained("c0", "c1", &lu, NULL, 0);
	cr_assert(r == -ELOOP, "linkcheck: c0 gives %s", answer_name(r));

	fd = kernel_open(rootfd, "c1");
	cr_assert(fd >= 0, "kernel: c1 gives %s", answer_name(fd));
	close(fd);
	r = xtr_link_contained("c1", "c2", &lu, NULL, 0);
	cr_assert(r == 1, "linkcheck: c1 gives %s", answer_name(r));

	for (i = 0; i < set.n; i++)
		cr_assert(unlinkat(rootfd, set.v[i].path, 0) == 0);
	cr_assert(unlinkat(rootfd, "f", AT_REMOVEDIR) == 0);
	close(rootfd);
	cr_assert(rmdir(top) == 0, "rmdir %s: %s", top, strerror(errno));
}

/*
 * --symlinks=root: the rules of RESOLVE_IN_ROOT.  "/" is the destination,
 * ".." at the top stays there, and a path that reaches a magic link under
 * proc/ is refused.
 */
static const struct lc_row root_rows[] = {
	IN("root_absolute", "lib64/ld.so", "/lib/x86_64/ld.so",
	    "lib/x86_64/ld.so", NONE),
	IN("root_absolute_through_merged_usr", "lib64/ld.so",
	    "/lib/x86_64/ld.so", "usr/lib/x86_64/ld.so",
	    SET(L("lib", "usr/lib"))),
	IN("root_dotdot_past_top", "etc/localtime",
	    "../../../../usr/share/zoneinfo/UTC", "usr/share/zoneinfo/UTC",
	    NONE),
	IN("root_dotdot_then_back", "a/l", "../../a/../../b", "b", NONE),
	IN("root_chain_of_absolutes", "x", "/y/z", "t/z",
	    SET(L("y", "/w/.."), L("w", "/t/u"))),
	IN("root_mtab", "etc/mtab", "../proc/self/mounts",
	    "proc/self/mounts", NONE),
	IN("root_proc_self_net", "etc/n", "/proc/net/dev", "proc/net/dev",
	    NONE),
	OUT("root_magic_root", "etc/evil", "/proc/1/root", NONE),
	OUT("root_magic_self_fd", "etc/evil", "../../proc/self/fd/3", NONE),
	OUT("root_magic_task_cwd", "etc/evil", "/proc/self/task/1/cwd",
	    NONE),
	OUT("root_magic_through_chain", "a", "p/root",
	    SET(L("p", "/proc/self"))),
	OUT("root_magic_after_dotdot", "a", "x/../proc/1/exe", NONE),
	OUT("root_empty", "a", "", NONE),
	ERR("root_loop", "a", "/b", -ELOOP, SET(L("b", "/a"))),
	ERR("root_chain_41", "l", "c0", -ELOOP, CHAIN41),
};

Test(linkcheck_root, table)
{
	char out[PFX_PATH_MAX];
	size_t i;
	int r;

	for (i = 0; i < sizeof(root_rows) / sizeof(root_rows[0]); i++) {
		const struct lc_row *row = &root_rows[i];
		struct lc_set set = { row->link, row->target, row->set,
		    row->nset, NULL, 0, NULL, 0 };
		struct xtr_link_lookup lu = { set_lookup, &set, NULL, NULL,
		    true };

		r = xtr_link_contained(row->link, row->target, &lu, out,
		    sizeof(out));
		cr_assert(r == row->expect, "%s: got %s, expected %s",
		    row->name, answer_name(r), answer_name(row->expect));
		if (r == 1)
			cr_assert_str_eq(out, row->resolved, "%s", row->name);
	}
}
