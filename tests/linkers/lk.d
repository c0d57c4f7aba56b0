/*
 * The provider of the linker matrix (tests/linkers/run): arguments of
 * three widths and a string, a probe without arguments, and a guarded
 * probe whose _ENABLED() must flip when a tracer attaches.
 */
provider lk {
	probe hit(int n, char *path, long long big);
	probe noargs();
	probe guarded(int n);
};
