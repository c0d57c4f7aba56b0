/*
 * The provider the object tests build: a probe with `__` in its name, an
 * argument-less probe and a wide unsigned argument.
 */
provider objtest {
	probe request__start(int status, char *path);
	probe tick();
	probe done(unsigned long long id);
};
