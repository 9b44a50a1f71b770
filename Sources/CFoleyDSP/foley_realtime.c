// The mixing thread's marker: the voice mixer enters and leaves it around each render, so a
// tool linked into the same executable (foley-bench's allocation counter) can tell the mix's own
// allocations from everything else SDL's audio thread does. A thread-local counter: no lock, no
// system call.
#include "foley_dsp.h"

// Any C library header first: glibc's <features.h>, which they include, defines __GLIBC__ (the
// compiler's own <stdbool.h> and <stddef.h>, all foley_dsp.h includes, do not).
#include <stdlib.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

__thread int foley_realtime_depth = 0;

void foley_realtime_enter(void) { foley_realtime_depth += 1; }

void foley_realtime_leave(void) { foley_realtime_depth -= 1; }

int foley_trim_heap(void) {
#ifdef __GLIBC__
    return malloc_trim(0);
#else
    return 0;
#endif
}
