/* The provider of the shared library the drti test program dlopens. */
provider libtest {
	probe hello(char *who);
};
