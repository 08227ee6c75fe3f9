/*
 * core.h -- what every file of the decision core shares: the contract
 * (pfx_path.h) and the logic the proofs speak in (spec.h).  It declares
 * no function: each file's own header does (component.h, windows.h,
 * check.h), and a file includes only the headers of the files below it
 * (docs/design.md, "Layers").  Nothing here is exported.
 */
#ifndef CORE_H
#define CORE_H

#include <stdbool.h>
#include <stddef.h>

#include "pfx_path.h"
#include "spec.h"

#endif /* CORE_H */
