/*
 * The provider of the rewrite suite.  Each probe checks one thing at a call
 * site that -G rewrote: arguments of every kind where the calling
 * convention left them, stack arguments at a call (not at a stub's entry),
 * _ENABLED(), a tail call, and a probe fired from an object not given to -G.
 */
provider rw {
	probe args(int count, long long id, char *path, long delta);
	probe many(int, int, int, int, int, int, int, int);
	probe guarded(int);
	probe tail(int);
	probe other(int);
};
