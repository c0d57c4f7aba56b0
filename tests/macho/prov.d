/* The provider tests/macho links for macOS targets. */
typedef unsigned short port_t;

provider myprov {
	probe op__start(int id, char *name, uint64_t ts);
	probe op__done(int);
	probe listen(port_t port);
};
