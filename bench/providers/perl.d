/* Perl's provider (perldtrace.d): its probe list, for bench/header_cost. */
provider perl {
	probe sub__entry(const char *, const char *, int, const char *);
	probe sub__return(const char *, const char *, int, const char *);
	probe phase__change(const char *, const char *);
	probe op__entry(const char *);
	probe loading__file(const char *);
	probe loaded__file(const char *);
	probe glob__entry(int, const char *);
	probe glob__return(int, const char *);
};
