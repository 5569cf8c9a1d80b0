/* The C tests' harness (see harness.h). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "harness.h"

#include <stdarg.h>
#include <time.h>

#include "wav.h"

#define PI_ 3.14159265358979323846

const char *harness_test = "";
static int harness_checks;
static int harness_failures;

void harness_check(int ok, const char *file, int line, const char *expr, const char *format, ...) {
    harness_checks++;
    if (!ok) {
        va_list args;
        harness_failures++;
        fprintf(stderr, "FAIL %s (%s:%d): %s: ", harness_test, file, line, expr);
        va_start(args, format);
        vfprintf(stderr, format, args);
        va_end(args);
        fprintf(stderr, "\n");
    }
}

int harness_done(void) {
    printf("%d checks, %d failed\n", harness_checks, harness_failures);
    return harness_failures == 0 ? 0 : 1;
}

tutti_engine *make_engine(uint32_t channels, uint32_t queue) {
    tutti_engine_config config;
    tutti_engine *engine = NULL;
    tutti_engine_config_init(&config);
    config.sample_rate = RATE;
    config.channels = channels;
    if (queue) config.command_queue_capacity = queue;
    OK(tutti_engine_create(&config, &engine));
    if (engine == NULL) exit(2);
    return engine;
}

tutti_session make_session(tutti_engine *engine, const char *name, tutti_category category, uint32_t options) {
    tutti_session s = 0;
    OK(tutti_session_create(engine, name, &s));
    OK(tutti_session_set_category(engine, s, category, TUTTI_MODE_DEFAULT, options));
    return s;
}

void render(tutti_engine *engine, float *out, uint32_t frames, uint32_t channels, uint32_t block) {
    uint32_t done = 0;
    while (done < frames) {
        uint32_t n = frames - done < block ? frames - done : block;
        OK(tutti_engine_render(engine, out + (size_t)done * channels, n));
        done += n;
    }
}

float *render_mono(tutti_engine *engine, uint32_t frames) {
    float *x = calloc(frames, sizeof(float));
    render(engine, x, frames, 1, 256);
    return x;
}

double tone_amplitude(const float *x, size_t n, size_t stride, double frequency) {
    double re = 0, im = 0, wsum = 0;
    size_t k;
    for (k = 0; k < n; k++) {
        double w = 0.5 - 0.5 * cos(2 * PI_ * (double)k / (double)(n - 1));
        double phase = 2 * PI_ * frequency * (double)k / RATE;
        re += w * x[k * stride] * cos(phase);
        im += w * x[k * stride] * sin(phase);
        wsum += w;
    }
    return 2 * sqrt(re * re + im * im) / wsum;
}

double frequency_of(const float *x, size_t n) {
    double first = -1, last = -1;
    long crossings = 0;
    size_t k;
    for (k = 1; k < n; k++) {
        if (x[k - 1] < 0 && x[k] >= 0) {
            double t = (double)(k - 1) + x[k - 1] / (x[k - 1] - x[k]);
            if (first < 0) first = t;
            else crossings++;
            last = t;
        }
    }
    return crossings > 0 ? crossings * (double)RATE / (last - first) : 0;
}

double peak(const float *x, size_t from, size_t to) {
    double p = 0;
    size_t k;
    for (k = from; k < to; k++) p = fabs(x[k]) > p ? fabs(x[k]) : p;
    return p;
}

void write_mono_wav(const char *path, uint32_t frames, uint32_t rate, float (*f)(uint32_t)) {
    float *x = malloc(frames * sizeof(float));
    uint32_t k;
    for (k = 0; k < frames; k++) x[k] = f(k);
    if (wav_write(path, x, frames, 1, rate) != 0) {
        perror(path);
        exit(2);
    }
    free(x);
}

float dc_half(uint32_t k) {
    (void)k;
    return 0.5f;
}

const char *temp_path(const char *name) {
    static char paths[8][512];
    static int next;
    const char *dir = getenv("TUTTI_TEST_TMP");
    char *p = paths[next++ % 8];
    snprintf(p, 512, "%s/%s", dir != NULL ? dir : "/tmp", name);
    return p;
}

int drain_events(tutti_engine *engine, tutti_event *out, int max) {
    int n = 0;
    tutti_event e;
    while (tutti_engine_poll_event(engine, &e) == 1) {
        if (n < max) out[n] = e;
        n++;
    }
    return n;
}

const tutti_event *find_event(const tutti_event *events, int n, int32_t type, tutti_session session) {
    int k;
    for (k = 0; k < n; k++)
        if (events[k].type == type && (session == 0 || events[k].session == session)) return &events[k];
    return NULL;
}

void sleep_ms(long ms) {
    struct timespec t;
    t.tv_sec = ms / 1000;
    t.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&t, NULL);
}
