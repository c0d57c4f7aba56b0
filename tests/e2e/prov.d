/*
 * The provider every end-to-end build uses.  Each probe checks one thing a
 * tracer must read back exactly: argument sign and width, a string the
 * program wrote, a probe without arguments, all six register arguments
 * with mixed sizes, arguments passed on the stack, and the is-enabled
 * guard.  `request__start` also checks that `__` names match as written.
 */
provider e2e {
	probe request__start(int status, char *path, unsigned int bytes, unsigned long long id);
	probe tick();
	probe six(char, short, int, long, unsigned char, unsigned short);
	probe many(int, int, int, int, int, int, int, int);
	probe guarded(int);
};
