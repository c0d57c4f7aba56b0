/* expect: D_PROBE_BYVALUE 8:22 */
/* message: argument #2 's' of probe bv:p is passed by value, and no probe argument can describe it: 'struct astruct' is 16 bytes, which the ABI splits between two registers; pass a pointer ('struct astruct *') instead */
/* A 16-byte struct travels in %rdi:%rsi, which no note argument can say. */
struct astruct {
	long a, b;
};
provider bv {
	probe p(int before, struct astruct s);
};
