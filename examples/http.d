/*
 * http.d - the demo's provider: a web server's request life cycle.
 *
 * Compile with `usdtc -h -s http.d -o http.h` for the macros and
 * `usdtc -G -s http.d -o http_probes.o server.o` for the object.
 * `request__start` is traced as http:request__start by bpftrace and as
 * http:::request-start by DTrace.
 */
provider http {
	probe conn__accept(int fd, char *peer);
	probe request__start(int id, char *method, char *path);
	probe request__done(int id, int status, unsigned long long bytes, unsigned int micros);
	probe request__debug(int id, char *summary);
};
