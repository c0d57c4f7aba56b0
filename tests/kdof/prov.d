/* The providers tests/kdof hands to the kernels' DOF code. */
provider kda {
	probe start(int n, char *s);
	probe swap(int a, long b) : (long b, int a);	/* an argument map */
	probe many(int, int, int, int, int, int, int, int, int, long);
};
provider kdb {
	probe hit(int n);
};
