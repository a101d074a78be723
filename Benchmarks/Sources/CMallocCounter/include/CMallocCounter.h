// Counts the calls to malloc and its relatives made by the whole process,
// so a benchmark can say how many allocations a promise operation costs.
// The executable that links this target defines malloc itself; glibc's
// allocator still does the work (__libc_malloc and friends).
#pragma once
#include <stddef.h>

/// Starts counting. Until then the wrappers only test a plain flag, so the
/// timed cases pay no atomic increments for allocations they make.
void malloc_counter_start(void);
/// Allocations (malloc, calloc, realloc of NULL, posix_memalign,
/// aligned_alloc, memalign) since counting started.
unsigned long malloc_counter_allocations(void);
/// Bytes requested by those allocations.
unsigned long malloc_counter_bytes(void);
/// The size of the malloc chunk holding `pointer` (glibc's usable size plus
/// its 8-byte header): what a live allocation really occupies.
size_t malloc_counter_chunk(void *pointer);
