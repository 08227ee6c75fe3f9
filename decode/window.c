/*
 * window.c -- the last bytes of the decompressed archive, as the reader
 * hands them to libarchive (struct xtr_window, decode.h).
 *
 * libarchive reads some headers and drops what it does not know; a
 * GNU.dumpdir pax record is one (paxdump.c).  Rather than parse the
 * stream a second way, the reader keeps its last bytes, and the header
 * libarchive just read is read again from them, at the offset libarchive
 * gives, and checked against the entry libarchive made of it.  Cost: one
 * copy of every byte, only in runs that ask for it (-G).
 */
#include <stdlib.h>
#include <string.h>

#include "decode.h"

/* see decode.h */
struct xtr_window *
xtr_window_new(size_t cap)
{
	struct xtr_window *t;

	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return NULL;
	t->buf = malloc(cap);
	if (t->buf == NULL) {
		free(t);
		return NULL;
	}
	t->cap = cap;
	return t;
}

/* see decode.h */
void
xtr_window_free(struct xtr_window *t)
{
	if (t == NULL)
		return;
	free(t->buf);
	free(t);
}

/* Keep P (N bytes), the next of the stream, in T. */
static void
window_add(struct xtr_window *t, const unsigned char *p, size_t n)
{
	size_t at, first;

	if (n > t->cap) {	/* only the last CAP of them can stay */
		t->end += n - t->cap;
		p += n - t->cap;
		n = t->cap;
	}
	at = (size_t)(t->end % t->cap);
	first = t->cap - at < n ? t->cap - at : n;
	memcpy(t->buf + at, p, first);
	memcpy(t->buf, p + first, n - first);
	t->end += n;
}

/* see decode.h */
int
xtr_window_get(const struct xtr_window *t, uint64_t at, size_t n, void *out)
{
	size_t from, first;

	if (n > t->cap || at > t->end || t->end - at < n ||
	    t->end - at > t->cap)
		return -1;
	from = (size_t)(at % t->cap);
	first = t->cap - from < n ? t->cap - from : n;
	memcpy(out, t->buf + from, first);
	memcpy((unsigned char *)out + first, t->buf, n - first);
	return 0;
}

/* see decode.h */
void
xtr_head_add(struct xtr_head *h, const void *p, size_t n)
{
	size_t room;

	if (h == NULL)
		return;
	if (h->window != NULL)
		window_add(h->window, p, n);
	if (h->len >= sizeof(h->buf))
		return;
	room = sizeof(h->buf) - h->len;
	if (n > room)
		n = room;
	memcpy(h->buf + h->len, p, n);
	h->len += n;
}
