#include "defs.h"

provider cpp {
	probe request(ID_TYPE id, const char *name);
#if defined(WITH_EXTRA)
	probe extra(ID_TYPE id);
#endif
#ifdef NOT_DEFINED
	probe never(int);
#endif
	probe sized(char buf[NAME_LEN]);
};
