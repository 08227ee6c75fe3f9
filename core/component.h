/*
 * component.h -- the components of a name (component.c), for the files
 * of the core above it (normalize.c, windows.c).
 */
#ifndef CORE_COMPONENT_H
#define CORE_COMPONENT_H

#include <stddef.h>

/*
 * Find the next '/'-separated component of IN (LEN bytes) at or after
 * *POS: separators are skipped, the component's first byte is returned
 * and *POS is left just past its last.  At the end the component is
 * empty (*POS - start == 0).
 */
size_t core_next_component(const char *in, size_t len, size_t *pos);

#endif /* CORE_COMPONENT_H */
