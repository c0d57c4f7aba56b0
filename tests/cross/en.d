/* tests/cross: one probe whose _ENABLED() the program prints, then fires. */
provider en {
	probe tick(int on);
};
