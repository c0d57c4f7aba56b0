/* warn: D_PREPROC 2:1 */
#include <sys/types.h>
#define SHOP_DEBUG 1
provider shop {
	probe order__placed(int id);
};
