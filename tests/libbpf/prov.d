/*
 * The providers tests/libbpf builds in every style: each probe checks one
 * kind of argument specification libbpf must read from our notes, and no
 * more probes than that (each note libbpf attaches costs the kernel about
 * 0.1 s to detach).  Registers of every width (%dil, %si, %edx, %rcx, %r8,
 * %r9w), arguments on the stack (twelve: libbpf reads at most 12), signed
 * and unsigned extremes of every size, pointers, a probe without
 * arguments, one behind _ENABLED() (libbpf raises its semaphore), `__` in
 * a name, and a second provider in the same file.
 */
provider lbpf {
	probe tick();
	probe six(char, short, int, long, unsigned char, unsigned short);
	probe twelve(char, short, int, long long, unsigned char, unsigned short,
	    char, short, int, long long, unsigned int, unsigned long long);
	probe extremes(unsigned long long, unsigned long long, long long, long long, int, unsigned int);
	probe pointer__args(void *, char *, int *);
	probe guarded(int);
};

provider lbpf_two {
	probe other(long, unsigned long);
};
