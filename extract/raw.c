/*
 * raw.c -- how many bytes of the archive were read so far, whichever
 * reads it: the decoder process, our zip reader, our decoder thread, or
 * libarchive.
 * What the ratio limit (budget.c) divides by, below it and below the
 * source (source.c), whose draining of an entry is held to that limit.
 */
#include "decode.h"
#include "extract.h"
#include "raw.h"
#include "reader.h"
#include "remote.h"
#include "zip.h"


/* see raw.h */
int64_t
xtr_source_raw(const struct xtr *x)
{
	if (x->remote != NULL)
		return (int64_t)xtr_remote_raw(x->remote);
	if (x->zip != NULL)
		return (int64_t)xtr_zip_raw(x->zip);
	return (int64_t)xtr_reader_raw_bytes(x->ar, x->dec, &x->head);
}
