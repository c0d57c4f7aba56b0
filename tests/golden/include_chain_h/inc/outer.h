/* Included by input.d; includes the broken one. */
typedef unsigned int request_t;
#include "inner.h"
