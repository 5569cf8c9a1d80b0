// The limit Tutti's render path is compared against (see docs/performance.md).
// Built with -O3 (Package.swift); the loop is the whole kernel on purpose.
#include "CReferenceKernel.h"
#include <string.h>

void tutti_ref_mix_add(float *restrict out, const float *restrict in, size_t count, float g) {
    for (size_t i = 0; i < count; i++) out[i] += g * in[i];
}

void tutti_ref_mix_block(float *restrict out, const float *const *sources, const float *gains,
                         size_t source_count, size_t samples) {
    memset(out, 0, samples * sizeof(float));
    for (size_t k = 0; k < source_count; k++) tutti_ref_mix_add(out, sources[k], samples, gains[k]);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx2,fma")))
static void mix_add_avx2(float *restrict out, const float *restrict in, size_t count, float g) {
    for (size_t i = 0; i < count; i++) out[i] += g * in[i];
}

__attribute__((target("avx2,fma")))
void tutti_ref_mix_block_avx2(float *restrict out, const float *const *sources, const float *gains,
                              size_t source_count, size_t samples) {
    memset(out, 0, samples * sizeof(float));
    for (size_t k = 0; k < source_count; k++) mix_add_avx2(out, sources[k], samples, gains[k]);
}

int tutti_ref_has_avx2(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#else
void tutti_ref_mix_block_avx2(float *restrict out, const float *const *sources, const float *gains,
                              size_t source_count, size_t samples) {
    tutti_ref_mix_block(out, sources, gains, source_count, samples);
}

int tutti_ref_has_avx2(void) { return 0; }
#endif
