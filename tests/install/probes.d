/*
 * The provider of the install tests' program (app.c): a probe with a
 * negative integer, a string the program wrote and a 64-bit value, and a
 * probe fired only while a tracer has it enabled.
 */
provider app {
	probe hello(int, char *, unsigned long long);
	probe guarded(int);
};
