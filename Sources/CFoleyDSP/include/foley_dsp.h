#ifndef FOLEY_DSP_H
#define FOLEY_DSP_H

// The mixing thread's hottest loops in 256-bit vectors, chosen at run time: Swift compiles its
// SIMD types for the baseline x86-64 (128-bit SSE) and has no per-function target, so the
// wider kernels are C, built for AVX alone and called only where the CPU and the OS support them.
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

/// A de-click ramp's stretch of `vectors` vectors of four stereo frames, added into `target`:
/// for each vector, `left = distance − step × steps`, the gains `goal − sign × left` (with `left`
/// raised to 0 where it is below 0 when `clamped`), `target += source × gains`, then `steps += 4`.
/// Every operand is eight floats laid out as the samples are (left, right, …); each operation is
/// rounded on its own, as in `StereoRamp`'s Swift vectors, so the samples are theirs bit for bit.
/// Call it only when `foley_dsp_has_avx()` is true.
void foley_ramp_add_avx(
    const float *source, float *target, ptrdiff_t vectors, const float *steps, const float *distance,
    const float *step, const float *sign, const float *goal, bool clamped);

// Marks the mixing thread's render (see foley_realtime.c): non-zero inside it.
extern __thread int foley_realtime_depth;
void foley_realtime_enter(void);
void foley_realtime_leave(void);

// Hands the allocator's free pages back to the system (glibc's malloc_trim; nothing elsewhere).
// Returns 1 if memory was released.
int foley_trim_heap(void);

#ifdef __cplusplus
}
#endif

#endif
