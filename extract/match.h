/*
 * match.h -- which members an archive's entries are: -T, --exclude,
 * --occurrence (match.c).
 */
#ifndef XTR_MATCH_H
#define XTR_MATCH_H

#include "extract.h"

/*
 * Is NAME left out by the include, member and exclude patterns of OPT?
 * Sets HITS[i] (if HITS is not NULL) for each include pattern that
 * selects it, and HITS[ninclude + i] for each member.
 * Return: NULL if selected, else "excluded" or "not_selected".
 */
const char *xtr_unselected(const struct pfx_options *opt, const char *name,
    bool *hits);

/*
 * GNU tar's --occurrence: is NAME, selected, not the wanted occurrence of
 * the first member that matches it?  SEEN counts per member how many
 * entries it selected by their own name (a directory's content does not
 * count once the directory did).
 */
bool xtr_occurrence_skips(const struct pfx_options *opt, const char *name,
    uint64_t *seen);

/* Does a member of OPT (its own flags) match NAME, as stored? */
bool xtr_member_matches(const struct pfx_options *opt, const char *name);

#endif /* XTR_MATCH_H */
