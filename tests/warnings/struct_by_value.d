/* warn: D_PROBE_BYVALUE 10:21 */
/* SystemTap's test providers declare structs by value; their programs pass a pointer. */
struct astruct {
	long a, b;
};
struct opaque;
struct flt { double d; };
provider test {
	probe test_probe_3(int before);
	probe test_probe_4(struct astruct arg);
	probe test_probe_5(struct opaque o, int after, struct flt f);
};
