/*
 * drti_blob.S - the prebuilt drti_lite object, carried inside usdtc.
 *
 * `usdtc -G` links runtime/drti_lite.c's object into its output with
 * `ld -r`.  Embedding the object's bytes here keeps usdtc a single file
 * that works wherever it is installed: objgen.c hands these bytes to the
 * linker through a memfd.  DRTI_OBJECT is the object's path, given by the
 * Makefile (-DDRTI_OBJECT='"build/runtime/drti_lite.o"').
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

	.section .note.GNU-stack, "", @progbits
