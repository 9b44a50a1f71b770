#ifndef FOLEY_DSP_H
#define FOLEY_DSP_H

// The mixing thread's hottest loop in 256-bit vectors, chosen at run time: Swift compiles its
// SIMD types for the baseline x86-64 (128-bit SSE) and has no per-function target, so the
// wider kernel is C, built for AVX alone and called only where the CPU and the OS support it.
// Nothing here allocates, locks or makes a system call.

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Whether `foley_add_scaled_avx` may run here: an x86-64 CPU with AVX whose OS saves its
/// registers. False on every other machine.
bool foley_dsp_has_avx(void);

/// `target[i] += source[i] * pattern[i % 8]` for `i < count`: a multiply and then an add, each
/// rounded to single precision (no fused multiply-add), so the sums are the same bit for bit as
/// the portable loop's. `source` and `target` need no alignment. Call it only when
/// `foley_dsp_has_avx()` is true.
void foley_add_scaled_avx(const float *source, float *target, ptrdiff_t count, const float *pattern);

#ifdef __cplusplus
}
#endif

#endif
