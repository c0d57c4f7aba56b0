/* The arguments declared as what usdtc takes them for: the pointers the program passes. */
struct astruct {
	long a, b;
};
struct opaque;
struct flt { double d; };
provider test {
	probe test_probe_3(int before);
	probe test_probe_4(struct astruct *arg);
	probe test_probe_5(struct opaque *o, int after, struct flt *f);
};
