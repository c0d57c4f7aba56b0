/*
 * tests/gdbdof/gp.d - what gdb's two probe readers list: a probe fired
 * unguarded, one behind its _ENABLED() check (an is-enabled site in the
 * DOF), and one of two arguments.
 */
provider gp {
	probe plain(int n);
	probe guarded(int n);
	probe pair(long a, char *s);
};
