/* A 16-bit PCM WAV writer for the examples and the C tests: a 44-byte header (RIFF, fmt,
 * data) written by hand, samples clipped to [-1, 1] and rounded. No dependency but stdio. */
#ifndef TUTTI_EXAMPLE_WAV_H
#define TUTTI_EXAMPLE_WAV_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void wav_u32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v & 0xff);
    p[1] = (unsigned char)((v >> 8) & 0xff);
    p[2] = (unsigned char)((v >> 16) & 0xff);
    p[3] = (unsigned char)((v >> 24) & 0xff);
}

static void wav_u16(unsigned char *p, uint16_t v) {
    p[0] = (unsigned char)(v & 0xff);
    p[1] = (unsigned char)(v >> 8);
}

/* Writes `frames` interleaved float frames of `channels` channels at `sample_rate` Hz to
 * `path` as 16-bit PCM. Returns 0, or -1 (errno set) if the file cannot be written. */
static int wav_write(const char *path, const float *samples, uint32_t frames, uint32_t channels, uint32_t sample_rate) {
    unsigned char header[44];
    uint32_t data_bytes = frames * channels * 2;
    FILE *f = fopen(path, "wb");
    size_t i;
    if (f == NULL) return -1;
    memcpy(header, "RIFF", 4);
    wav_u32(header + 4, 36 + data_bytes);
    memcpy(header + 8, "WAVEfmt ", 8);
    wav_u32(header + 16, 16);                            /* fmt chunk size */
    wav_u16(header + 20, 1);                             /* PCM */
    wav_u16(header + 22, (uint16_t)channels);
    wav_u32(header + 24, sample_rate);
    wav_u32(header + 28, sample_rate * channels * 2);    /* bytes per second */
    wav_u16(header + 32, (uint16_t)(channels * 2));      /* bytes per frame */
    wav_u16(header + 34, 16);                            /* bits per sample */
    memcpy(header + 36, "data", 4);
    wav_u32(header + 40, data_bytes);
    if (fwrite(header, 1, sizeof header, f) != sizeof header) goto fail;
    for (i = 0; i < (size_t)frames * channels; i++) {
        float x = samples[i];
        long v;
        unsigned char b[2];
        if (!(x > -1.0f)) x = -1.0f; /* also NaN */
        if (x > 1.0f) x = 1.0f;
        v = (long)(x * 32767.0f + (x >= 0 ? 0.5f : -0.5f));
        wav_u16(b, (uint16_t)(int16_t)v);
        if (fwrite(b, 1, 2, f) != 2) goto fail;
    }
    return fclose(f) == 0 ? 0 : -1;
fail:
    fclose(f);
    return -1;
}

#endif
