/* The provider the cross-target programs fire. */
provider tprov {
	probe start(int i, char *s, long len);
	probe many(int, int, int, int, int, int, int, int, int, long);
	probe tail(int);
};
