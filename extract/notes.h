/*
 * notes.h -- the warnings of tar -M's join that do not stop the run
 * (notes.c), queued where they are found (volumes.c, or the NOTE and
 * SKIP messages of the decoder process in remote.c) until the engine
 * tells pfx_options.warning of them.
 */
#ifndef XTR_NOTES_H
#define XTR_NOTES_H

#include <stddef.h>

/* What a note says of its member (pfx_options.warning's code). */
enum xtr_note_kind {
	/* a later volume continues it by the 100 bytes of an 'M' header */
	XTR_NOTE_TRUNCATED = 't',
	/* a volume continuing another member was skipped */
	XTR_NOTE_NOT_CONTINUED = 'n',
	/* a volume continuing it from another offset was skipped */
	XTR_NOTE_OUT_OF_SEQUENCE = 's',
	/* a volume continuing it with another size was skipped */
	XTR_NOTE_WRONG_SIZE = 'w'
};

/* A queue of notes; all zero is empty.  At most PFX_MAX_VOLUMES notes
 * are ever added (one per volume), so it holds at most that many names
 * of PFX_PATH_MAX bytes, and none once they are taken. */
struct xtr_notes {
	char *buf;		/* records: a kind byte, the name, a NUL */
	size_t len, at, cap;	/* bytes held, taken, allocated */
	size_t count;		/* notes added so far */
};

/* Queue a note of KIND (enum xtr_note_kind) on NAME (NUL-free, at most
 * PFX_PATH_MAX bytes).  Return: 0, or -EINVAL (a bad kind or name, or
 * PFX_MAX_VOLUMES notes already), -ENOMEM. */
int xtr_notes_add(struct xtr_notes *q, int kind, const char *name);

/* The oldest note not yet taken, and its *KIND: valid until the next
 * xtr_notes_add(); NULL when there is none. */
const char *xtr_notes_take(struct xtr_notes *q, int *kind);

/* pfx_options.warning's code for KIND, or NULL if it is none. */
const char *xtr_note_code(int kind);

/* Free what Q holds; it is empty again. */
void xtr_notes_free(struct xtr_notes *q);

#endif /* XTR_NOTES_H */
