/* x86_64-illumos: DOF version 2 (is-enabled offsets past the xor), no stapsdt notes. */
provider illumos {
	probe request__start(int id, char *path, uint64_t ts);
	probe request__done(int);
	probe tick();
};
