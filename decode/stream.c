/*
 * stream.c -- what every codec shares: a stream's failure, told once.
 * Below the codecs (decode_gzip.c, decode_zstd.c, decode_xz.c), which
 * fail through it, and decode.c, which runs them: no codec calls back
 * into the file that calls it.
 */
#include <stdarg.h>
#include <stdio.h>

#include "decode.h"

/* see decode.h */
enum xtr_step
xtr_stream_fail(struct xtr_stream *s, int error, const char *fmt, ...)
{
	va_list ap;

	s->error = error;
	va_start(ap, fmt);
	(void)vsnprintf(s->msg, s->msg_cap, fmt, ap);
	va_end(ap);
	return XTR_STEP_ERROR;
}
