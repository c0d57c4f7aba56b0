/* CPython's provider (Include/pydtrace.d): its probe list, for bench/header_cost. */
provider python {
	probe function__entry(const char *, const char *, int, const char *);
	probe function__return(const char *, const char *, int, const char *);
	probe cfunction__entry(const char *, const char *, int, const char *);
	probe cfunction__return(const char *, const char *, int, const char *);
	probe instance__new__start(const char *, const char *);
	probe instance__new__done(const char *, const char *);
	probe instance__delete__start(const char *, const char *);
	probe instance__delete__done(const char *, const char *);
	probe line(const char *, const char *, int);
	probe gc__start(int);
	probe gc__done(long);
	probe import__find__load__start(const char *);
	probe import__find__load__done(const char *, int);
	probe audit(const char *, void *);
};
