/* An error in a header included by a header: the chain comes first. */
#include "inc/outer.h"

provider chain {
	probe ok(request_t r);
};
