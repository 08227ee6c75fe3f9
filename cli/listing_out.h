/*
 * listing_out.h -- what pfextract(1) prints about entries as GNU tar 1.34
 * prints it: -t names, -tv long lines (and -xvv), -R block numbers,
 * --totals, --checkpoint.  Only the CLI (pfextract.c) uses this.
 */
#ifndef XTR_LISTING_OUT_H
#define XTR_LISTING_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "../cli/quote.h"
#include "pfextract.h"

/* GNU tar's starting widths of the owner-and-size and date columns. */
#define LIST_UGS_WIDTH 19
#define LIST_DATE_WIDTH 16

/* One --checkpoint-action. */
enum ckpt_kind {
	CKPT_ECHO,	/* "pfextract: TEXT" on stderr (TEXT NULL: default) */
	CKPT_DOT,	/* '.' on the listing's stream */
	CKPT_BELL,	/* '\a' on the terminal */
	CKPT_TTYOUT,	/* TEXT on the terminal */
	CKPT_TOTALS,	/* the --totals line */
	CKPT_SLEEP	/* sleep TEXT seconds */
};

struct ckpt_action {
	enum ckpt_kind kind;
	const char *text;
};

#define LIST_CKPT_MAX 16

struct list_fmt {
	struct quote q;
	const char *prog;	/* what messages begin with: "pfextract", or
				   the name it runs under (main.c) */
	bool numeric;		/* --numeric-owner */
	bool full_time;		/* --full-time */
	bool utc;		/* --utc */
	bool block_number;	/* -R */
	bool tty_out;		/* the listing goes to a terminal */
	bool tty_err;
	int ugswidth;		/* only grows, as in GNU tar */
	int datewidth;		/* likewise */
	/* --checkpoint */
	uint64_t ckpt_every;	/* records; 0: none */
	uint64_t ckpt_done;	/* the last record checkpointed */
	struct ckpt_action ckpt[LIST_CKPT_MAX];
	size_t nckpt;
	bool dots;		/* a dot was written: end with a newline */
	FILE *tty;		/* /dev/tty for bell and ttyout, or NULL */
	struct timespec start;	/* CLOCK_MONOTONIC, for the rates */
};

/* Set *F to GNU tar's defaults (its quoting, per the user's locale). */
void list_fmt_init(struct list_fmt *f, bool multibyte, bool utf8);

/* Write NAME quoted as F says (COLON: as in a message) to OUT. */
void list_put_quoted(FILE *out, const struct list_fmt *f, const char *name,
    bool colon);

/* The line for E: -t ("name"), or with LONG -tv's; "block N: " first
 * with -R. */
void list_put_entry(FILE *out, struct list_fmt *f, const struct pfx_entry *e,
    bool is_long);

/* Write the GNU volume label E as GNU tar lists it: its name, or with
 * IS_LONG "V--------- 0/0 0 DATE NAME--Volume Header--". */
void list_put_label(FILE *out, struct list_fmt *f, const struct pfx_entry *e,
    bool is_long);

/* -R at the end of a tar archive of ARCHIVE_BYTES bytes: "block N: **
 * Block of NULs **". */
void list_put_end_block(FILE *out, const struct list_fmt *f,
    uint64_t archive_bytes);

/* Write "Total bytes read: N (4.7GiB, 186MiB/s)" and a newline to OUT.
 * TAR: round N up to tar's records. */
void list_put_totals(FILE *out, const struct list_fmt *f, uint64_t bytes,
    bool tar);

/* --checkpoint: run the actions of every checkpoint up to the record
 * that holds byte AT of the archive (through its end when END). */
void list_checkpoints(struct list_fmt *f, uint64_t at, bool end,
    FILE *listing);

/* Parse one --checkpoint-action value into F.  Return: 0, or -1 with a
 * reason in ERR (CAP bytes). */
int list_parse_ckpt_action(struct list_fmt *f, const char *v, char *err,
    size_t cap);

#endif /* XTR_LISTING_OUT_H */
