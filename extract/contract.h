/*
 * contract.h -- what pfx_extract() and pfx_writer_open() check first
 * (contract.c).
 */
#ifndef XTR_CONTRACT_H
#define XTR_CONTRACT_H

#include "extract.h"

/*
 * Check OPT's size, flag bits, enumerators and arrays (pfx_extract(),
 * pfx_writer_open()).  Return: 0, or -1 with RES filled as a call refused
 * (PFX_FATAL, EINVAL, the field named).
 */
int xtr_contract_options(const struct pfx_options *opt,
    struct pfx_result *res);

/*
 * Check pfx_extract()'s arguments (OPT may be NULL, the defaults; RES
 * must not be): the options' size, flag bits and enumerators, NULL
 * pointers where they are needed.  Return: 0, or -1 with RES filled as a
 * call refused (PFX_FATAL, EINVAL, the field named).
 */
int xtr_contract_check(const struct pfx_input *in, const char *dest,
    const struct pfx_options *opt, struct pfx_result *res);

#endif /* XTR_CONTRACT_H */
