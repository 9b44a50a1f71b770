#ifndef FOLEY_ALLOC_COUNTER_H
#define FOLEY_ALLOC_COUNTER_H

#include <stdint.h>

// Allocations made inside the voice mixer's render on SDL's audio thread (malloc, calloc,
// realloc, memalign and friends, by Foley's code or any library it calls there), counted by
// malloc wrappers linked into foley-bench. Returns -1 when the counter is compiled out (under a
// sanitizer, which brings its own malloc).
int64_t foley_realtime_allocations(void);
// Allocations on every thread, for a sanity check that the wrappers are in use.
int64_t foley_total_allocations(void);
// Allocations on the calling thread (a game thread's share of a trigger, say).
int64_t foley_thread_allocations(void);

#endif
