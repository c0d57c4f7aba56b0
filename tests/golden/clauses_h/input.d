/* D program text around a provider is accepted and skipped. */
inline int MAXSZ = 5 * (2 + 1);

syscall::open:entry
/pid == $target && arg1 != 0/
{
	self->path = copyinstr(arg0);
	@opens[execname] = count();
}

provider clauses {
	probe tick(int n);
};

tick-1s, profile-97
{
	printf("%s}\n", "not the end");
	if (x) { y = '}'; }
}

END { exit(0); }
