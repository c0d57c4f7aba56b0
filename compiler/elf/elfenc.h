/*
 * elfenc.h - ELF encodings that more than one writer produces, each stated
 * once: the size of an address, a stapsdt note's bytes, the x86 GNU
 * property note.
 *
 * -G (units.c, objgen.c) and libusdt (usdt_image.c) write the same notes;
 * one encoder keeps them byte for byte alike.  The note layouts are
 * stapsdt.h's and the gABI's; the readers (decode.c, probefind.c,
 * elfmerge.c) take the constants from here and stapsdt.h.
 */
#ifndef USDTC_ELFENC_H
#define USDTC_ELFENC_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

/* The GNU property note (NT_GNU_PROPERTY_TYPE_0, owner "GNU"). */
#define ELFENC_PROPERTY_SECTION		".note.gnu.property"
#define ELFENC_NT_GNU_PROPERTY_TYPE_0	5u
#define ELFENC_X86_FEATURE_1_AND	0xc0000002u
#define ELFENC_X86_FEATURE_1_IBT	1u
#define ELFENC_X86_FEATURE_1_SHSTK	2u
/* Bytes of an ELFCLASS64 property note holding one X86_FEATURE_1_AND. */
#define ELFENC_X86_PROPERTY_SIZE	32

/* Bytes of an address-sized field in a file of elf_class: 8 or 4. */
unsigned elfenc_addr_size(int elf_class);

/*
 * Append one .note.stapsdt note to out: the header, "stapsdt", the pc,
 * base and semaphore fields zeroed (asz bytes each, for relocations), then
 * the provider, probe and argument strings (each length counts its NUL),
 * padded to 4.  Returns the offset in out of the pc field.
 */
size_t elfenc_stapsdt_note(strbuf_t *out, unsigned asz, const char *provider, size_t plen,
    const char *probe, size_t nlen, const char *args, size_t alen);
/* The bytes elfenc_stapsdt_note appends for those lengths. */
size_t elfenc_stapsdt_note_size(unsigned asz, size_t plen, size_t nlen, size_t alen);

/* An ELFCLASS64 GNU property note saying X86_FEATURE_1_AND = bits. */
void elfenc_x86_property_note(uint8_t note[ELFENC_X86_PROPERTY_SIZE], uint32_t bits);

#endif
