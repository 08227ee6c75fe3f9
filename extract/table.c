/*
 * table.c -- an open-addressing hash map from relative path to a record.
 * It grows by doubling; its size is bounded by the number of entries the
 * archive has (which issue-level limits bound in turn).
 */
#include <stdlib.h>
#include <string.h>

#include "extract.h"

/* FNV-1a: small, and good enough for paths. */
static uint64_t
hash_key(const char *key)
{
	uint64_t h = 1469598103934665603ull;

	while (*key != '\0') {
		h ^= (unsigned char)*key++;
		h *= 1099511628211ull;
	}
	return h;
}

static struct xtr_slot *
probe(const struct xtr_table *t, const char *key, uint64_t h)
{
	size_t i, mask = t->cap - 1;

	for (i = (size_t)h & mask;; i = (i + 1) & mask) {
		struct xtr_slot *s = &t->slots[i];

		if (s->key == NULL || (s->hash == h && strcmp(s->key, key) == 0))
			return s;
	}
}

/* see extract.h */
struct xtr_slot *
xtr_table_find(const struct xtr_table *t, const char *key)
{
	struct xtr_slot *s;

	if (t->cap == 0)
		return NULL;
	s = probe(t, key, hash_key(key));
	return s->key != NULL ? s : NULL;
}

/* Double the table.  Return: 0, or -1 when memory runs out. */
static int
grow(struct xtr_table *t)
{
	struct xtr_table n;
	size_t i;

	n.cap = t->cap == 0 ? 64 : t->cap * 2;
	if (n.cap < t->cap)
		return -1;
	n.slots = calloc(n.cap, sizeof(*n.slots));
	if (n.slots == NULL)
		return -1;
	n.used = t->used;
	for (i = 0; i < t->cap; i++) {
		if (t->slots[i].key != NULL)
			*probe(&n, t->slots[i].key, t->slots[i].hash) =
			    t->slots[i];
	}
	free(t->slots);
	*t = n;
	return 0;
}

/* see extract.h */
struct xtr_slot *
xtr_table_add(struct xtr_table *t, const char *key)
{
	struct xtr_slot *s;
	uint64_t h = hash_key(key);

	/* Keep the load under 3/4 so probing stays short and terminates. */
	if ((t->used + 1) * 4 > t->cap * 3 && grow(t) < 0)
		return NULL;
	s = probe(t, key, h);
	if (s->key != NULL)
		return s;
	memset(s, 0, sizeof(*s));
	s->key = strdup(key);
	if (s->key == NULL)
		return NULL;
	s->hash = h;
	t->used++;
	return s;
}

/* see extract.h */
void
xtr_table_free(struct xtr_table *t)
{
	size_t i;

	for (i = 0; i < t->cap; i++)
		free(t->slots[i].key);
	free(t->slots);
	t->slots = NULL;
	t->cap = t->used = 0;
}
