/* libmain.c - the program that runs app.c built as a shared library. */
int app_run(void);

int
main(void)
{
	return app_run();
}
