/* The argument declared as what usdtc takes it for: the pointer a program passes. */
typedef char huge[4294967295][641][6700417][4294967295][641][6700417];
struct big { huge a; };
provider wraps {
	probe p(struct big *b);
};
