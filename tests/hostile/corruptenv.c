/*
 * corruptenv.c - Oracle DTrace's test/unittest/usdt/tst.corruptenv.sh,
 * rewritten for tests/hostile/run (issue 37, issue 39): a program that
 * breaks its own environment (envp[0] pointing at address 0xff) and then
 * exits must not crash in drti_lite's exit handler, which would crash if
 * it looked the environment up again (getenv walks envp).  Fires its
 * probe between, as the original does.
 */
#include "fkmain.h"

int
main(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)argv;
	envp[0] = (char *)0xff;
	FKMAIN_MAIN(0);
	return 0;
}
