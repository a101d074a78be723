#include "CMallocCounter.h"
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static _Atomic unsigned long allocations;
static _Atomic unsigned long bytes;

static int counting;

void malloc_counter_start(void) { counting = 1; }

static inline void count(size_t size) {
    if (!counting) return;
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&bytes, size, memory_order_relaxed);
}

unsigned long malloc_counter_allocations(void) { return atomic_load(&allocations); }
unsigned long malloc_counter_bytes(void) { return atomic_load(&bytes); }

void *malloc(size_t size) { count(size); return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { count(n * size); return __libc_calloc(n, size); }
void *realloc(void *pointer, size_t size) {
    if (pointer == NULL) count(size);
    return __libc_realloc(pointer, size);
}
void free(void *pointer) { __libc_free(pointer); }
void *memalign(size_t alignment, size_t size) { count(size); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { count(size); return __libc_memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) return ENOMEM;
    count(size);
    *out = pointer;
    return 0;
}

extern size_t malloc_usable_size(void *);
size_t malloc_counter_chunk(void *pointer) { return malloc_usable_size(pointer) + sizeof(size_t); }
