/* The provider of tests/kdof's shared library. */
provider kdlib {
	probe call(int n, char *who);
	probe done(long total) : (long total);
};
