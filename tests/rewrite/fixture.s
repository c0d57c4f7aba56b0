# fixture.s - every kind of reference to a probe function that -G meets,
# for tests/rewrite/rewrite_test.c (provider t { probe a(int); probe b(int, long); }).
#
#   gfunc  global: a call, an address taken (lea), an is-enabled call,
#          a conditional jump
#   sfunc  static: a call                        -> alias
#   hfunc  global hidden: a call                 -> its own symbol
#   wfunc  weak: a tail call (jmp)               -> alias, ret + nop
#   cfunc  in a COMDAT group: a call             -> kept
#   .text.nofunc: a call outside any function   -> kept
#   .data: the address of a probe function      -> kept
	.text
	.globl	gfunc
	.type	gfunc, @function
gfunc:
	push	%rbp
	call	__dtrace_t___a
	lea	__dtrace_t___a(%rip), %rax
	call	__dtraceenabled_t___a
	test	%eax, %eax
	jne	__dtrace_t___b
	pop	%rbp
	ret
	.size	gfunc, .-gfunc

	.type	sfunc, @function
sfunc:
	call	__dtrace_t___b
	call	__dtrace_t___b
	ret
	.size	sfunc, .-sfunc

	.globl	hfunc
	.hidden	hfunc
	.type	hfunc, @function
hfunc:
	nop
	call	__dtrace_t___a
	ret
	.size	hfunc, .-hfunc

	.weak	wfunc
	.type	wfunc, @function
wfunc:
	jmp	__dtrace_t___b
	.size	wfunc, .-wfunc

	.section .text.cfunc,"axG",@progbits,cfunc,comdat
	.globl	cfunc
	.type	cfunc, @function
cfunc:
	call	__dtrace_t___a
	ret
	.size	cfunc, .-cfunc

	.section .text.nofunc,"ax",@progbits
	nop
	call	__dtrace_t___a

	.data
	.quad	__dtrace_t___a

	.section .note.GNU-stack,"",@progbits
