/* dtrace -C's own defines on Linux (Oracle's), each one tested. */
provider defs {
#if defined(__linux) && defined(__Linux) && defined(__unix) && defined(__SVR4)
	probe linux__names();
#endif
#if __SUNW_D == 1 && defined(__SUNW_D_64) && __SUNW_D_VERSION == 0x02000001
	probe sunw__d();
#endif
#ifndef __GNUC__
	probe no__gnuc();
#endif
#if defined(__FreeBSD__) || defined(__sun) || defined(__APPLE__)
	probe wrong__os();
#endif
};
