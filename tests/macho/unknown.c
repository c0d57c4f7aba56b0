/* Calls a probe function the provider does not have. */
extern void __dtrace_probe$myprov$nosuch$v1(void);

void
f(void)
{
	__dtrace_probe$myprov$nosuch$v1();
}
