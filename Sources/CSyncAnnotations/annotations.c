#include "CSyncAnnotations.h"

_Thread_local long csync_propagation_depth = 0;
_Thread_local void *csync_propagation_deferred = 0;
