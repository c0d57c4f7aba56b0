/*
 * drti_blob.S - the prebuilt drti_lite object, carried inside usdtc.
 *
 * `usdtc -G` merges runtime/drti_lite.c's object into its output
 * (elfmerge.c).  Embedding the object's bytes here keeps usdtc a single
 * file that works wherever it is installed: objgen.c merges these bytes,
 * or hands them to a linker through a memfd when -x ldpath= names one.
 * DRTI_OBJECT is the object's path, given by the Makefile
 * (-DDRTI_OBJECT='"build/runtime/drti_lite.o"').
 */
#ifndef DRTI_OBJECT
#error "DRTI_OBJECT must name the drti_lite object to embed"
#endif

	.section .rodata.drti_object, "a", @progbits
	.balign 16
	.globl drti_object_start
	.hidden drti_object_start
	.type drti_object_start, @object
drti_object_start:
	.incbin DRTI_OBJECT
	.globl drti_object_end
	.hidden drti_object_end
drti_object_end:
	.size drti_object_start, drti_object_end - drti_object_start

/*
 * drti_lite for the targets other than the host (compiler/drti_objects.c),
 * each from the file the Makefile names in DRTI_<target> when it could
 * build one; empty (start == end) when not.
 */
#define DRTI_BLOB_BEGIN(sym)						\
	.balign 16;							\
	.globl sym##_start;						\
	.hidden sym##_start;						\
	.type sym##_start, @object;					\
sym##_start:
#define DRTI_BLOB_END(sym)						\
	.globl sym##_end;						\
	.hidden sym##_end;						\
sym##_end:								\
	.size sym##_start, sym##_end - sym##_start

DRTI_BLOB_BEGIN(drti_x86_64_freebsd)
#ifdef DRTI_x86_64_freebsd
	.incbin DRTI_x86_64_freebsd
#endif
DRTI_BLOB_END(drti_x86_64_freebsd)

DRTI_BLOB_BEGIN(drti_x86_64_illumos)
#ifdef DRTI_x86_64_illumos
	.incbin DRTI_x86_64_illumos
#endif
DRTI_BLOB_END(drti_x86_64_illumos)

DRTI_BLOB_BEGIN(drti_aarch64_linux)
#ifdef DRTI_aarch64_linux
	.incbin DRTI_aarch64_linux
#endif
DRTI_BLOB_END(drti_aarch64_linux)

DRTI_BLOB_BEGIN(drti_x86_64_linux)
#ifdef DRTI_x86_64_linux
	.incbin DRTI_x86_64_linux
#endif
DRTI_BLOB_END(drti_x86_64_linux)

	.section .note.GNU-stack, "", @progbits
