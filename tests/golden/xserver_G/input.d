/*
 * The shape of X.Org's Xserver.d (written anew): <sys/types.h> through -C,
 * pointer typedefs of its own, D's string, and attribute pragmas.
 */
#include <sys/types.h>

typedef const uint8_t *const_uint8_p;
typedef const double *const_double_p;

provider Xserver {
	probe request__start(string, uint8_t, uint16_t, int, void *);
	probe request__done(string, uint8_t, uint32_t, int, int);
	probe client__connect(int, int);
	probe client__auth(int, string, pid_t, int32_t);
	probe client__disconnect(int);
	probe resource__alloc(uint32_t, uint32_t, void *, string);
	probe resource__free(uint32_t, uint32_t, void *, string);
	probe send__event(int, uint8_t, void *);
	probe input__event(int, uint32_t, uint32_t, uint32_t, uint8_t, const_uint8_p, const_double_p);
};

#pragma D attributes Unstable/Unstable/Common provider Xserver provider
#pragma D attributes Private/Private/Unknown  provider Xserver module
#pragma D attributes Private/Private/Unknown  provider Xserver function
#pragma D attributes Unstable/Unstable/Common provider Xserver name
#pragma D attributes Unstable/Unstable/Common provider Xserver args
