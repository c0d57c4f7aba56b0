/*
 * Pointers, const, D's string, structs and names the C program defines:
 * the header keeps each type as written, spacing normalised.
 */
typedef struct foo foo_t;
typedef const uint8_t *p_t;

provider ptrs {
	probe strings(const char *s, char const *t, string d);
	probe stars(char **argv, void **vp, struct Tcl_Obj** objv);
	probe spacing(uint8_t*b, void * bs, struct Tcl_Obj* obj, char  *  *  pp);
	probe named(foo_t *f, p_t p, MYTYPE x, MYTYPE *xp);
	probe tagged(struct timeval *tv, foo_t *fp);
	probe mixed(int a, char *, long c);
};
