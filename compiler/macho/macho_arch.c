/*
 * macho_arch.c - each architecture macOS runs on, as Mach-O names it
 * (macho_arch.h): one table, by the ELF machine the target's arch has.
 */
#include <elf.h>
#include <string.h>

#include "macho.h"
#include "macho_arch.h"

bool
macho_arch(const target_t *t, macho_arch_t *out)
{
	/* The oldest macOS each runs: 10.9 on x86_64, 11.0 on arm64. */
	static const struct {
		unsigned elf_machine;
		macho_arch_t macho;
	} cpus[] = {
		{ EM_X86_64, { CPU_TYPE_X86_64, CPU_SUBTYPE_X86_64_ALL, 0x000a0900,
		    X86_64_RELOC_UNSIGNED, X86_64_RELOC_SUBTRACTOR } },
		{ EM_AARCH64, { CPU_TYPE_ARM64, CPU_SUBTYPE_ARM64_ALL, 0x000b0000,
		    ARM64_RELOC_UNSIGNED, ARM64_RELOC_SUBTRACTOR } },
	};

	for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++)
		if (cpus[i].elf_machine == t->arch->elf_machine) {
			*out = cpus[i].macho;
			return true;
		}
	memset(out, 0, sizeof(*out));
	return false;
}
