/*
 * gen.h -- what the corpus generator's case files share: a registry of
 * cases, archives written through libarchive's writer (every format and
 * filter it has), and raw tar and zip bytes for the hostile forms that a
 * correct writer refuses to produce.
 *
 * Every function here exits the generator with a message when it cannot
 * do its job: the generator is a build tool, and a case that silently
 * produced a different archive would make its test meaningless.
 */
#ifndef CORPUS_GEN_H
#define CORPUS_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct archive;

/*
 * One case: NAME is the manifest's case name and the archive's file name
 * (with the extension the case adds); BUILD writes it.
 */
struct gen_case {
	const char *name;
	void (*build)(const char *name);
};

/* The case tables of the family files; each ends with { NULL, NULL }. */
extern const struct gen_case gen_cases_names[];
extern const struct gen_case gen_cases_links[];
extern const struct gen_case gen_cases_special[];
extern const struct gen_case gen_cases_resources[];

/* The absolute path of the test tree the runner makes (its argv[2]). */
const char *gen_abs_root(void);
/* ROOT "/" REL, in a static buffer of the caller's that it returns. */
const char *gen_abs(char *buf, size_t cap, const char *rel);
/* The output path of FILE (in the output directory); static buffer. */
const char *gen_out_path(const char *file);
void	 gen_die(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2), noreturn));

/*
 * Archives through libarchive.  FORMAT: "ustar", "pax", "gnutar", "v7",
 * "zip", "newc", "odc", "bin" (cpio), "7zip".  FILTER: NULL or "none",
 * "gzip", "bzip2", "xz", "lzma", "lzip", "zstd", "lz4", "compress".
 * FILE is the output file's name (in the output directory).
 */
struct archive *gen_open(const char *file, const char *format,
	    const char *filter);
void	 gen_close(struct archive *);
/* Entries; every mtime is fixed so that the archives are reproducible. */
void	 gen_file(struct archive *, const char *name, const char *data,
	    mode_t perm);
void	 gen_file_len(struct archive *, const char *name, const void *data,
	    size_t len, mode_t perm);
void	 gen_file_zeros(struct archive *, const char *name, uint64_t size);
void	 gen_dir(struct archive *, const char *name, mode_t perm);
void	 gen_symlink(struct archive *, const char *name, const char *target);
/* A hard link; DATA (may be NULL) is written as the link's payload. */
void	 gen_hardlink(struct archive *, const char *name, const char *target,
	    const char *data);
/* A device node, FIFO or socket: TYPE is AE_IFCHR, AE_IFBLK, ... */
void	 gen_special(struct archive *, const char *name, mode_t type,
	    unsigned int major, unsigned int minor);
/* A file with owner and full mode bits (setuid, sticky, ...). */
void	 gen_file_owned(struct archive *, const char *name, const char *data,
	    mode_t perm, int64_t uid, int64_t gid);
void	 gen_dir_owned(struct archive *, const char *name, mode_t perm,
	    int64_t uid, int64_t gid);

/* A growing byte buffer, for raw archives. */
struct gen_buf {
	unsigned char *p;
	size_t len, cap;
};

void	 gen_buf_add(struct gen_buf *, const void *, size_t);
void	 gen_buf_zeros(struct gen_buf *, size_t);
void	 gen_buf_free(struct gen_buf *);
/* Write B to FILE, through FILTER (as gen_open) if not NULL or "none". */
void	 gen_buf_save(const struct gen_buf *, const char *file,
	    const char *filter);

/*
 * Raw tar: one 512-byte header with a correct checksum.  NAME and LINK are
 * byte strings of the given lengths (NUL bytes allowed; longer than the
 * field is cut).  MAGIC: "ustar" (POSIX), "gnu" (GNU "ustar  "), "v7".
 */
void	 raw_tar_header(struct gen_buf *, const char *magic, const char *name,
	    size_t namelen, char type, mode_t perm, uint64_t size,
	    const char *link, size_t linklen);
/* The header of a file: "ustar", name, '0', 0644. */
void	 raw_tar_file(struct gen_buf *, const char *name, const char *data);
/* DATA, padded with zeros to a 512-byte boundary. */
void	 raw_tar_data(struct gen_buf *, const void *data, size_t len);
/* A pax extended header ('x', or 'g' global) holding RECORDS: "key=value"
 * strings, each made into a "len key=value\n" record; NULL-terminated. */
void	 raw_tar_pax(struct gen_buf *, char type, const char *const *records);
/* A GNU long name ('L') or long link ('K') record carrying NAME. */
void	 raw_tar_gnu_long(struct gen_buf *, char type, const char *name,
	    size_t len);
/* The two zero blocks that end a tar archive. */
void	 raw_tar_end(struct gen_buf *);

/*
 * Raw zip: entries stored (METHOD 0) or deflated (8, DATA is then the
 * raw deflate stream and USIZE/CRC describe the uncompressed data).  The
 * local headers are written as added; gen_zip_finish writes the central
 * directory, where extra entries may point at any local header.
 */
struct gen_zip {
	struct gen_buf b;
	struct gen_buf cd;
	unsigned int n;
};

/* Add a local header and data, and its central record; return the local
 * header's offset. */
uint32_t gen_zip_add(struct gen_zip *, const char *name, size_t namelen,
	    unsigned int method, const void *data, size_t len, uint32_t usize,
	    uint32_t crc, uint32_t ext_attr);
/* A central directory record for the local header at OFFSET. */
void	 gen_zip_central(struct gen_zip *, const char *name, size_t namelen,
	    unsigned int method, uint32_t csize, uint32_t usize, uint32_t crc,
	    uint32_t offset, uint32_t ext_attr);
void	 gen_zip_finish(struct gen_zip *, const char *file);
/* A raw deflate stream of DATA (zlib, level 9), in a buffer of its own. */
void	 gen_deflate(struct gen_buf *out, const void *data, size_t len);
/* zlib's crc32 of LEN zero bytes, or of DATA. */
uint32_t gen_crc32(const void *data, size_t len);

#endif /* CORPUS_GEN_H */
