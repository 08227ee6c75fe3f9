/*
 * fuzz.h -- what every harness in fuzz/ defines, for libFuzzer (make fuzz)
 * and for the plain replay driver (replay.c, make check).
 */
#ifndef FUZZ_FUZZ_H
#define FUZZ_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Run one input of SIZE bytes at DATA.  A broken property is an abort();
 * anything else returns 0.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* --- harness.c: checks that more than one harness makes ---------------- */

/*
 * Is "/" + REL a normalised absolute path: no empty, "." or ".."
 * component, none over PFX_NAME_MAX bytes, the whole under
 * PFX_PATH_MAX - 1 ("" is the destination itself)?
 */
bool fuzz_rel_ok(const char *rel);

/* Return: how many descriptors below 1024 are open. */
int fuzz_count_fds(void);

#endif /* FUZZ_FUZZ_H */
