#ifndef CSYNCANNOTATIONS_H
#define CSYNCANNOTATIONS_H
// ThreadSanitizer cannot see inside Synchronization.Mutex on Linux (its lock
// lives in uninstrumented stdlib code), so it reports races on state that is
// correctly locked. These hooks tell it about the lock. The TSan runtime's
// functions are weak symbols: in a normal build they are absent (null) and
// each hook is one untaken branch.
extern void __tsan_acquire(void *addr) __attribute__((weak));
extern void __tsan_release(void *addr) __attribute__((weak));

static inline void sync_annotate_acquire(const void *addr) {
    if (__tsan_acquire) __tsan_acquire((void *)addr);
}

static inline void sync_annotate_release(const void *addr) {
    if (__tsan_release) __tsan_release((void *)addr);
}

// How deep this thread is in notifying promise observers (PromiseEngine's
// Drain), and the work it deferred until it is out (`Propagation`). Swift
// has no thread-local variables of its own; these are C11 ones.
extern _Thread_local long csync_propagation_depth;
extern _Thread_local void *csync_propagation_deferred;

static inline long csync_propagation_enter(void) { return csync_propagation_depth++; }
static inline long csync_propagation_leave(void) { return --csync_propagation_depth; }
static inline long csync_propagation_current_depth(void) { return csync_propagation_depth; }
static inline void *csync_propagation_deferred_get(void) { return csync_propagation_deferred; }
static inline void csync_propagation_deferred_set(void *list) { csync_propagation_deferred = list; }

// Whether this thread runs a handler that PromiseContext.nowOr runs at once
// (PromiseContext.isExecutingNow), saved and restored around each.
extern _Thread_local int csync_executing_now_flag;

static inline int csync_executing_now(void) { return csync_executing_now_flag; }
static inline void csync_set_executing_now(int flag) { csync_executing_now_flag = flag; }

// For PromiseEngine's spin lock: a hint to the CPU that this thread is
// spinning (PAUSE on x86, YIELD on arm), and giving up the processor.
static inline void csync_spin_hint(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ __volatile__("yield");
#endif
}

// The `round`th time a spinning thread gives up the processor: yields at
// first, then sleeps a little longer each time (up to 200 microseconds),
// so a lock holder that was preempted gets a processor.
void csync_backoff(unsigned round);

// A number of this thread's own, 2 or more (debug builds of PromiseEngine
// mark a held spin lock with it, to catch a thread taking it twice).
unsigned csync_thread_token(void);
#endif
