/* The C tests' harness: checks that count failures and name the line, engines and sessions
 * ready for measuring, rendering helpers, and the measurements (tone amplitude, frequency,
 * levels). Compiled with each test program (harness.c); a test ends with `return harness_done();`. */
#ifndef TUTTI_TEST_HARNESS_H
#define TUTTI_TEST_HARNESS_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tutti.h>

#define RATE 48000

extern const char *harness_test;

/* A check: on failure, prints the place, the expression and a formatted detail. */
#define CHECK(cond, ...) harness_check((cond) ? 1 : 0, __FILE__, __LINE__, #cond, __VA_ARGS__)
void harness_check(int ok, const char *file, int line, const char *expr, const char *format, ...);

/* The call must succeed. */
#define OK(call)                                                                                                     \
    do {                                                                                                             \
        tutti_result r_ = (call);                                                                                    \
        CHECK(r_ == TUTTI_OK, "%s returned %s: %s", #call, tutti_result_string(r_), tutti_last_error());            \
    } while (0)

/* The call must fail with `code`, and tutti_last_error() must contain `text`. */
#define FAILS(code, text, call)                                                                                      \
    do {                                                                                                             \
        tutti_result r_ = (call);                                                                                    \
        CHECK(r_ == (code), "%s returned %s (%d), expected %s: \"%s\"", #call, tutti_result_string(r_), r_,          \
              tutti_result_string(code), tutti_last_error());                                                        \
        CHECK(strstr(tutti_last_error(), (text)) != NULL, "%s: message \"%s\" does not mention \"%s\"", #call,      \
              tutti_last_error(), (text));                                                                           \
    } while (0)

/* Runs a test function (void name(void)), naming it in failures. */
#define TEST(name) (harness_test = #name, printf("test %s\n", #name), name())

/* Prints the totals; the program's exit status. */
int harness_done(void);

/* An engine at RATE with `channels` channels and the given command queue capacity (0: default). */
tutti_engine *make_engine(uint32_t channels, uint32_t queue);
/* A session named `name` with `category` and `options`. */
tutti_session make_session(tutti_engine *engine, const char *name, tutti_category category, uint32_t options);
/* Renders `frames` frames into `out` (frames * channels floats) in blocks of `block`. */
void render(tutti_engine *engine, float *out, uint32_t frames, uint32_t channels, uint32_t block);
/* A buffer of `frames` mono frames rendered now in 256-frame blocks (caller frees). */
float *render_mono(tutti_engine *engine, uint32_t frames);
/* Amplitude of a sine of `frequency` Hz in every `stride`-th sample of x[0..n*stride) at RATE. */
double tone_amplitude(const float *x, size_t n, size_t stride, double frequency);
/* Frequency of a single tone in x[0..n), Hz at RATE (rising zero crossings, interpolated). */
double frequency_of(const float *x, size_t n);
/* Largest |x| in x[from..to). */
double peak(const float *x, size_t from, size_t to);
/* Writes a mono 16-bit WAV of `frames` frames at `rate` whose sample k is f(k). */
void write_mono_wav(const char *path, uint32_t frames, uint32_t rate, float (*f)(uint32_t));
/* 0.5 for every k (a DC file: output samples are then 0.5 × the gains, exactly). */
float dc_half(uint32_t k);
/* A path in this run's temporary folder ($TUTTI_TEST_TMP, else /tmp); 8 rotating buffers. */
const char *temp_path(const char *name);
/* Sleeps `ms` milliseconds (a device or a bus doing its work meanwhile). */
void sleep_ms(long ms);
/* Takes every event delivered now into out[0..max); returns how many there were. */
int drain_events(tutti_engine *engine, tutti_event *out, int max);
/* The first event of `type` (and of `session` unless 0) in events[0..n), or NULL. */
const tutti_event *find_event(const tutti_event *events, int n, int32_t type, tutti_session session);

#endif
