/* The provider of tests/drti's site-record program (sites.c). */
provider sites {
	probe tick(int);
	probe tock(int);
};
