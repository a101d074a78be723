#include "CSyncAnnotations.h"
#include <sched.h>
#include <time.h>
#include <stdatomic.h>

_Thread_local long csync_propagation_depth = 0;
_Thread_local void *csync_propagation_deferred = 0;
_Thread_local int csync_executing_now_flag = 0;

void csync_backoff(unsigned round) {
    if (round < 16) {
        sched_yield();
        return;
    }
    unsigned steps = round - 16 < 4 ? round - 16 + 1 : 4;
    struct timespec pause = { 0, (long)steps * 50000 };
    nanosleep(&pause, 0);
}

static _Atomic unsigned next_thread_token = 2;
static _Thread_local unsigned thread_token;

unsigned csync_thread_token(void) {
    if (thread_token == 0) {
        unsigned token = atomic_fetch_add_explicit(&next_thread_token, 1, memory_order_relaxed);
        thread_token = token < 2 ? 2 : token;
    }
    return thread_token;
}
