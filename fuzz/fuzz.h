/*
 * fuzz.h -- what every harness in fuzz/ defines, for libFuzzer (make fuzz)
 * and for the plain replay driver (replay.c, make check).
 */
#ifndef FUZZ_FUZZ_H
#define FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/*
 * Run one input of SIZE bytes at DATA.  A broken property is an abort();
 * anything else returns 0.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* FUZZ_FUZZ_H */
