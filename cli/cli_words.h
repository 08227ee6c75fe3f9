/*
 * cli_words.h -- the library's messages in the command's words.  The
 * library names its own fields and flags (PFX_OPT_ATOMIC,
 * limits.max_bytes); pfextract(1) shows its users the options that set
 * them (--atomic, --max-bytes).  Only the CLI (main.c) uses this.
 */
#ifndef XTR_CLI_WORDS_H
#define XTR_CLI_WORDS_H

#include <stddef.h>

/*
 * Write TEXT to OUT (CAP bytes, at least 1), each library word of the
 * table in cli_words.c replaced by its option; cut to fit.
 * Return: OUT.
 */
const char *xtr_cli_words(const char *text, char *out, size_t cap);

#endif /* XTR_CLI_WORDS_H */
