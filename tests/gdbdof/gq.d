/*
 * tests/gdbdof/gq.d - a second provider, in its own -G output linked
 * beside gp's: gdb must list the DTrace probes of both.
 */
provider gq {
	probe one(int n);
};
