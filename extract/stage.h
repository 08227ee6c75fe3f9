/*
 * stage.h -- libarchive's filters as a stage of their own, ahead of the
 * format reader (stage.c).  Used by reader.c in -G runs.
 */
#ifndef XTR_STAGE_H
#define XTR_STAGE_H

#include "decode.h"

struct archive;

/*
 * Open A on the stream that INNER gives: INNER is a reader of
 * libarchive's filters and of the raw and empty formats only, whose
 * archive_read_open() just returned R; it is owned from here on, freed
 * with A (or here, when this fails).  Every byte handed to A passes HEAD
 * (not NULL) first, so that HEAD's window holds the very bytes A's
 * format reader parses; HEAD->staged is set when a filter decodes them,
 * and HEAD->raw then follows the compressed bytes read.
 * Return: libarchive's status of A's open (ARCHIVE_FATAL with A's error
 * set to INNER's when INNER cannot give its stream).
 */
int xtr_stage_open(struct archive *a, struct archive *inner, int r,
    struct xtr_head *head);

#endif /* XTR_STAGE_H */
