#include "runtime.h"

__thread void *stash_construction_frame = 0;
