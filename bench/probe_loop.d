/* The provider of bench/probe_cost: one probe with two arguments. */
provider bench {
	probe p(unsigned long i, unsigned long x);
};
