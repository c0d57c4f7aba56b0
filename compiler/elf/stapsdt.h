/*
 * stapsdt.h - the SystemTap SDT note format: the one statement of it.
 *
 * <sys/sdt.h> describes each probe to tracers (bpftrace, perf, gdb,
 * SystemTap) with one ELF note in `.note.stapsdt`:
 *
 *	namesz = 8, descsz, type = 3	the note header (4-byte words)
 *	"stapsdt\0"			the owner name
 *	pc				the tracepoint's address    } address-sized
 *	base				the address of _.stapsdt.base } (4 or 8
 *	semaphore			the semaphore's address, or 0 } bytes)
 *	"provider\0" "name\0" "args\0"	args: "8@%rdi -4@%esi ...", size@place
 *	padding to 4 bytes
 *
 * A tracer subtracts base's link-time address (the note records it) from
 * its run-time one to find how far a prelinked or relocated object moved,
 * so `.stapsdt.base` must be allocated: one byte in a COMDAT group named
 * after it, as <sys/sdt.h> makes it.  The semaphore is a 2-byte counter in
 * `.probes` that tracers increment while attached; the probe's _ENABLED()
 * reads it.
 *
 * The header writes the notes as assembly text (header/asm_text.c), -G and libusdt
 * as bytes (elfenc.c, for units.c and libusdt), and the readers check them
 * (decode.c, list.c); all take the layout from here.
 */
#ifndef USDTC_STAPSDT_H
#define USDTC_STAPSDT_H

#define STAPSDT_NOTE_SECTION	".note.stapsdt"
#define STAPSDT_NOTE_NAME	"stapsdt"		/* namesz counts its NUL: 8 */
#define STAPSDT_NOTE_TYPE	3
#define STAPSDT_NOTE_TYPE_STR	"3"			/* the same, for assembly text */
#define STAPSDT_NOTE_ALIGN	4

/*
 * A stub's note is in a COMDAT group of its own, signed by the probe
 * function's name and this suffix (`__dtrace_p___n.note`), apart from the
 * stub's code: the header emits it only where a macro calls the stub, -G
 * only for a probe the header fires by a call (header_probe_calls_stub),
 * so an inline site is not seen twice, and a group with the note is never
 * dropped for one without it, whatever the link order.
 */
#define STAPSDT_STUB_NOTE_GROUP	".note"

/* The three addresses of the descriptor, in this order. */
enum stapsdt_addr { STAPSDT_PC, STAPSDT_BASE, STAPSDT_SEMAPHORE, STAPSDT_NADDRS };

#define STAPSDT_BASE_SECTION	".stapsdt.base"
#define STAPSDT_BASE_SYMBOL	"_.stapsdt.base"

#define STAPSDT_SEMAPHORE_SECTION	".probes"
#define STAPSDT_SEMAPHORE_SIZE		2

/*
 * The semaphore page.  A tracer that attaches before the program runs
 * (`bpftrace -c`, or a library not yet loaded) leaves the kernel to bump
 * each semaphore when its file page is mapped (uprobe ref_ctr), in the
 * first writable private mapping of the file that covers the semaphore's
 * file offset.  lld (and mold) start the writable segment in the file page
 * where the RELRO segment ends, and at exec time the RELRO mapping is
 * still writable and covers that page too: the kernel bumps the copy in
 * the RELRO mapping, the program reads its own copy, and _ENABLED() stays
 * false (attaching with -p works: by then RELRO is read-only).  So every
 * object that reads semaphores (the -G object; a file of the header's
 * whose _ENABLED() brings a unit) also carries, in a COMDAT group of its
 * own, an empty `.probes` section aligned to the largest page size of the
 * architecture: the output section starts a page that no other segment's
 * file range reaches.  SHF_GNU_RETAIN keeps it under --gc-sections.
 * doc/design.md section 3 has the evidence.
 */
#define STAPSDT_SEMAPHORE_PAGE_SYMBOL	"__usdt_probes_page"
#define STAPSDT_SEMAPHORE_PAGE_X86_64	4096
#define STAPSDT_SEMAPHORE_PAGE_AARCH64	65536	/* kernels with 64 KiB pages */

/*
 * The DTrace bias.  A probe's _ENABLED() is one load and one branch when
 * nothing traces: `semaphore != 0`, as <sys/sdt.h>'s.  DTrace's is-enabled
 * probes are not semaphores but a site the tracer patches, so the header
 * only asks that site when the semaphore says DTrace may be there: once a
 * DTrace helper has accepted the DOF, drti_lite.c ORs this bit into every
 * semaphore of its object (the -G object lists them at
 * STAPSDT_SEMAPHORE_TABLE_SYMBOL).  The bits below it stay the count of
 * Linux tracers (bpftrace, perf, SystemTap add and take away 1 each), and
 * the value stays positive as a short: the kernel's uprobe ref_ctr refuses
 * to move a counter that it reads as negative.  So _ENABLED() is
 *
 *	s != 0 && ((s & STAPSDT_SEMAPHORE_COUNT) != 0 || <DTrace's site>)
 */
#define STAPSDT_SEMAPHORE_DTRACE_BIAS	0x4000
#define STAPSDT_SEMAPHORE_COUNT		0x3fff

/*
 * The -G object's table of its semaphores, for drti_lite.c: one 8-byte
 * entry per probe, the semaphore's address minus the entry's own (a
 * PC-relative relocation the static linker resolves: no dynamic
 * relocation, nothing to do at load time; the semaphores are hidden),
 * then a zero entry, in a section of its own, under a symbol made local
 * as __SUNW_dof is, so that each drti_lite copy sees its own object's table.
 */
#define STAPSDT_SEMAPHORE_TABLE_SECTION	".data.usdt_semaphores"
#define STAPSDT_SEMAPHORE_TABLE_SYMBOL	"__usdt_semaphores"

#endif
