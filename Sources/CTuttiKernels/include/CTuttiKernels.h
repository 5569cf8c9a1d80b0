// Tutti's mix and conversion kernels: a scalar reference and SSE2 / AVX2 / AVX-512
// variants of each, one table of function pointers per variant. The best variant the CPU
// supports is chosen ONCE, by a constructor that runs when the library is loaded (before
// main, before any thread): `tk_active` is never written after that, so the render thread
// only reads a pointer and never detects anything. TUTTI_KERNELS=scalar|sse2|avx2|avx512
// forces a variant (never one the CPU lacks: the best supported one at or below it).
//
// Every kernel is real-time safe: no allocation, no lock, no system call.
// Symbols use the `tk_` prefix on purpose: libtutti.so exports exactly `tutti_*`.
#ifndef C_TUTTI_KERNELS_H
#define C_TUTTI_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The kernel variants, in increasing order of the instruction sets they need.
typedef enum tk_variant {
    TK_VARIANT_SCALAR = 0,  ///< plain C, built for the baseline target (the reference)
    TK_VARIANT_SSE2 = 1,    ///< 4-wide SSE2 (every x86-64 CPU)
    TK_VARIANT_AVX2 = 2,    ///< 8-wide AVX2 (multiply, then add: no FMA)
    TK_VARIANT_AVX512 = 3,  ///< 16-wide AVX-512F with masked tails (no FMA)
    TK_VARIANT_COUNT = 4
} tk_variant;

/// One source of the renderer's dense settled list (TuttiEngine's `Renderer.settledList`):
/// what `mix_settled` reads to mix it and move it on. Frames and positions in frames.
typedef struct tk_settled_entry {
    /// The source's interleaved samples, frame 0.
    const float *data;
    /// Where the source's own position lives (its node): written with `position`.
    ptrdiff_t *node_position;
    /// The next frame to play.
    ptrdiff_t position;
    /// Where playback wraps or ends: a chunk reaching it is mixed here only when `wraps`.
    ptrdiff_t end;
    /// With `wraps`: the frame playback wraps back to at `end`.
    ptrdiff_t loop_start;
    /// Index into the targets (the source's output bus).
    ptrdiff_t route;
    /// The source's slot (the caller's; not read by the kernels).
    ptrdiff_t slot;
    /// The engine frame of the chunk it last wrapped in (set by `mix_settled`; the caller
    /// starts it at its plan's).
    int64_t since;
    /// kind 2: the gain; kind 3: the left channel's gain.
    float gain_left;
    /// kind 3: the right channel's gain.
    float gain_right;
    /// 0: silent, 1: plain add (gain 1), 2: one gain, 3: a gain per channel (stereo).
    uint8_t kind;
    /// 1: an endless loop that wraps at `end` back to `loop_start`.
    uint8_t wraps;
} tk_settled_entry;

/// One variant's kernels. Samples are interleaved float; counts are in samples unless a
/// name says frames. Pointers need no alignment; dst and src must not overlap. Function
/// pointers only (no name: `tk_variant` says which), so Swift holds a table by value as a
/// Sendable value.
typedef struct tk_kernels {
    /// dst[i] += src[i] (unity gain: exact).
    void (*add)(float *dst, const float *src, size_t count);
    /// dst[i] += gain · src[i]: the product rounded, then the sum (no variant fuses them), so
    /// every variant writes the same bytes as the scalar reference.
    void (*mix_add)(float *dst, const float *src, size_t count, float gain);
    /// dst[f·ch + c] += gains[f] · src[f·ch + c]: a gain per frame over interleaved frames.
    /// Vectorized for 1 and 2 channels; other channel counts run the scalar loop.
    void (*mix_add_gains)(float *dst, const float *src, const float *gains, size_t frame_count, size_t channel_count);
    /// Stereo: dst[2f] += gain_l · src[2f], dst[2f+1] += gain_r · src[2f+1] over `frame_count`
    /// interleaved frames (a panned source at settled gains). Same arithmetic as mix_add.
    void (*mix_add_pair)(float *dst, const float *src, size_t frame_count, float gain_l, float gain_r);
    /// dst[i] += gains[i] · src[i]: a gain per sample (a panned source while a gain or its pan
    /// ramps). Same arithmetic as mix_add.
    void (*mix_add_sample_gains)(float *dst, const float *src, const float *gains, size_t count);
    /// The dense settled list's chunk: entries[first], entries[first + 1], … in order, each
    /// mixed into targets[route] over `frames` frames of `channels` channels with the variant's
    /// add (kind 1), mix_add (kind 2, gain_left) or mix_add_pair (kind 3, stereo) — the same
    /// calls, the same bytes, as one call per entry — from `position`, which moves on by
    /// `frames` (and *node_position with it). An entry that reaches `end` inside the chunk
    /// and `wraps` (once: the rest shorter than its loop) mixes up to `end`, then from
    /// `loop_start`, and sets its `since` and *wrapped_at to `frame`. Returns the index of the first entry
    /// it did not mix (it reaches `end` and does not wrap there), `count` when none: the
    /// caller handles that one and calls again from the next.
    size_t (*mix_settled)(tk_settled_entry *entries, size_t first, size_t count, float *const *targets, size_t frames, size_t channels,
                          int64_t frame, int64_t *wrapped_at);
    /// The output meter: max(`peak_bits`, the largest |sample| as bits (sign cleared)) over
    /// `count` samples, and *clipped increased by the samples whose |bits| exceed 1.0's
    /// (0x3F800000). Integer operations only: every variant gives the same result.
    uint32_t (*meter)(const float *samples, size_t count, uint32_t peak_bits, size_t *clipped);
    /// Float → integer codes of `bits` bits (16 or 24), full scale 2^(bits−1): code =
    /// clamp(round_half_away(src·2^(bits−1) + dither)), NaN counts as 0. `dither` (TPDF
    /// values, one per sample, added in code units) may be NULL for none.
    /// s16: the codes as int16 (ALSA S16).
    void (*quantize_s16)(int16_t *dst, const float *src, const float *dither, size_t count);
    /// s24: 24-bit codes right-justified in int32 (−8388608 … 8388607).
    void (*quantize_s24)(int32_t *dst, const float *src, const float *dither, size_t count);
    /// s32: `bits`-bit codes (16 or 24) left-justified in int32 (code << (32 − bits)): ALSA
    /// S32 with 24-bit codes, libsndfile's int write path.
    void (*quantize_s32)(int32_t *dst, const float *src, const float *dither, size_t count, unsigned bits);
    // The peak limiter's stereo lookahead passes (TuttiDSP's PeakLimiter.stereoLimitChunk). Each
    // output element is one fixed sequence of IEEE comparisons, selects and one multiplication,
    // division or subtraction, so the vector width never changes a bit (the window averages'
    // sums excepted: see there).
    /// gains[f] = ceiling / peak when peak > ceiling, else 1, where peak starts at 0 and takes
    /// |x[2f]|, then |x[2f+1]|, each when greater (a NaN never is): stereo frames.
    void (*limiter_needed_stereo)(float *gains, const float *x, size_t frame_count, float ceiling);
    /// A segment of the sliding minimum by blocks: for j in 0..<count, stored[j] = needed[j],
    /// prefix = min(prefix, needed[j]), minima[j] = min(after[j], prefix) and complement[j] =
    /// 1 − minima[j]. Returns the last prefix. Values are needed gains (no NaN, no −0).
    float (*limiter_window_minima)(float *minima, float *complement, float *stored, const float *needed, const float *after,
                                   size_t count, float prefix);
    /// suffix[i] = min(gains[i…span−1], 1) for i in 0..<span (suffix[span] untouched).
    void (*limiter_suffix_minima)(float *suffix, const float *gains, size_t span);
    /// Stereo delay line and gain: for each frame f, the held frame held[2f…2f+1] goes out as
    /// held when gains[f] == 1, else clamp(held · gains[f]) to ±ceiling (y > c → c, y < −c →
    /// −c; a NaN stays); x's frame goes into held.
    void (*limiter_apply_stereo)(float *x, float *held, const float *gains, size_t frame_count, float ceiling);
    /// The averaging window's running sums and averages: for k in 0..<count, *sum += (double)
    /// entering[k] − (double)leaving[k], then gains[k] = q < 1 ? q : 1 with q = (float)(*sum /
    /// span); returns the smallest of 1 and the gains. Every variant adds the differences in
    /// another order (running sums within four frames or a vector, then the carry), so the
    /// caller guarantees no addition rounds in any order (PeakLimiter: the sum a multiple of
    /// 2^−38 below 4096, every gain at least 2^−15, at most 256 frames); then each gives the
    /// in-order sums.
    float (*limiter_window_averages)(float *gains, const float *entering, const float *leaving, size_t count, double *sum,
                                     double span);
    /// A tone (TuttiDSP's SineOscillator): for f in 0..<frame_count, every channel of frame f
    /// gets amplitude · (float)sin(2π · frac(n · cycles_per_frame)) with n = first_frame + f,
    /// the sine being the polynomial of TuttiDSP's `sineOfPhase` (`tk_sine_of_frame` in
    /// internal.h: multiplies, adds, comparisons and selects, no fused multiply-add, no libm).
    /// Each frame is a function of its index alone: the same bytes in every variant, whatever
    /// the block split. 0 <= first_frame + frame_count < 2^51 and |cycles_per_frame| <= 1.
    /// Vectorized for 1 and 2 channels; other channel counts store each frame's value per channel.
    void (*sine)(float *dst, size_t frame_count, size_t channel_count, int64_t first_frame, double cycles_per_frame, float amplitude);
} tk_kernels;

/// The variant chosen at load time. Written only by the load-time constructor.
extern const tk_kernels *tk_active;

/// The table of `variant`, or NULL when this CPU (or this build) does not support it.
/// Any thread; for tests and benchmarks (the render path uses `tk_active`).
const tk_kernels *tk_kernels_for(tk_variant variant);

/// The variant `tk_active` points to.
tk_variant tk_active_variant(void);

/// The best variant this CPU supports (what is chosen without TUTTI_KERNELS).
tk_variant tk_best_variant(void);

/// `tk_active` (inline: one load), for callers that read the table once for many calls.
static inline const tk_kernels *tk_active_table(void) { return tk_active; }

// Calls through the active table (inline: one load and an indirect call).
static inline void tk_add(float *dst, const float *src, size_t count) { tk_active->add(dst, src, count); }
static inline void tk_mix_add(float *dst, const float *src, size_t count, float gain) {
    tk_active->mix_add(dst, src, count, gain);
}
static inline void tk_mix_add_gains(float *dst, const float *src, const float *gains, size_t frame_count, size_t channel_count) {
    tk_active->mix_add_gains(dst, src, gains, frame_count, channel_count);
}
static inline void tk_mix_add_pair(float *dst, const float *src, size_t frame_count, float gain_l, float gain_r) {
    tk_active->mix_add_pair(dst, src, frame_count, gain_l, gain_r);
}
static inline void tk_mix_add_sample_gains(float *dst, const float *src, const float *gains, size_t count) {
    tk_active->mix_add_sample_gains(dst, src, gains, count);
}
static inline size_t tk_mix_settled(tk_settled_entry *entries, size_t first, size_t count, float *const *targets, size_t frames,
                                    size_t channels, int64_t frame, int64_t *wrapped_at) {
    return tk_active->mix_settled(entries, first, count, targets, frames, channels, frame, wrapped_at);
}
static inline void tk_sine(float *dst, size_t frame_count, size_t channel_count, int64_t first_frame, double cycles_per_frame,
                           float amplitude) {
    tk_active->sine(dst, frame_count, channel_count, first_frame, cycles_per_frame, amplitude);
}
static inline uint32_t tk_meter(const float *samples, size_t count, uint32_t peak_bits, size_t *clipped) {
    return tk_active->meter(samples, count, peak_bits, clipped);
}
static inline void tk_quantize_s16(int16_t *dst, const float *src, const float *dither, size_t count) {
    tk_active->quantize_s16(dst, src, dither, count);
}
static inline void tk_quantize_s24(int32_t *dst, const float *src, const float *dither, size_t count) {
    tk_active->quantize_s24(dst, src, dither, count);
}
static inline void tk_quantize_s32(int32_t *dst, const float *src, const float *dither, size_t count, unsigned bits) {
    tk_active->quantize_s32(dst, src, dither, count, bits);
}

#ifdef __cplusplus
}
#endif

#endif
