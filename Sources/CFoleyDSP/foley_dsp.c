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

#else

bool foley_dsp_has_avx(void) { return false; }

void foley_add_scaled_avx(const float *source, float *target, ptrdiff_t count, const float *pattern) {
    for (ptrdiff_t index = 0; index < count; index += 1) {
        float scaled = source[index] * pattern[index & 7];
        target[index] = target[index] + scaled;
    }
}

#endif
