/* The output limiter through the C ABI: off by default; a config of the routes layout (before
 * the limiter fields) has none; a size between layouts is a version error; bad settings name
 * their field; with a limiter, two full-scale tones summed (+6 dBFS) never pass the ceiling,
 * and source pan places a tone (the far channel silent at -1) and reads back through
 * tutti_source_info (not written for a caller of the layout before it). */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "harness.h"

#define FRAMES 24000

static tutti_engine *limited_engine(float ceiling_db) {
    tutti_engine_config config;
    tutti_engine *engine = NULL;
    tutti_engine_config_init(&config);
    config.sample_rate = RATE;
    config.channels = 2;
    config.limiter_enabled = 1;
    config.limiter_ceiling_db = ceiling_db;
    OK(tutti_engine_create(&config, &engine));
    if (engine == NULL) exit(2);
    return engine;
}

static void defaults_are_no_limiter(void) {
    tutti_engine_config config;
    tutti_engine_config_init(&config);
    CHECK(config.limiter_enabled == 0, "limiter_enabled %d", config.limiter_enabled);
    CHECK(config.limiter_ceiling_db == -1.0f && config.limiter_release_seconds == 0.1f && config.limiter_lookahead_seconds == 0.0f,
          "defaults %f %f %f", config.limiter_ceiling_db, config.limiter_release_seconds, config.limiter_lookahead_seconds);
}

static void older_layouts_and_bad_settings(void) {
    tutti_engine_config config;
    tutti_engine *engine = NULL;
    tutti_engine_config_init(&config);
    config.limiter_enabled = 1;
    config.limiter_ceiling_db = 5; /* past struct_size below: not read */
    config.struct_size = (uint32_t)offsetof(tutti_engine_config, limiter_enabled);
    OK(tutti_engine_create(&config, &engine));
    tutti_engine_destroy(engine);
    config.struct_size = (uint32_t)offsetof(tutti_engine_config, limiter_enabled) + 4;
    FAILS(TUTTI_ERROR_VERSION, "struct_size", tutti_engine_create(&config, &engine));
    tutti_engine_config_init(&config);
    config.limiter_enabled = 1;
    config.limiter_ceiling_db = 5;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config->limiter_ceiling_db", tutti_engine_create(&config, &engine));
    config.limiter_ceiling_db = NAN;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config->limiter_ceiling_db", tutti_engine_create(&config, &engine));
    config.limiter_ceiling_db = -1;
    config.limiter_release_seconds = -1;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config->limiter_release_seconds", tutti_engine_create(&config, &engine));
    config.limiter_release_seconds = 0.1f;
    config.limiter_lookahead_seconds = 1;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config->limiter_lookahead_seconds", tutti_engine_create(&config, &engine));
}

static void the_ceiling_holds(void) {
    tutti_engine *engine = limited_engine(-6);
    tutti_session music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    tutti_source a, b;
    float *out = calloc(FRAMES * 2, sizeof(float));
    const double ceiling = pow(10, -6.0 / 20);
    OK(tutti_source_create_tone(engine, music, 440, 1, &a));
    OK(tutti_source_create_tone(engine, music, 440, 1, &b));
    OK(tutti_session_set_active(engine, music, 1, 0, TUTTI_NOW));
    OK(tutti_source_play(engine, a, TUTTI_NOW));
    OK(tutti_source_play(engine, b, TUTTI_NOW));
    render(engine, out, FRAMES, 2, 256);
    CHECK(peak(out, 0, FRAMES * 2) <= (float)ceiling, "peak %f over the ceiling %f", peak(out, 0, FRAMES * 2), ceiling);
    CHECK(peak(out, 4800, FRAMES * 2) > 0.9 * ceiling, "limited, not muted: %f", peak(out, 4800, FRAMES * 2));
    free(out);
    tutti_engine_destroy(engine);
}

static void pan_places_a_tone(void) {
    tutti_engine *engine = make_engine(2, 0);
    tutti_session music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    tutti_source a;
    float *out = calloc(FRAMES * 2, sizeof(float));
    tutti_source_info info;
    struct {
        tutti_source_info info;
        unsigned char after[8];
    } older;
    size_t k;
    int untouched = 1;
    OK(tutti_source_create_tone(engine, music, 440, 0.5f, &a));
    tutti_source_info_init(&info);
    OK(tutti_source_get_info(engine, a, &info));
    CHECK(info.panned == 0 && info.pan == 0, "never panned: %d %f", info.panned, info.pan);
    OK(tutti_source_set_pan(engine, a, 0.25f, 480, TUTTI_NOW));
    OK(tutti_source_set_pan(engine, a, -1, 0, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "pan", tutti_source_set_pan(engine, a, 2, 0, TUTTI_NOW));
    OK(tutti_source_get_info(engine, a, &info));
    CHECK(info.panned == 1 && info.pan == -1.0f, "the last pan set: %d %f", info.panned, info.pan);
    /* The layout ending at rate (before panned): rate written, nothing past it. */
    memset(&older, 0xAB, sizeof older);
    older.info.struct_size = (uint32_t)offsetof(tutti_source_info, panned);
    OK(tutti_source_get_info(engine, a, &older.info));
    CHECK(older.info.rate == 1.0, "the older layout's rate: %f", older.info.rate);
    for (k = offsetof(tutti_source_info, panned); k < sizeof older; k++) untouched &= ((unsigned char *)&older)[k] == 0xAB;
    CHECK(untouched, "nothing written past the layout ending at rate%s", "");
    older.info.struct_size = (uint32_t)offsetof(tutti_source_info, panned) + 4;
    FAILS(TUTTI_ERROR_VERSION, "out->struct_size", tutti_source_get_info(engine, a, &older.info));
    OK(tutti_session_set_active(engine, music, 1, 0, TUTTI_NOW));
    OK(tutti_source_play(engine, a, TUTTI_NOW));
    render(engine, out, FRAMES, 2, 256);
    CHECK(fabs(tone_amplitude(out + 2 * 4800, FRAMES - 4800, 2, 440) - 0.5) < 0.01, "left %f",
          tone_amplitude(out + 2 * 4800, FRAMES - 4800, 2, 440));
    {
        double right = 0;
        for (size_t i = 1; i < 2 * FRAMES; i += 2) right = fmax(right, fabs(out[i]));
        CHECK(right == 0, "right channel silent at pan -1: %g", right);
    }
    free(out);
    tutti_engine_destroy(engine);
}

int main(void) {
    TEST(defaults_are_no_limiter);
    TEST(older_layouts_and_bad_settings);
    TEST(the_ceiling_holds);
    TEST(pan_places_a_tone);
    return harness_done();
}
