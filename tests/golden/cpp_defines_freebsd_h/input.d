/* dtrace -C's defines for FreeBSD: what its own cpp says, not this host's Linux ones. */
provider defs {
#if defined(__FreeBSD__) && defined(__unix__) && !defined(__linux__) && !defined(__linux)
	probe freebsd__names();
#endif
#if __SUNW_D == 1 && defined(__SUNW_D_64) && __SUNW_D_VERSION == 0x0100d000
	probe sunw__d();
#endif
#ifndef __GNUC__
	probe no__gnuc();
#endif
#if defined(__Linux) || defined(__sun) || defined(__APPLE__)
	probe wrong__os();
#endif
};
