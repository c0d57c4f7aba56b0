/*
 * osnames.c - the libc functions runtime/drti_kernel.c calls that glibc
 * lacks, so that a program built for x86_64-freebsd or x86_64-illumos
 * runs here under tests/targets/kshim.c.
 */
const char *getprogname(void);
const char *getexecname(void);
int issetugid(void);

/* Both systems have it; these test programs are never setuid. */
int
issetugid(void)
{
	return 0;
}

const char *
getprogname(void)
{
	return "fbsd-prog";
}

const char *
getexecname(void)
{
	return "/opt/bin/illumos-prog";
}
