/* The smallest useful provider: named and unnamed arguments. */
provider myprov {
	probe op__start(int id, char *name, uint64_t ts);
	probe op__done(int);
};
