/*
 * table.h -- a map from relative path to a small record, and SipHash
 * (table.c).
 */
#ifndef XTR_TABLE_H
#define XTR_TABLE_H

#include "extract.h"

/*
 * SipHash-c-d (Aumasson and Bernstein, 2012) of LEN bytes at MSG under
 * KEY: the tables use c = 1, d = 3.
 */
uint64_t xtr_siphash(const uint64_t key[2], const void *msg, size_t len,
    unsigned int c, unsigned int d);

/* A fresh SipHash key for one table of one run: random bytes, or what
 * differs from one process to the next where there are none. */
void xtr_hash_key(uint64_t key[2]);

/* Make T empty, charging what it will hold to OWNER (NULL: nobody). */
void xtr_table_init(struct xtr_table *t, struct xtr *owner);

/* Find KEY.  Return: its slot, or NULL. */
struct xtr_slot *xtr_table_find(const struct xtr_table *t, const char *key);

/*
 * Find KEY, adding it (zeroed, key copied) if missing.
 * Return: its slot, or NULL when memory or T's owner's memory budget
 * runs out (xtr_mem_take(): the run then fails with EFBIG).
 */
struct xtr_slot *xtr_table_add(struct xtr_table *t, const char *key);

/*
 * Note that KEY was made with identity DEV and INO, for xtr_table_settle()
 * to add (as xtr_table_add() would, then setting dev, ino and has_id):
 * a note costs a copy of KEY and a record written in order, and no slot
 * of a table that an archive with no hard link never looks in.
 * Return: 0, or -1 when memory or the budget runs out.
 */
int xtr_table_note(struct xtr_table *t, const char *key, dev_t dev,
    ino_t ino);

/*
 * Add every key noted since the last call, in the order noted (a later
 * note of a key wins).  One that memory or the budget has no room for is
 * not added, nor any after it: they are not found.
 */
void xtr_table_settle(struct xtr_table *t);

/* Release everything T holds and give it back to T's owner. */
void xtr_table_free(struct xtr_table *t);

/*
 * The used slots of T for which KEEP says true (every one if KEEP is
 * NULL), deepest path first, in *ORDER (NULL when there is none; the
 * caller frees it) and their number in *N.
 * Return: 0, or -ENOMEM.
 */
int xtr_table_by_depth(const struct xtr_table *t,
    bool (*keep)(const struct xtr_slot *), struct xtr_slot ***order,
    size_t *n);

/*
 * The used slots of T, each after every slot whose key lies beneath its
 * own ("a/b" before "a"), and those beneath one key together: keys in
 * descending byte order with '/' below every other byte.  In *ORDER (NULL
 * when there is none; the caller frees it), their number in *N.
 * Return: 0, or -ENOMEM.
 */
int xtr_table_by_branch(const struct xtr_table *t, struct xtr_slot ***order,
    size_t *n);

#endif /* XTR_TABLE_H */
