/*
 * so_main.c - tests/cross's program whose probes are all in a shared
 * library: fid.c built as libfid.so (its main renamed fid_main) with the
 * `usdtc -G` object, so gdb must find them in a library it loads.
 */
int fid_main(int argc, char **argv);

int
main(int argc, char **argv)
{
	return fid_main(argc, argv);
}
