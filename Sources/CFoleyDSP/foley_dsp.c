// See include/foley_dsp.h.
#include "foley_dsp.h"

// Each multiply and add rounded on its own, as in the portable loop.
#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

bool foley_dsp_has_avx(void) {
    // Checks the CPU's AVX bit and that the OS saves the YMM registers (OSXSAVE, XGETBV).
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx");
}

__attribute__((target("avx"))) void foley_add_scaled_avx(
    const float *source, float *target, ptrdiff_t count, const float *pattern) {
    const __m256 gains = _mm256_loadu_ps(pattern);
    ptrdiff_t index = 0;
    for (; index + 16 <= count; index += 16) {
        __m256 first = _mm256_mul_ps(_mm256_loadu_ps(source + index), gains);
        __m256 second = _mm256_mul_ps(_mm256_loadu_ps(source + index + 8), gains);
        _mm256_storeu_ps(target + index, _mm256_add_ps(_mm256_loadu_ps(target + index), first));
        _mm256_storeu_ps(target + index + 8, _mm256_add_ps(_mm256_loadu_ps(target + index + 8), second));
    }
    for (; index + 8 <= count; index += 8) {
        __m256 scaled = _mm256_mul_ps(_mm256_loadu_ps(source + index), gains);
        _mm256_storeu_ps(target + index, _mm256_add_ps(_mm256_loadu_ps(target + index), scaled));
    }
    for (; index < count; index += 1) {
        float scaled = source[index] * pattern[index & 7];
        target[index] = target[index] + scaled;
    }
}

__attribute__((target("avx"))) void foley_ramp_add_avx(
    const float *source, float *target, ptrdiff_t vectors, const float *steps, const float *distance,
    const float *step, const float *sign, const float *goal, bool clamped) {
    const __m256 four = _mm256_set1_ps(4);
    const __m256 zero = _mm256_setzero_ps();
    const __m256 distances = _mm256_loadu_ps(distance);
    const __m256 steps_by = _mm256_loadu_ps(step);
    const __m256 signs = _mm256_loadu_ps(sign);
    const __m256 goals = _mm256_loadu_ps(goal);
    __m256 at = _mm256_loadu_ps(steps);
    for (ptrdiff_t vector = 0; vector < vectors; vector += 1) {
        __m256 left = _mm256_sub_ps(distances, _mm256_mul_ps(steps_by, at));
        if (clamped) {
            // Swift's lanewise max with 0: 0 where `left < 0`, `left` otherwise (−0 and NaN kept).
            left = _mm256_blendv_ps(left, zero, _mm256_cmp_ps(left, zero, _CMP_LT_OQ));
        }
        __m256 gains = _mm256_sub_ps(goals, _mm256_mul_ps(signs, left));
        __m256 scaled = _mm256_mul_ps(_mm256_loadu_ps(source + vector * 8), gains);
        _mm256_storeu_ps(target + vector * 8, _mm256_add_ps(_mm256_loadu_ps(target + vector * 8), scaled));
        at = _mm256_add_ps(at, four);
    }
}

#else

// Other machines: the same sums one lane at a time (never called: foley_dsp_has_avx() is false).
bool foley_dsp_has_avx(void) { return false; }

void foley_add_scaled_avx(const float *source, float *target, ptrdiff_t count, const float *pattern) {
    for (ptrdiff_t index = 0; index < count; index += 1) {
        float scaled = source[index] * pattern[index & 7];
        target[index] = target[index] + scaled;
    }
}

void foley_ramp_add_avx(
    const float *source, float *target, ptrdiff_t vectors, const float *steps, const float *distance,
    const float *step, const float *sign, const float *goal, bool clamped) {
    float at[8];
    for (int lane = 0; lane < 8; lane += 1) at[lane] = steps[lane];
    for (ptrdiff_t vector = 0; vector < vectors; vector += 1) {
        for (int lane = 0; lane < 8; lane += 1) {
            float product = step[lane] * at[lane];
            float left = distance[lane] - product;
            if (clamped && left < 0) left = 0;
            float moved = sign[lane] * left;
            float gain = goal[lane] - moved;
            float scaled = source[vector * 8 + lane] * gain;
            target[vector * 8 + lane] = target[vector * 8 + lane] + scaled;
            at[lane] = at[lane] + 4.0f;
        }
    }
}

#endif
