/*
 * elfenc.c - the one encoder of the ELF notes and fields that the -G
 * object and libusdt's images both write (elfenc.h says why).
 *
 * Calls nothing but the byte buffer (strbuf.c): it is below every writer.
 */
#include <elf.h>
#include <string.h>

#include "elfenc.h"
#include "stapsdt.h"

unsigned
elfenc_addr_size(int elf_class)
{
	return elf_class == ELFCLASS64 ? 8 : 4;
}

size_t
elfenc_stapsdt_note_size(unsigned asz, size_t plen, size_t nlen, size_t alen)
{
	return (3 * 4 + sizeof(STAPSDT_NOTE_NAME) + STAPSDT_NADDRS * asz + plen + nlen +
	    alen + 3) & ~(size_t)3;
}

size_t
elfenc_stapsdt_note(strbuf_t *out, unsigned asz, const char *provider, size_t plen,
    const char *probe, size_t nlen, const char *args, size_t alen)
{
	size_t pc;

	sb_u32(out, sizeof(STAPSDT_NOTE_NAME));
	sb_u32(out, (uint32_t)(STAPSDT_NADDRS * asz + plen + nlen + alen));
	sb_u32(out, STAPSDT_NOTE_TYPE);
	sb_append(out, STAPSDT_NOTE_NAME, sizeof(STAPSDT_NOTE_NAME));
	pc = out->len;
	sb_zero(out, STAPSDT_NADDRS * asz);
	sb_append(out, provider, plen);
	sb_append(out, probe, nlen);
	sb_append(out, args, alen);
	sb_align(out, 4);
	return pc;
}

void
elfenc_x86_property_note(uint8_t note[ELFENC_X86_PROPERTY_SIZE], uint32_t bits)
{
	/* namesz, descsz, type; then the property: type, datasz, bits, pad to 8. */
	const uint32_t hdr[3] = { 4, 16, ELFENC_NT_GNU_PROPERTY_TYPE_0 };
	const uint32_t prop[4] = { ELFENC_X86_FEATURE_1_AND, 4, bits, 0 };

	memcpy(note, hdr, sizeof(hdr));
	memcpy(note + 12, "GNU", 4);
	memcpy(note + 16, prop, sizeof(prop));
}
