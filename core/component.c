/*
 * component.c -- the '/'-separated components of a name, one at a time:
 * below both the normalisation (normalize.c) and the Windows checks
 * (windows.c), which walk a name by them.
 *
 * The contract is proved by `make prove` (docs/testing.md, "Proofs").
 */
#include "component.h"

/* see component.h */
/*@
  requires *pos <= len;
  requires \valid(pos);
  requires \valid_read(in + (0 .. len - 1));
  assigns *pos;
  ensures order: \old(*pos) <= \result <= *pos <= len;
  ensures seps: \forall integer k; \old(*pos) <= k < \result ==>
    in[k] == '/';
  ensures name: \forall integer k; \result <= k < *pos ==> in[k] != '/';
  ensures first: \result < len ==> in[\result] != '/';
  ensures closed: *pos == len || in[*pos] == '/';
  ensures empty: \result == *pos ==> *pos == len;
*/
size_t
core_next_component(const char *in, size_t len, size_t *pos)
{
	size_t i = *pos, start;

	/*@ loop invariant \at(*pos, Pre) <= i <= len;
	    loop invariant \forall integer k; \at(*pos, Pre) <= k < i ==>
	      in[k] == '/';
	    loop assigns i;
	    loop variant len - i; */
	while (i < len && in[i] == '/')
		i++;
	start = i;
	/*@ loop invariant start <= i <= len;
	    loop invariant \forall integer k; start <= k < i ==> in[k] != '/';
	    loop assigns i;
	    loop variant len - i; */
	while (i < len && in[i] != '/')
		i++;
	*pos = i;
	return start;
}
