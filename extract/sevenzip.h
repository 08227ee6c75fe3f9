/*
 * sevenzip.h -- what libarchive's 7z reader will hold for an archive's
 * header, from the header itself, before libarchive reads it
 * (sevenzip.c).
 */
#ifndef XTR_SEVENZIP_H
#define XTR_SEVENZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A 7z's signature header: the magic, a version, a CRC, where the next
 * header is and how long it is, and its CRC. */
#define XTR_7Z_SIG_LEN 32u

/*
 * Where libarchive's bidder looks for the signature of a self-extracting
 * 7z (an input that starts as a PE or ELF program): from XTR_7Z_SFX_MIN
 * up to XTR_7Z_SFX_MAX.
 */
#define XTR_7Z_SFX_MIN 0x27000u
#define XTR_7Z_SFX_MAX 0x60000u

/* Do the XTR_7Z_MAGIC_LEN bytes at P hold a 7z's magic? */
#define XTR_7Z_MAGIC_LEN 6u
bool xtr_7z_magic(const unsigned char *p);

/*
 * Is P (XTR_7Z_SIG_LEN bytes) a 7z signature header, its CRC right, as
 * libarchive's reader checks it (its magic and CRC, any version)?  Then
 * *OFF is where the next header starts, counted from the end of the
 * signature header, and *LEN its length.
 */
bool xtr_7z_signature(const unsigned char *p, uint64_t *off, uint64_t *len);

/* How the next header is stored (xtr_7z_encoding()). */
struct xtr_7z_coding {
	uint64_t packed_at;	/* the packed header, from the end of the
				   signature header */
	uint64_t packed_len;
	uint64_t size;		/* decoded: every size the folders give,
				   summed */
	unsigned char method[4];	/* the one coder's id ... */
	size_t method_len;		/* ... and its length */
	unsigned char props[8];		/* its properties */
	size_t props_len;
	bool one_coder;		/* one folder of one coder: decodable */
	uint64_t cost;		/* what libarchive allocates reading this
				   description itself */
};

/*
 * Read the next header P (N bytes) of a 7z as an encoded one (kEncoded-
 * Header): how it is stored into *C, and C->cost in any case.
 * Return: 0, or -EILSEQ where it is not one, or not one this parser
 * follows whole.
 */
int xtr_7z_encoding(const unsigned char *p, size_t n,
    struct xtr_7z_coding *c);

/*
 * The bytes libarchive's 7z reader allocates for the plain header P (N
 * bytes, decoded), before its first entry: the header (and its names,
 * copied), and a record for each file, folder and stream it lists
 * (whose counts a few bytes of header may give).  A header this parser
 * does not follow whole costs no less than xtr_7z_cost_bound(N), nor
 * than the counts it read before.  One with a folder of more streams than
 * any coder makes, on which libarchive spends time as their square, costs
 * UINT64_MAX: past any budget.
 */
uint64_t xtr_7z_header_cost(const unsigned char *p, size_t n);

/*
 * What a header of N decoded bytes may make libarchive allocate, read or
 * not: a file takes as little as one bit of it.
 */
uint64_t xtr_7z_cost_bound(uint64_t n);

#endif
