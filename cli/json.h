/*
 * json.h -- writing JSON strings from untrusted bytes, for the tools'
 * line-oriented reports.
 */
#ifndef CLI_JSON_H
#define CLI_JSON_H

#include <stddef.h>
#include <stdio.h>

/*
 * Write S (LEN bytes, any content) to F as a JSON string, quotes included.
 * Quotes, backslashes and control bytes are escaped (\" \\ \b \f \n \r \t,
 * else \u00XX; also DEL, the C1 controls U+0080 to U+009F, U+2028 and
 * U+2029); other valid UTF-8 is copied as is;
 * every byte that is not part of a valid UTF-8 sequence becomes \uFFFD.
 * Errors are left in F's error indicator.
 */
void json_put_string(FILE *f, const char *s, size_t len);

/*
 * Return: the length (1 to 4) of the well-formed UTF-8 sequence at S
 * (LEN bytes available), or 0 if S does not start with one (overlong
 * forms, surrogates and code points above U+10FFFF are not well formed).
 */
size_t json_utf8_seq_len(const unsigned char *s, size_t len);

#endif /* CLI_JSON_H */
