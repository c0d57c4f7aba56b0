/* The same provider again, in a later file: it gains probes. */
provider app {
	probe stopped(int status);
};

provider lib {
	probe loaded(const char *path);
};
