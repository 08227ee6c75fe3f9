/*
 * decmem.h -- the decoders' part of the memory budget (decmem.c).
 */
#ifndef XTR_DECMEM_H
#define XTR_DECMEM_H

#include "decode.h"
#include "extract.h"

/*
 * What the decoders may take of the memory budget LIM->max_memory, on
 * CPUS CPUs (plat_thread_cpus()), into *MEM: xz's threads together
 * 1/XTR_XZ_MEM_SHARE of it, one thread the whole of it; a zstd frame's
 * window the whole of it (decode.h).
 * Names, links and tables are counted against the whole budget apart,
 * in the process that writes; the decoders' memory is in the process
 * that decodes (the sandbox's decoder process, or this one), where
 * xtr_decoder_rlimit() caps it all.
 */
void xtr_dec_mem_of(const struct pfx_limits *lim, unsigned int cpus,
    struct xtr_dec_mem *mem);

/*
 * The RLIMIT_DATA of the decoder process for LIM and MEM, or 0 for none
 * (no budget): the budget and XTR_DECODER_HEADROOM, more where the
 * stacks of MEM->threads xz threads and of the decoder thread need more
 * than half of that.  A decoder that runs away stops there with ENOMEM.
 */
uint64_t xtr_decoder_rlimit(const struct pfx_limits *lim,
    const struct xtr_dec_mem *mem);

#endif /* XTR_DECMEM_H */
