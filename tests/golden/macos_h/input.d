/*
 * The macOS header: probe functions named with their argument types in
 * hex, the provider's attributes and typedefs in two referenced symbols.
 */
typedef struct foo foo_t;
typedef unsigned short u16_t;

#pragma D attributes Evolving/Evolving/ISA provider app provider
#pragma D attributes Stable/Stable/Common provider app args

provider app {
	probe request__start(foo_t *req, string url, u16_t port);
	probe request__done(foo_t *, int);
	probe tick();
};

provider other {
	probe x(uint64_t);
};
