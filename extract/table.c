/*
 * table.c -- an open-addressing hash map from relative path to a record.
 *
 * Threat model: the keys are names an archive chose.  With a hash anyone
 * can compute, an archive can pick names that all land in one run of
 * slots and make each insertion walk every name before it (quadratic
 * time: 262,144 such names cost 25 times what random names of 4 times
 * fewer cost).  So the hash is SipHash-1-3 under a key drawn at random
 * for each table: which names collide cannot be known in advance.
 *
 * Everything a table holds for the archive -- its slot array and its
 * keys -- is taken from the run's memory budget (xtr_mem_take()) before
 * it is allocated, and given back when freed.  Keys are packed into
 * chunks (an arena) rather than allocated one by one: nothing is ever
 * removed from a table, and a malloc per key costs 8 to 24 bytes more.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "budget.h"
#include "extract.h"
#include "platform.h"
#include "table.h"

/*
 * The most slots a table may have: a slot keeps the low 32 bits of its
 * key's hash, which must still give its place when the table grows.
 * (2^32 slots would be 240 GB: no budget gets there.)
 */
#define TABLE_MAX_CAP ((size_t)1 << 31)

/* Key chunks: the first this big, each next twice the last, up to MAX. */
#define CHUNK_FIRST 4096
#define CHUNK_MAX (64 * 1024)

struct xtr_chunk {
	struct xtr_chunk *next;	/* the one filled before */
	size_t size;		/* bytes of DATA */
	size_t used;
	char data[];
};

static uint64_t
rotl(uint64_t v, unsigned int n)
{
	return (v << n) | (v >> (64 - n));
}

/* One SipRound (the paper's Figure 2.1) on the state V. */
static void
sip_round(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = rotl(v[1], 13);
	v[1] ^= v[0];
	v[0] = rotl(v[0], 32);
	v[2] += v[3];
	v[3] = rotl(v[3], 16);
	v[3] ^= v[2];
	v[0] += v[3];
	v[3] = rotl(v[3], 21);
	v[3] ^= v[0];
	v[2] += v[1];
	v[1] = rotl(v[1], 17);
	v[1] ^= v[2];
	v[2] = rotl(v[2], 32);
}

/* Absorb the message word M with C rounds. */
static void
sip_word(uint64_t v[4], uint64_t m, unsigned int c)
{
	unsigned int i;

	v[3] ^= m;
	for (i = 0; i < c; i++)
		sip_round(v);
	v[0] ^= m;
}

/* see table.h */
uint64_t
xtr_siphash(const uint64_t key[2], const void *msg, size_t len,
    unsigned int c, unsigned int d)
{
	const unsigned char *p = msg;
	uint64_t v[4], m;
	size_t i, words = len / 8;
	unsigned int j;

	v[0] = key[0] ^ 0x736f6d6570736575ull;
	v[1] = key[1] ^ 0x646f72616e646f6dull;
	v[2] = key[0] ^ 0x6c7967656e657261ull;
	v[3] = key[1] ^ 0x7465646279746573ull;
	/* The message as little-endian words, whatever the host's order. */
	for (i = 0; i < words; i++, p += 8) {
		m = 0;
		for (j = 0; j < 8; j++)
			m |= (uint64_t)p[j] << (8 * j);
		sip_word(v, m, c);
	}
	/* The last word: the 0 to 7 bytes left, the length's low byte on top. */
	m = (uint64_t)(len & 0xff) << 56;
	for (j = 0; j < len % 8; j++)
		m |= (uint64_t)p[j] << (8 * j);
	sip_word(v, m, c);
	v[2] ^= 0xff;
	for (j = 0; j < d; j++)
		sip_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/*
 * Draw T's hash key.  Should the random source fail (no getrandom, no
 * /dev/urandom in a chroot), the key is made of what still differs from
 * one process to the next and cannot be read from the archive: where
 * ASLR put the stack, the heap and this code, the clocks' nanoseconds and
 * the process id, mixed by SipHash itself.  Weaker than random bytes, but
 * an attacker would have to guess it before writing the archive.
 */
void
xtr_hash_key(uint64_t key[2])
{
	uint64_t seed[6], zero[2] = { 0, 0 };
	struct timespec ts;
	int on_stack;

	if (plat_os_random(key, 2 * sizeof(key[0])) == 0)
		return;
	seed[0] = (uint64_t)(uintptr_t)&on_stack;
	seed[1] = (uint64_t)(uintptr_t)key;
	seed[2] = (uint64_t)(uintptr_t)&xtr_hash_key;
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	seed[3] = (uint64_t)ts.tv_sec << 32 ^ (uint64_t)ts.tv_nsec;
	(void)clock_gettime(CLOCK_REALTIME, &ts);
	seed[4] = (uint64_t)ts.tv_sec << 32 ^ (uint64_t)ts.tv_nsec;
	seed[5] = (uint64_t)getpid();
	key[0] = xtr_siphash(zero, seed, sizeof(seed), 2, 4);
	seed[0] ^= key[0];
	key[1] = xtr_siphash(zero, seed, sizeof(seed), 2, 4);
}

/* The hash of KEY (LEN bytes) in T: SipHash-1-3, one round a word. */
static uint64_t
hash_key(const struct xtr_table *t, const char *key, size_t len)
{
	return xtr_siphash(t->key, key, len, 1, 3);
}

/* Take N bytes of T's owner's budget (none without one).  0 or -1. */
static int
take(struct xtr_table *t, size_t n)
{
	return t->owner != NULL ? xtr_mem_take(t->owner, n) : 0;
}

static void
give(struct xtr_table *t, size_t n)
{
	if (t->owner != NULL)
		xtr_mem_give(t->owner, n);
}

/*
 * The slot of KEY (hash H) in T, or the free slot where it would go; adds
 * the slots looked at to *STEPS.  The load stays under 3/4
 * (xtr_table_add), so a free slot ends every walk.
 */
static struct xtr_slot *
probe(const struct xtr_table *t, const char *key, uint64_t h,
    uint64_t *steps)
{
	size_t i, mask = t->cap - 1;
	uint32_t h32 = (uint32_t)h;

	for (i = (size_t)h & mask;; i = (i + 1) & mask) {
		struct xtr_slot *s = &t->slots[i];

		(*steps)++;
		if (s->key == NULL || (s->hash == h32 &&
		    strcmp(s->key, key) == 0))
			return s;
	}
}

/* see table.h */
void
xtr_table_init(struct xtr_table *t, struct xtr *owner)
{
	memset(t, 0, sizeof(*t));
	t->owner = owner;
}

/* see table.h */
struct xtr_slot *
xtr_table_find(const struct xtr_table *t, const char *key)
{
	struct xtr_slot *s;
	uint64_t steps = 0;	/* finds are not counted: T is const */

	if (t->cap == 0)
		return NULL;
	s = probe(t, key, hash_key(t, key, strlen(key)), &steps);
	return s->key != NULL ? s : NULL;
}

/* Double the table.  Return: 0, or -1 when memory or budget runs out. */
static int
grow(struct xtr_table *t)
{
	struct xtr_slot *old = t->slots, *s;
	size_t i, old_cap = t->cap, cap;

	cap = old_cap == 0 ? 64 : old_cap * 2;
	if (cap > TABLE_MAX_CAP || take(t, cap * sizeof(*s)) < 0)
		return -1;
	s = calloc(cap, sizeof(*s));
	if (s == NULL) {
		give(t, cap * sizeof(*s));
		return -1;
	}
	t->slots = s;
	t->cap = cap;
	/* The low 32 bits of the hash are all a place needs (MAX_CAP). */
	for (i = 0; i < old_cap; i++) {
		if (old[i].key != NULL)
			*probe(t, old[i].key, old[i].hash,
			    &t->probes) = old[i];
	}
	free(old);
	give(t, old_cap * sizeof(*s));
	return 0;
}

/*
 * A copy of KEY (LEN bytes and its NUL) in T's arena.
 * Return: it, or NULL when memory or budget runs out.
 */
static char *
store_key(struct xtr_table *t, const char *key, size_t len)
{
	struct xtr_chunk *c = t->chunks;
	size_t size;
	char *p;

	if (c == NULL || c->size - c->used <= len) {
		size = c == NULL ? CHUNK_FIRST : c->size < CHUNK_MAX ?
		    c->size * 2 : CHUNK_MAX;
		if (size <= len)
			size = len + 1;
		if (take(t, sizeof(*c) + size) < 0)
			return NULL;
		c = malloc(sizeof(*c) + size);
		if (c == NULL) {
			give(t, sizeof(*c) + size);
			return NULL;
		}
		c->next = t->chunks;
		c->size = size;
		c->used = 0;
		t->chunks = c;
	}
	p = c->data + c->used;
	memcpy(p, key, len + 1);
	c->used += len + 1;
	return p;
}

/* A key noted, and who it was made as (xtr_table_note()). */
struct xtr_table_note {
	char *key;		/* in the arena */
	dev_t dev;
	ino_t ino;
};

/*
 * Find KEY (LEN bytes), adding it if missing: a copy of it in the arena,
 * or KEY itself if STORED (it is in the arena already).
 * Return: its slot, or NULL when memory or the budget runs out.
 */
static struct xtr_slot *
add(struct xtr_table *t, const char *key, size_t len, bool stored)
{
	struct xtr_slot *s;
	const char *copy;
	uint64_t h;

	if (!t->keyed) {
		xtr_hash_key(t->key);
		t->keyed = true;
	}
	h = hash_key(t, key, len);
	/* Keep the load under 3/4 so probing stays short and terminates. */
	if ((t->used + 1) * 4 > t->cap * 3 && grow(t) < 0)
		return NULL;
	s = probe(t, key, h, &t->probes);
	if (s->key != NULL)
		return s;
	copy = stored ? key : store_key(t, key, len);
	if (copy == NULL)
		return NULL;
	memset(s, 0, sizeof(*s));
	s->key = (char *)copy;
	s->hash = (uint32_t)h;
	t->used++;
	return s;
}

/* see table.h */
struct xtr_slot *
xtr_table_add(struct xtr_table *t, const char *key)
{
	return add(t, key, strlen(key), false);
}

/* see table.h */
int
xtr_table_note(struct xtr_table *t, const char *key, dev_t dev, ino_t ino)
{
	struct xtr_table_note *v;
	size_t cap, len = strlen(key);
	char *copy;

	if (t->nnotes == t->notes_cap) {
		cap = t->notes_cap == 0 ? 256 : t->notes_cap * 2;
		if (cap > TABLE_MAX_CAP || take(t, cap * sizeof(*v)) < 0)
			return -1;
		v = realloc(t->notes, cap * sizeof(*v));
		if (v == NULL) {
			give(t, cap * sizeof(*v));
			return -1;
		}
		give(t, t->notes_cap * sizeof(*v));
		t->notes = v;
		t->notes_cap = cap;
	}
	copy = store_key(t, key, len);
	if (copy == NULL)
		return -1;
	v = &t->notes[t->nnotes++];
	v->key = copy;
	v->dev = dev;
	v->ino = ino;
	return 0;
}

/* see table.h */
void
xtr_table_settle(struct xtr_table *t)
{
	struct xtr_slot *s;
	size_t i;

	for (i = 0; i < t->nnotes; i++) {
		s = add(t, t->notes[i].key, strlen(t->notes[i].key), true);
		if (s == NULL)
			break;
		s->dev = t->notes[i].dev;
		s->ino = t->notes[i].ino;
		s->has_id = true;
	}
	/* The slots hold them now: the records go back to the budget. */
	free(t->notes);
	give(t, t->notes_cap * sizeof(*t->notes));
	t->notes = NULL;
	t->nnotes = t->notes_cap = 0;
}

/* see table.h */
void
xtr_table_free(struct xtr_table *t)
{
	struct xtr_chunk *c, *next;

	for (c = t->chunks; c != NULL; c = next) {
		next = c->next;
		give(t, sizeof(*c) + c->size);
		free(c);
	}
	free(t->slots);
	give(t, t->cap * sizeof(*t->slots));
	free(t->notes);
	give(t, t->notes_cap * sizeof(*t->notes));
	t->chunks = NULL;
	t->slots = NULL;
	t->notes = NULL;
	t->cap = t->used = t->nnotes = t->notes_cap = 0;
}

static size_t
depth_of(const char *path)
{
	size_t d = 0;

	for (; *path != '\0'; path++)
		d += *path == '/';
	return d;
}

/*
 * Keys in descending order, '/' below every other byte: "a/b" and "a/c"
 * before "a", and "a-" (a neighbour) before "a/b", so that what lies
 * beneath "a" comes together, right before it.
 */
static int
branch_first(const void *a, const void *b)
{
	const unsigned char *p = (const unsigned char *)
	    (*(struct xtr_slot *const *)a)->key;
	const unsigned char *q = (const unsigned char *)
	    (*(struct xtr_slot *const *)b)->key;
	unsigned int x, y;

	for (; *p != '\0' && *p == *q; p++, q++)
		continue;
	x = *p == '/' ? 1u : *p == '\0' ? 0u : (unsigned int)*p + 1u;
	y = *q == '/' ? 1u : *q == '\0' ? 0u : (unsigned int)*q + 1u;
	return x == y ? 0 : x > y ? -1 : 1;
}

/* see table.h */
int
xtr_table_by_branch(const struct xtr_table *t, struct xtr_slot ***order,
    size_t *n)
{
	size_t i;

	*order = NULL;
	*n = 0;
	if (t->used == 0)
		return 0;
	*order = calloc(t->used, sizeof(**order));
	if (*order == NULL)
		return -ENOMEM;
	for (i = 0; i < t->cap; i++)
		if (t->slots[i].key != NULL)
			(*order)[(*n)++] = &t->slots[i];
	qsort(*order, *n, sizeof(**order), branch_first);
	return 0;
}

/* A slot and its key's depth, counted once: not per comparison. */
struct by_depth {
	size_t depth;
	struct xtr_slot *slot;
};

static int
deepest_first(const void *a, const void *b)
{
	const struct by_depth *da = a, *db = b;

	if (da->depth != db->depth)
		return da->depth > db->depth ? -1 : 1;
	return strcmp(da->slot->key, db->slot->key);
}

/*
 * see table.h.  Cost: each kept key's depth counted once, then
 * O(n log n) comparisons.
 */
int
xtr_table_by_depth(const struct xtr_table *t,
    bool (*keep)(const struct xtr_slot *), struct xtr_slot ***order,
    size_t *n)
{
	struct by_depth *v;
	size_t i;

	*order = NULL;
	*n = 0;
	if (t->used == 0)
		return 0;
	v = calloc(t->used, sizeof(*v));
	*order = calloc(t->used, sizeof(**order));
	if (v == NULL || *order == NULL) {
		free(v);
		free(*order);
		*order = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < t->cap; i++) {
		if (t->slots[i].key != NULL &&
		    (keep == NULL || keep(&t->slots[i]))) {
			v[*n].depth = depth_of(t->slots[i].key);
			v[(*n)++].slot = &t->slots[i];
		}
	}
	qsort(v, *n, sizeof(*v), deepest_first);
	for (i = 0; i < *n; i++)
		(*order)[i] = v[i].slot;
	free(v);
	return 0;
}
