/*
 * cpiowalk.c -- libarchive's cpio reader keeps each file of more than one
 * link (a directory too: its links are its subdirectories) in a linked
 * list until as many more entries of its device and inode have come, and
 * walks that list from its head for every such entry it reads
 * (record_hardlink() in archive_read_support_format_cpio.c, inside
 * archive_read_next_header(), before pfextract sees the entry).  An
 * archive of N files that each claim two links and never give the second
 * makes that N^2 / 2 steps: 160,000 entries (a 900 KB .cpio.gz) took 32 s
 * of CPU, and four million would take hours; the list's names, far
 * apart in memory, make each step slower still.
 *
 * So the reader counts what libarchive does, as it does it: a table of
 * the groups in its list, by device and inode, with the links still to
 * come, and the bytes the list holds (XTR_CPIO_NODE and the name per
 * group).  Each entry of more than one link is charged the whole list,
 * and past XTR_CPIO_WALK_PER bytes for each entry read and each link
 * limits.max_links allows, the read fails: a real archive's directories
 * and link groups take a small part of it.  The table holds only the
 * groups still in the list, whose number the bound keeps under a few
 * hundred thousand.
 *
 * The keys are the archive's: the table is hashed under a key drawn at
 * random for each reader.  (Not table.c's SipHash: this file is below
 * the readers, and table.c above them.)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpiowalk.h"
#include "extract.h"
#include "platform.h"

/* One group of libarchive's list. */
struct xtr_cpio_group {
	uint64_t dev, ino;
	uint64_t hash;
	uint64_t bytes;		/* what it holds of the list */
	unsigned int left;	/* links still to come */
	bool used;
};

/* A 64-bit finaliser (MurmurHash3's): every bit of V moves every bit. */
static uint64_t
mix(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	v *= 0xc4ceb9fe1a85ec53ull;
	v ^= v >> 33;
	return v;
}

/* The hash of (DEV, INO) under W's key. */
static uint64_t
hash_of(const struct xtr_cpio_walk *w, uint64_t dev, uint64_t ino)
{
	return mix(mix(ino ^ w->key[0]) ^ dev ^ w->key[1]);
}

/* Draw W's key: random bytes, or what differs from one run to the next. */
static void
draw_key(struct xtr_cpio_walk *w)
{
	struct timespec ts;

	if (plat_os_random(w->key, sizeof(w->key)) == 0)
		return;
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	w->key[0] = mix((uint64_t)(uintptr_t)&ts ^ (uint64_t)ts.tv_nsec);
	w->key[1] = mix((uint64_t)(uintptr_t)w ^ (uint64_t)getpid() ^
	    (uint64_t)ts.tv_sec);
}

/* The slot of (DEV, INO), hash H, or the free slot where it would go. */
static struct xtr_cpio_group *
slot(const struct xtr_cpio_walk *w, uint64_t dev, uint64_t ino, uint64_t h)
{
	size_t i, mask = w->cap - 1;

	for (i = (size_t)h & mask;; i = (i + 1) & mask) {
		if (!w->v[i].used || (w->v[i].dev == dev &&
		    w->v[i].ino == ino))
			return &w->v[i];
	}
}

/* Double W's table.  Return: 0, or -1 (out of memory). */
static int
grow(struct xtr_cpio_walk *w)
{
	struct xtr_cpio_group *old = w->v;
	size_t i, old_cap = w->cap;

	w->cap = old_cap == 0 ? 64 : old_cap * 2;
	w->v = calloc(w->cap, sizeof(*w->v));
	if (w->v == NULL) {
		w->v = old;
		w->cap = old_cap;
		return -1;
	}
	for (i = 0; i < old_cap; i++)
		if (old[i].used)
			*slot(w, old[i].dev, old[i].ino, old[i].hash) = old[i];
	free(old);
	return 0;
}

/*
 * Empty the slot G of W, moving back the ones after it that would not be
 * found past a hole (linear probing's deletion: no tombstone is left).
 */
static void
drop(struct xtr_cpio_walk *w, struct xtr_cpio_group *g)
{
	size_t mask = w->cap - 1, i = (size_t)(g - w->v), j = i, home;

	for (;;) {
		j = (j + 1) & mask;
		if (!w->v[j].used)
			break;
		home = (size_t)w->v[j].hash & mask;
		/* Stays where it is if its home lies in (i, j], cyclically. */
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		w->v[i] = w->v[j];
		i = j;
	}
	w->v[i].used = false;
	w->used--;
}

/* see cpiowalk.h */
int
xtr_cpio_walk_count(struct xtr_cpio_walk *w, unsigned int nlink,
    uint64_t dev, uint64_t ino, const char *name, char *msg, size_t cap)
{
	struct xtr_cpio_group *g;
	uint64_t h, allowed;

	if (w->max_links == 0)
		return 0;
	w->entries++;
	if (nlink <= 1)
		return 0;
	/* libarchive looked from the list's head: at most all of it. */
	w->walked += w->list;
	if (w->cap == 0)
		draw_key(w);
	h = hash_of(w, dev, ino);
	/* The load stays under 1/2, so a free slot ends every probe. */
	if ((w->used + 1) * 2 > w->cap && grow(w) < 0) {
		(void)snprintf(msg, cap, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	g = slot(w, dev, ino, h);
	if (g->used) {
		/* One more of its links: the last takes it off the list. */
		if (--g->left == 0) {
			w->list -= g->bytes;
			drop(w, g);
		}
	} else {
		g->dev = dev;
		g->ino = ino;
		g->hash = h;
		g->left = nlink - 1;
		g->bytes = XTR_CPIO_NODE + (name != NULL ? strlen(name) : 0) +
		    1;
		g->used = true;
		w->used++;
		w->list += g->bytes;
	}
	allowed = w->entries + w->max_links;
	allowed = allowed > UINT64_MAX / XTR_CPIO_WALK_PER ? UINT64_MAX :
	    allowed * XTR_CPIO_WALK_PER;
	if (w->walked <= allowed)
		return 0;
	(void)snprintf(msg, cap, "limit max-links=%" PRIu64 " reached: "
	    "libarchive's cpio reader has walked %" PRIu64 " MiB of its "
	    "list of files with more than one link, more than 1 MiB for "
	    "each entry read and each link allowed: quadratic (raise "
	    "limits.max_links, or set it to 0)", w->max_links,
	    w->walked >> 20);
	return -EFBIG;
}

/* see cpiowalk.h */
void
xtr_cpio_walk_free(struct xtr_cpio_walk *w)
{
	free(w->v);
	w->v = NULL;
	w->cap = w->used = 0;
	w->entries = w->walked = w->list = 0;
}
