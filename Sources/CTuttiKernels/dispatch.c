// Picks the kernel variant once, when the library is loaded: the best one the CPU supports,
// or the one TUTTI_KERNELS names if the CPU supports it (else the best supported below it).
// The render thread only ever reads `tk_active`.
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The scalar table until the constructor has run (anything called earlier still works).
const tk_kernels *tk_active = &tk_scalar_kernels;

static const char *const variant_names[TK_VARIANT_COUNT] = {"scalar", "sse2", "avx2", "avx512"};

static const tk_kernels *table_of(tk_variant variant) {
    switch (variant) {
    case TK_VARIANT_SCALAR: return &tk_scalar_kernels;
#ifdef TK_HAVE_X86
    case TK_VARIANT_SSE2: return &tk_sse2_kernels;
    case TK_VARIANT_AVX2: return &tk_avx2_kernels;
    case TK_VARIANT_AVX512: return &tk_avx512_kernels;
#endif
    default: return NULL;
    }
}

static int cpu_supports(tk_variant variant) {
    if (variant == TK_VARIANT_SCALAR) return 1;
#ifdef TK_HAVE_X86
    __builtin_cpu_init();
    switch (variant) {
    case TK_VARIANT_SSE2: return __builtin_cpu_supports("sse2");
    case TK_VARIANT_AVX2: return __builtin_cpu_supports("avx2");
    case TK_VARIANT_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2");
    default: return 0;
    }
#else
    return 0;
#endif
}

const tk_kernels *tk_kernels_for(tk_variant variant) {
    if ((int)variant < 0 || variant >= TK_VARIANT_COUNT || !cpu_supports(variant)) return NULL;
    return table_of(variant);
}

tk_variant tk_best_variant(void) {
    for (int v = TK_VARIANT_COUNT - 1; v > 0; v--) {
        if (tk_kernels_for((tk_variant)v)) return (tk_variant)v;
    }
    return TK_VARIANT_SCALAR;
}

tk_variant tk_active_variant(void) {
    for (int v = 0; v < TK_VARIANT_COUNT; v++) {
        if (table_of((tk_variant)v) == tk_active) return (tk_variant)v;
    }
    return TK_VARIANT_SCALAR;
}

__attribute__((constructor)) static void tk_select_variant(void) {
    tk_variant chosen = tk_best_variant();
    const char *forced = getenv("TUTTI_KERNELS");
    if (forced && *forced) {
        int known = 0;
        for (int v = 0; v < TK_VARIANT_COUNT; v++) {
            if (strcmp(forced, variant_names[v]) == 0) {
                known = 1;
                if ((tk_variant)v < chosen) chosen = (tk_variant)v;
                break;
            }
        }
        if (!known) fprintf(stderr, "tutti: TUTTI_KERNELS=%s is not scalar, sse2, avx2 or avx512; using %s\n", forced, variant_names[chosen]);
    }
    tk_active = table_of(chosen);
}
