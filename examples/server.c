/*
 * server.c - the demo program: serves made-up HTTP requests in a loop and
 * fires the http provider's probes (http.d) for each one.
 *
 *   server [SECONDS]     (default 30)
 *
 * It shows the three ways a program uses probes: plain probes with int
 * and string arguments, and a probe whose argument is costly to build,
 * guarded by HTTP_REQUEST_DEBUG_ENABLED() so the cost is paid only while
 * a tracer watches.  The guard's count of debug summaries built is
 * printed at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "http.h"

static const char *const methods[] = { "GET", "POST", "GET", "PUT" };
static const char *const paths[] = { "/", "/login", "/api/items", "/static/app.js" };

struct request {
	int id;
	int fd;
	const char *method;
	char path[64];
	char peer[32];
};

static void
make_request(struct request *r, int id)
{
	r->id = id;
	r->fd = 100 + id % 16;
	r->method = methods[id % 4];
	snprintf(r->path, sizeof(r->path), "%s?n=%d", paths[id % 4], id);
	snprintf(r->peer, sizeof(r->peer), "10.0.0.%d:%d", 1 + id % 254, 40000 + id);
}

static int
status_for(const struct request *r)
{
	return r->id % 10 == 9 ? 404 : 200;
}

/* What only a tracer wants: built only while the debug probe is enabled. */
static int
debug_summary(const struct request *r, int status)
{
	char summary[160];

	if (!HTTP_REQUEST_DEBUG_ENABLED())
		return 0;
	snprintf(summary, sizeof(summary), "%s %s from %s -> %d",
	    r->method, r->path, r->peer, status);
	HTTP_REQUEST_DEBUG(r->id, summary);
	return 1;
}

static void
serve(struct request *r, int *debug_built)
{
	int status = status_for(r);

	HTTP_CONN_ACCEPT(r->fd, r->peer);
	HTTP_REQUEST_START(r->id, (char *)r->method, r->path);
	usleep(1000 + (r->id % 7) * 300);
	*debug_built += debug_summary(r, status);
	HTTP_REQUEST_DONE(r->id, status, 512ULL * (unsigned)(1 + r->id % 9),
	    1000u + (unsigned)(r->id % 7) * 300u);
}

int
main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 30;
	time_t end = time(NULL) + seconds;
	struct request r;
	int id, debug_built = 0;

	for (id = 1; time(NULL) < end; id++) {
		make_request(&r, id);
		serve(&r, &debug_built);
		usleep(250000);
	}
	printf("server: served %d requests, built %d debug summaries\n",
	    id - 1, debug_built);
	return 0;
}
