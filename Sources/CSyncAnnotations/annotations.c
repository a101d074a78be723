#include "CSyncAnnotations.h"
#include <sched.h>
#include <time.h>

_Thread_local long csync_propagation_depth = 0;
_Thread_local void *csync_propagation_deferred = 0;

void csync_backoff(unsigned round) {
    if (round < 16) {
        sched_yield();
        return;
    }
    unsigned steps = round - 16 < 10 ? round - 16 + 1 : 10;
    struct timespec pause = { 0, (long)steps * 50000 };
    nanosleep(&pause, 0);
}
