/*
 * test_ring.c -- a plain tar in a file, read by the decoder process into
 * the ring it shares with the parent (child.c ring_block(), placed.c):
 * the data is sent where it was read, not copied.  What could go wrong
 * there is what these cases build: headers with no data past the ring's
 * size (the parent is told of no byte of them, and must not be waited
 * on), data and headers cut by the 1 MiB blocks, pax headers that
 * libarchive copies out of a block, files larger than the ring.  Each
 * file's bytes are checked against what was archived.
 *
 *	$TMPDIR/pfx-ring.XXXXXX/
 *	|-- a.tar	the archive, read through a descriptor
 *	`-- dest/	the destination
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <criterion/criterion.h>

#include "pfextract.h"
#include "fixture.h"

/* The bytes of file number N at OFFSET: no two files, and no two blocks
 * of one file, alike. */
static unsigned char
byte_of(unsigned int n, uint64_t offset)
{
	uint64_t v = (offset + 1) * 0x9e3779b97f4a7c15ull ^
	    (uint64_t)(n + 1) * 0xc2b2ae3d27d4eb4full;

	return (unsigned char)(v >> 29);
}

/* One file of the archive: its name, size and place in the order. */
struct member {
	char name[3000];
	uint64_t size;
	unsigned int n;
};

/* Add member M to A, its data from byte_of(). */
static void
add_member(struct archive *a, const struct member *m)
{
	static unsigned char buf[65536];
	struct archive_entry *e = archive_entry_new();
	uint64_t off = 0;
	size_t k, i;

	cr_assert(e != NULL);
	archive_entry_set_pathname(e, m->name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, (la_int64_t)m->size);
	cr_assert(archive_write_header(a, e) == ARCHIVE_OK, "%s",
	    archive_error_string(a));
	while (off < m->size) {
		k = m->size - off < sizeof(buf) ? (size_t)(m->size - off) :
		    sizeof(buf);
		for (i = 0; i < k; i++)
			buf[i] = byte_of(m->n, off + i);
		cr_assert(archive_write_data(a, buf, k) == (la_ssize_t)k);
		off += k;
	}
	archive_entry_free(e);
}

/* Write the N members V as a pax tar into file PATH, gzipped when GZIP
 * (the decoder process then copies the data into the ring). */
static void
write_tar(const char *path, const struct member *v, size_t n, bool gzip)
{
	struct archive *a = archive_write_new();
	size_t i;

	cr_assert(a != NULL);
	cr_assert(archive_write_set_format_pax_restricted(a) == ARCHIVE_OK);
	if (gzip)
		cr_assert(archive_write_add_filter_gzip(a) == ARCHIVE_OK);
	cr_assert(archive_write_open_filename(a, path) == ARCHIVE_OK);
	for (i = 0; i < n; i++)
		add_member(a, &v[i]);
	cr_assert(archive_write_close(a) == ARCHIVE_OK);
	archive_write_free(a);
}

/* Is member M in DEST, byte for byte? */
static void
expect_member(int dest, const struct member *m)
{
	static unsigned char buf[65536];
	uint64_t off = 0;
	struct stat st;
	ssize_t got, i;
	int fd;

	fd = openat(dest, m->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	cr_assert(fd >= 0, "%.60s: %s", m->name, strerror(errno));
	cr_assert(fstat(fd, &st) == 0 && S_ISREG(st.st_mode));
	cr_assert_eq((uint64_t)st.st_size, m->size, "%.60s: size", m->name);
	while ((got = read(fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < got; i++)
			if (buf[i] != byte_of(m->n, off + (uint64_t)i))
				cr_assert_fail("%.60s: byte %llu differs",
				    m->name,
				    (unsigned long long)(off + (uint64_t)i));
		off += (uint64_t)got;
	}
	cr_assert(got == 0 && off == m->size);
	(void)close(fd);
}

/* Extract the N members V, archived at TOP/a.tar (gzipped when GZIP),
 * through a descriptor with the decoder process, and check every one. */
static void
extract_and_check(const char *top, int dest, const struct member *v,
    size_t n, unsigned int flags, bool gzip)
{
	struct pfx_options opt;
	struct pfx_result res;
	struct pfx_input in;
	char path[PATH_MAX];
	size_t i;

	(void)snprintf(path, sizeof(path), "%s/a.tar", top);
	write_tar(path, v, n, gzip);
	memset(&in, 0, sizeof(in));
	in.fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert(in.fd >= 0);
	pfx_options_init(&opt);
	opt.flags |= flags;
	cr_assert_eq(pfx_extract(&in, dest, ".", &opt, &res), PFX_OK, "%s",
	    res.message);
	cr_expect_eq(res.stats.extracted, n);
	for (i = 0; i < n; i++)
		expect_member(dest, &v[i]);
	(void)close(in.fd);
}

/*
 * 12,000 empty files (6 MiB of headers, past the 4 MiB ring) between
 * files with data: the parent is told of no byte of those blocks, so a
 * child that waited for it to be done with them would wait forever.
 */
Test(ring, headers_past_the_ring, .timeout = 120)
{
	static struct member v[12004];
	char top[PATH_MAX];
	size_t i, n = 0;
	int dest;

	dest = tfx_temp_dest("ring", top, sizeof(top));
	for (i = 0; i < 12002; i++, n++) {
		(void)snprintf(v[n].name, sizeof(v[n].name), "e%05zu", i);
		v[n].size = i == 0 || i == 12001 ? 300000 : 0;
		v[n].n = (unsigned int)n;
	}
	extract_and_check(top, dest, v, n, PFX_OPT_SANDBOX_CHILD, false);
	tfx_temp_end(&dest, top);
}

/*
 * Sizes around the 1 MiB blocks and the 4 MiB ring, each after a pax
 * header of a long name (libarchive copies a header cut by a block out of
 * it, and the data after it may start in that copy): every byte where it
 * belongs.  On every CPU, and on one (no worker thread in the parent).
 */
static void
blocks_case(bool gzip)
{
	static const uint64_t sizes[] = {
		1, 511, 512, 513, 1048575, 1048576, 1048577, 3000000,
		4194303, 4194304, 4194305, 9437184 + 17, 0, 700000, 1500000,
	};
	static struct member v[2 * sizeof(sizes) / sizeof(sizes[0])];
	char top[PATH_MAX];
	size_t i, n = 0, len;
	int dest;

	dest = tfx_temp_dest("ring", top, sizeof(top));
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		/* A plain name, then one of 1,000 to 2,918 bytes. */
		(void)snprintf(v[n].name, sizeof(v[n].name), "f%02zu", i);
		v[n].size = sizes[i];
		v[n].n = (unsigned int)n;
		n++;
		/* Components of 199 bytes: no name past NAME_MAX. */
		len = 1000 + 137 * i;
		for (size_t j = 0; j < len; j++)
			v[n].name[j] = j % 200 == 199 ? '/' :
			    (char)('a' + (int)((i + j / 200) % 26));
		v[n].name[len - 1] = 'z';	/* a file, not a directory */
		v[n].name[len] = '\0';
		v[n].size = sizes[(i + 5) % (sizeof(sizes) / sizeof(sizes[0]))];
		v[n].n = (unsigned int)n;
		n++;
	}
	extract_and_check(top, dest, v, n, PFX_OPT_SANDBOX_CHILD, gzip);
	tfx_temp_end(&dest, top);
}

Test(ring, data_across_blocks, .timeout = 120)
{
	blocks_case(false);
}

Test(ring, data_across_blocks_one_cpu, .timeout = 120)
{
	cpu_set_t old;

	cr_assert(tfx_pin_one_cpu(&old) >= 1);
	blocks_case(false);
}

/*
 * The same files gzipped: the decoder process copies their data into the
 * ring, in blocks of up to 256 KiB, going round the span in use (1 MiB
 * from the ring's start, then 2, then the whole ring: child.c
 * ring_room()) while the parent still holds the blocks of the lap
 * before.  Every byte where it belongs, on every CPU and on one.
 */
Test(ring, data_across_laps_copied, .timeout = 120)
{
	blocks_case(true);
}

Test(ring, data_across_laps_copied_one_cpu, .timeout = 120)
{
	cpu_set_t old;

	cr_assert(tfx_pin_one_cpu(&old) >= 1);
	blocks_case(true);
}
