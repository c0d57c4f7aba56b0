/* expect: D_PROBE_BYVALUE 4:22 */
/* message: argument #2 'x' of probe ld:p is passed by value, and no probe argument can describe it: a long double is passed in memory; pass a pointer ('long double *') instead */
provider ld {
	probe p(int before, long double x);
};
