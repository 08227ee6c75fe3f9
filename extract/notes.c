/*
 * notes.c -- a queue of the join's warnings (notes.h): volumes.c finds
 * them inside libarchive's read callback, the decoder process sends
 * them between its messages, and more than one may come before the
 * engine looks (a volume skipped, the next one's name cut).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "notes.h"
#include "pfextract.h"
#include "pfx_path.h"

/* see notes.h */
const char *
xtr_note_code(int kind)
{
	switch (kind) {
	case XTR_NOTE_TRUNCATED:
		return "truncated_name";
	case XTR_NOTE_NOT_CONTINUED:
		return "not_continued";
	case XTR_NOTE_OUT_OF_SEQUENCE:
		return "out_of_sequence";
	case XTR_NOTE_WRONG_SIZE:
		return "wrong_size";
	default:
		return NULL;
	}
}

/* see notes.h */
int
xtr_notes_add(struct xtr_notes *q, int kind, const char *name)
{
	size_t n = strnlen(name, PFX_PATH_MAX + 1), need;
	char *p;

	if (xtr_note_code(kind) == NULL || n == 0 || n > PFX_PATH_MAX ||
	    q->count >= PFX_MAX_VOLUMES)
		return -EINVAL;
	if (q->at == q->len)	/* all taken: start again */
		q->at = q->len = 0;
	need = q->len + 1 + n + 1;
	if (need > q->cap) {
		p = realloc(q->buf, need * 2);
		if (p == NULL)
			return -ENOMEM;
		q->buf = p;
		q->cap = need * 2;
	}
	q->buf[q->len] = (char)kind;
	memcpy(q->buf + q->len + 1, name, n + 1);
	q->len = need;
	q->count++;
	return 0;
}

/* see notes.h */
const char *
xtr_notes_take(struct xtr_notes *q, int *kind)
{
	const char *name;

	if (q->at >= q->len)
		return NULL;
	*kind = (unsigned char)q->buf[q->at];
	name = q->buf + q->at + 1;
	q->at += 1 + strlen(name) + 1;
	return name;
}

/* see notes.h */
void
xtr_notes_free(struct xtr_notes *q)
{
	free(q->buf);
	memset(q, 0, sizeof(*q));
}
