#include "defs.h"

/* After cpp, the error is still reported on this file's line 5. */
provider cpp {
	probe request(int id)
};
