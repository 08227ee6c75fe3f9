/*
 * push_tar.h -- a second reader for the push API's tests: a small tar
 * reader of its own (ustar, pax, GNU and v7 headers; no compression, no
 * sparse files) that gives each entry to pfx_writer_*() instead of
 * letting libarchive read the archive.  obj/tests/pfextract-push is the
 * pfextract command with pfx_extract() replaced by push_tar_extract(),
 * so that the attack corpus (corpus/run.sh) runs through the push API
 * with every option the command has, and must come out as it does
 * through pfx_extract().
 */
#ifndef TESTS_PUSH_TAR_H
#define TESTS_PUSH_TAR_H

#include "pfextract.h"

/*
 * pfx_extract(), but an uncompressed tar archive that this reader reads
 * whole is read here and pushed through pfx_writer_*(); anything else (a
 * compressed or non-tar input, a sparse member, a pipe) goes to
 * pfx_extract() itself.
 */
enum pfx_status push_tar_extract(const struct pfx_input *in, int dirfd,
    const char *dest, const struct pfx_options *opt,
    struct pfx_result *result);

#endif /* TESTS_PUSH_TAR_H */
