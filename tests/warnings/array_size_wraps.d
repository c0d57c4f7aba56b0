/* warn: D_PROBE_BYVALUE 7:10 */
/* The array's size is (2^64 - 1)^2 bytes, 1 modulo 2^64: a size computed in
   64 bits wraps to one byte, and the struct would travel in a register. */
typedef char huge[4294967295][641][6700417][4294967295][641][6700417];
struct big { huge a; };
provider wraps {
	probe p(struct big b);
};
