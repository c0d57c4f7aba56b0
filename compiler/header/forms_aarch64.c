/*
 * forms_aarch64.c - aarch64 Linux's probe forms (header_int.h).
 *
 * On aarch64 every probe is a call of its stub, which -G turns into a
 * tracepoint where it is given the objects: a probe that is an inline
 * site on x86_64 (_USDT_S) is the call here, as under _USDT_PROBE_CALLS,
 * and _ENABLED()'s slow path is C around a call of the is-enabled
 * function.  The unit and the call they share with every DTrace target
 * are forms_dtrace.c's.
 */
#include "header_int.h"
#include "stapsdt.h"

/*
 * _USDT_ENABLED(s, e, P): past the fast path's test of the semaphore s,
 * a Linux tracer's count says yes at once; only the DTrace bit leads to
 * the is-enabled function e, given the address of a flag where DTrace
 * stores 1 (DOF version 3), beside the asm that brings the probe's unit.
 */
void
forms_aarch64_macros(strbuf_t *out)
{
	sb_printf(out, "#define _USDT_ENABLED(s, e, P) __extension__ ({ "
	    "uint32_t __usdt_e = 0; _USDT_ASM(_USDT_UNIT_(P) : :); "
	    "(*(volatile unsigned short *)&s & 0x%x) != 0 || "
	    "(e(&__usdt_e), __usdt_e != 0); })\n", STAPSDT_SEMAPHORE_COUNT);
}

/*
 * _USDT_S(T, k, v, r, o), a call of __dtrace_T with the temporaries v
 * declares (the register variables r and operands o are x86_64's), and
 * _USDT_ON_(T, s) and _USDT_ONN(s, T, p, n), _ENABLED() as on x86_64
 * (forms_x86_64_forms) with the slow path of forms_aarch64_macros, naming
 * the is-enabled function by T (_USDT_PN: the unit's names, no note
 * arguments).
 */
void
forms_aarch64_forms(strbuf_t *out)
{
	sb_puts(out, FORMS_SITE_AS_CALL);
	sb_puts(out, "#define _USDT_ON_(T, s) ((long)(__builtin_expect(s != 0, 0) && "
	    "_USDT_ENABLED(s, " MDL_ENABLED_PREFIX "##T, _USDT_P_##T)))\n");
	sb_puts(out, "#define _USDT_PN(p, n) p, n, \"\"\n");
	sb_puts(out, "#define _USDT_ONN(s, T, p, n) ((long)(__builtin_expect(s != 0, 0) && "
	    "_USDT_ENABLED(s, " MDL_ENABLED_PREFIX "##T, _USDT_PN(p, n))))\n");
}
