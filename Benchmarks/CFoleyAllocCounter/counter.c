// malloc and friends for foley-bench: each forwards to glibc's own entry (__libc_malloc, …) and
// counts the call, and counts it apart when it happens inside the voice mixer's render
// (foley_realtime_depth > 0 on this thread). Defined in the executable, these take the place of
// libc's for every library in the process. Compiled out under sanitizers, whose runtimes define
// malloc themselves.
#include "foley_alloc_counter.h"

#include <stdatomic.h>
#include <stddef.h>

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define FOLEY_NO_COUNTER 1
#endif
#endif

#ifndef FOLEY_NO_COUNTER

extern __thread int foley_realtime_depth;
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static _Atomic int64_t realtime_count = 0;
static _Atomic int64_t total_count = 0;
static __thread int64_t thread_count = 0;

static inline void count(void) {
  thread_count++;
  atomic_fetch_add_explicit(&total_count, 1, memory_order_relaxed);
  if (foley_realtime_depth > 0) atomic_fetch_add_explicit(&realtime_count, 1, memory_order_relaxed);
}

void *malloc(size_t size) {
  count();
  return __libc_malloc(size);
}

void *calloc(size_t count_, size_t size) {
  count();
  return __libc_calloc(count_, size);
}

void *realloc(void *pointer, size_t size) {
  count();
  return __libc_realloc(pointer, size);
}

void free(void *pointer) { __libc_free(pointer); }

void *memalign(size_t alignment, size_t size) {
  count();
  return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
  count();
  return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
  count();
  void *pointer = __libc_memalign(alignment, size);
  if (pointer == NULL) return 12;  // ENOMEM
  *out = pointer;
  return 0;
}

int64_t foley_realtime_allocations(void) { return atomic_load(&realtime_count); }
int64_t foley_total_allocations(void) { return atomic_load(&total_count); }
int64_t foley_thread_allocations(void) { return thread_count; }

#else

int64_t foley_realtime_allocations(void) { return -1; }
int64_t foley_total_allocations(void) { return -1; }
int64_t foley_thread_allocations(void) { return -1; }

#endif
