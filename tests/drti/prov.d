/* The provider of the drti test program. */
provider drtitest {
	probe start(int argc);
	probe stop__now();
};
