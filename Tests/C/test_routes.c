/* Output buses (named output mixes; the config fields keep their first names, route_count and
 * route_names), measured: a tone sent to "cue" sounds only in the cue buffer of
 * tutti_engine_render_output_buses, main only in main; a config of the first released size (no
 * bus fields) gives main alone; bad buses are refused with messages naming them; the
 * deprecated names (tutti_source_set_route, tutti_source_get_route, tutti_engine_render_routes,
 * TUTTI_MAX_ROUTES) still work. */
#include <stddef.h>
#include <string.h>

#include "harness.h"

#define FRAMES 24000

static tutti_engine *two_routes(void) {
    static const char *const names[] = {"main", "cue"};
    tutti_engine_config config;
    tutti_engine *engine = NULL;
    tutti_engine_config_init(&config);
    CHECK(config.route_count == 1 && config.route_names == NULL, "default: main alone (%u)", config.route_count);
    config.sample_rate = RATE;
    config.channels = 1;
    config.route_count = 2;
    config.route_names = names;
    OK(tutti_engine_create(&config, &engine));
    if (engine == NULL) exit(2);
    return engine;
}

static void render_both(tutti_engine *engine, float *main_out, float *cue_out) {
    uint32_t done = 0;
    while (done < FRAMES) {
        float *outputs[2];
        uint32_t n = FRAMES - done < 256 ? FRAMES - done : 256;
        outputs[0] = main_out + done;
        outputs[1] = cue_out + done;
        OK(tutti_engine_render_output_buses(engine, outputs, 2, n));
        done += n;
    }
}

static void a_tone_on_cue_sounds_only_on_cue(void) {
    tutti_engine *engine = two_routes();
    tutti_session dj = make_session(engine, "dj", TUTTI_CATEGORY_MULTI_ROUTE, 0);
    tutti_source a, b;
    float *m = calloc(FRAMES, sizeof(float)), *c = calloc(FRAMES, sizeof(float));
    OK(tutti_source_create_tone(engine, dj, 440, 0.5f, &a));
    OK(tutti_source_create_tone(engine, dj, 1000, 0.25f, &b));
    OK(tutti_source_set_output_bus(engine, b, "cue", TUTTI_NOW));
    OK(tutti_session_set_active(engine, dj, 1, 0, TUTTI_NOW));
    OK(tutti_source_play(engine, a, TUTTI_NOW));
    OK(tutti_source_play(engine, b, TUTTI_NOW));
    render_both(engine, m, c);
    CHECK(fabs(tone_amplitude(m + 4800, FRAMES - 4800, 1, 440) - 0.5) < 0.01, "main 440 Hz: %f",
          tone_amplitude(m + 4800, FRAMES - 4800, 1, 440));
    CHECK(tone_amplitude(m + 4800, FRAMES - 4800, 1, 1000) < 1e-4, "no 1 kHz on main: %f",
          tone_amplitude(m + 4800, FRAMES - 4800, 1, 1000));
    CHECK(fabs(tone_amplitude(c + 4800, FRAMES - 4800, 1, 1000) - 0.25) < 0.01, "cue 1 kHz: %f",
          tone_amplitude(c + 4800, FRAMES - 4800, 1, 1000));
    CHECK(tone_amplitude(c + 4800, FRAMES - 4800, 1, 440) < 1e-4, "no 440 Hz on cue: %f",
          tone_amplitude(c + 4800, FRAMES - 4800, 1, 440));
    /* tutti_engine_render renders main alone: the cue tone still advances, unheard. */
    render(engine, m, 4800, 1, 256);
    CHECK(tone_amplitude(m, 4800, 1, 1000) < 1e-4, "main only: %f", tone_amplitude(m, 4800, 1, 1000));
    free(m);
    free(c);
    tutti_engine_destroy(engine);
}

static void the_first_released_config_size_means_main_alone(void) {
    tutti_engine_config config;
    tutti_engine *engine = NULL;
    float out[256], *outputs[2];
    tutti_engine_config_init(&config);
    config.struct_size = (uint32_t)offsetof(tutti_engine_config, route_count);
    config.route_count = 5; /* past struct_size: not read */
    OK(tutti_engine_create(&config, &engine));
    if (engine == NULL) exit(2);
    /* Between the two layouts: no layout this library knows. */
    config.struct_size = (uint32_t)offsetof(tutti_engine_config, route_count) + 4;
    FAILS(TUTTI_ERROR_VERSION, "struct_size", tutti_engine_create(&config, &engine));
    outputs[0] = out;
    outputs[1] = out;
    OK(tutti_engine_render_output_buses(engine, outputs, 1, 128));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "bus_count", tutti_engine_render_output_buses(engine, outputs, 2, 128));
    tutti_engine_destroy(engine);
}

/* Every released layout of tutti_engine_config is accepted and reads the fields it covers (the
 * later ones as their defaults); a size between two layouts is VERSION, the message listing
 * every layout; unknown flags are refused. */
static void every_engine_config_layout_is_accepted(void) {
    const uint32_t layouts[] = {
        (uint32_t)offsetof(tutti_engine_config, route_count),
        (uint32_t)offsetof(tutti_engine_config, limiter_enabled),
        (uint32_t)offsetof(tutti_engine_config, loss_fade_seconds),
        (uint32_t)offsetof(tutti_engine_config, flags),
        /* as a caller's sizeof has it: the fourth layout padded to the pointer's alignment */
        (uint32_t)((offsetof(tutti_engine_config, flags) + 7) / 8 * 8),
        (uint32_t)offsetof(tutti_engine_config, master_effects_enabled),
        (uint32_t)((offsetof(tutti_engine_config, master_effects_enabled) + 7) / 8 * 8), /* the fifth's sizeof */
        (uint32_t)sizeof(tutti_engine_config),
    };
    tutti_engine_config config;
    tutti_engine *engine = NULL;
    unsigned i;
    for (i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        tutti_engine_config_init(&config);
        config.struct_size = layouts[i];
        config.flags = layouts[i] <= offsetof(tutti_engine_config, flags) ? 0xffffu : 0; /* past struct_size: not read */
        if (i + 1 < sizeof layouts / sizeof layouts[0]) {
            config.master_effects_enabled = 1; /* past struct_size: not read (NULL effects would fail) */
            config.master_effect_count = 3;
        }
        engine = NULL;
        CHECK(tutti_engine_create(&config, &engine) == TUTTI_OK, "layout of %u bytes: %s", layouts[i], tutti_last_error());
        tutti_engine_destroy(engine);
        if (i > 0) {
            config.struct_size = layouts[i] - 4;
            if (config.struct_size > layouts[i - 1])
                FAILS(TUTTI_ERROR_VERSION, "the layouts of", tutti_engine_create(&config, &engine));
        }
    }
    tutti_engine_config_init(&config);
    config.flags = 6;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config->flags has unknown bits 0x6", tutti_engine_create(&config, &engine));
}

/* The exported _init symbols (what binaries built against an earlier tutti.h call) never write
 * past the layout they were released with; the header's macros pass the caller's sizeof, and
 * _init_size never writes past the size it is given. */
static void init_functions_never_write_past_the_callers_struct(void) {
    unsigned char bytes[TUTTI_MAX_STRUCT_SIZE + 64];
    const size_t fifth = (offsetof(tutti_engine_config, master_effects_enabled) + 7) / 8 * 8;
    const size_t first_info = offsetof(tutti_source_info, rate);
    tutti_engine_config config;
    tutti_engine *engine = NULL;
    size_t i, spilled;

    memset(bytes, 0xab, sizeof bytes);
    (tutti_engine_config_init)((tutti_engine_config *)(void *)bytes); /* the symbol, not the macro */
    memcpy(&config, bytes, sizeof config);
    CHECK(config.struct_size == fifth, "the symbol's struct_size %u (the fifth layout's sizeof %zu)", config.struct_size, fifth);
    for (spilled = 0, i = fifth; i < sizeof bytes; i++) spilled += bytes[i] != 0xab;
    CHECK(spilled == 0, "%zu bytes past the fifth layout written", spilled);
    config.master_effects_enabled = 0; /* what a caller of that layout has there: its stack */
    CHECK(tutti_engine_create(&config, &engine) == TUTTI_OK, "%s", tutti_last_error());
    tutti_engine_destroy(engine);

    memset(bytes, 0xab, sizeof bytes);
    (tutti_source_info_init)((tutti_source_info *)(void *)bytes);
    CHECK(((tutti_source_info *)(void *)bytes)->struct_size == first_info, "source info symbol: %u",
          ((tutti_source_info *)(void *)bytes)->struct_size);
    for (spilled = 0, i = first_info; i < sizeof bytes; i++) spilled += bytes[i] != 0xab;
    CHECK(spilled == 0, "%zu bytes past the first source info layout written", spilled);

    /* Sized: the first layout's 28 bytes, and a caller's struct larger than this library's. */
    memset(bytes, 0xab, sizeof bytes);
    tutti_engine_config_init_size((tutti_engine_config *)(void *)bytes, 28);
    CHECK(((tutti_engine_config *)(void *)bytes)->struct_size == 28, "sized 28: %u", ((tutti_engine_config *)(void *)bytes)->struct_size);
    for (spilled = 0, i = 28; i < sizeof bytes; i++) spilled += bytes[i] != 0xab;
    CHECK(spilled == 0, "%zu bytes past 28 written", spilled);
    memset(bytes, 0xab, sizeof bytes);
    tutti_engine_config_init_size((tutti_engine_config *)(void *)bytes, (uint32_t)sizeof config + 64);
    CHECK(((tutti_engine_config *)(void *)bytes)->struct_size == sizeof config, "a newer caller's struct: %u",
          ((tutti_engine_config *)(void *)bytes)->struct_size);
    for (spilled = 0, i = sizeof config; i < sizeof bytes; i++) spilled += bytes[i] != 0xab;
    CHECK(spilled == 0, "%zu bytes past this library's struct written", spilled);

    /* The macro: the whole struct of this header, NULL ignored. */
    tutti_engine_config_init(&config);
    CHECK(config.struct_size == sizeof config && config.sample_rate == 48000, "macro: %u", config.struct_size);
    tutti_engine_config_init(NULL);
    tutti_engine_config_init_size(NULL, 64);
}

static void bad_routes_are_refused(void) {
    static const char *const wrong_first[] = {"cue", "main"};
    static const char *const twice[] = {"main", "cue", "cue"};
    tutti_engine_config config;
    tutti_engine *engine = NULL;
    tutti_session music, dj;
    tutti_source t;
    float out[256], *outputs[3];
    tutti_engine_config_init(&config);
    config.route_count = 9;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "route_count", tutti_engine_create(&config, &engine));
    config.route_count = 2;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "route_names", tutti_engine_create(&config, &engine));
    config.route_names = wrong_first;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "main", tutti_engine_create(&config, &engine));
    config.route_count = 3;
    config.route_names = twice;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "twice", tutti_engine_create(&config, &engine));
    CHECK(engine == NULL, "nothing created");

    engine = two_routes();
    music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    dj = make_session(engine, "dj", TUTTI_CATEGORY_MULTI_ROUTE, 0);
    OK(tutti_source_create_tone(engine, music, 440, 0.5f, &t));
    FAILS(TUTTI_ERROR_STATE, "multiRoute", tutti_source_set_output_bus(engine, t, "cue", TUTTI_NOW));
    OK(tutti_source_set_output_bus(engine, t, "main", TUTTI_NOW));
    OK(tutti_source_create_tone(engine, dj, 440, 0.5f, &t));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "booth", tutti_source_set_output_bus(engine, t, "booth", TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "bus", tutti_source_set_output_bus(engine, t, NULL, TUTTI_NOW));
    OK(tutti_source_set_output_bus(engine, t, "cue", TUTTI_NOW));
    outputs[0] = out;
    outputs[1] = NULL;
    outputs[2] = out;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "non-NULL", tutti_engine_render_output_buses(engine, outputs, 2, 128));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "bus_count", tutti_engine_render_output_buses(engine, NULL, 2, 128));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "bus_count", tutti_engine_render_output_buses(engine, outputs, 0, 128));
    outputs[1] = out;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "bus_count", tutti_engine_render_output_buses(engine, outputs, 3, 128));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine", tutti_engine_render_output_buses(NULL, outputs, 2, 128));
    tutti_engine_destroy(engine);
}

/* tutti_output_config.routes: each route past main on its own ALSA PCM (alsa-lib's "null"
 * here: no sound card needed); bad entries are refused naming them; a caller of the layout
 * before `routes` plays main alone. */
static void routes_play_on_their_own_pcms(void) {
    tutti_engine *engine = two_routes();
    tutti_output_config config;
    tutti_output_config_init(&config);
    CHECK(config.routes == NULL, "default: no routes%s", "");
    config.device = "null";
    config.routes = "booth=null";
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "booth", tutti_output_start(engine, &config));
    config.routes = "cue";
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config->routes", tutti_output_start(engine, &config));
    config.routes = "cue=null;cue=null";
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "twice", tutti_output_start(engine, &config));
    config.routes = "cue=no_such_pcm_tutti";
    FAILS(TUTTI_ERROR_DEVICE, "no_such_pcm_tutti", tutti_output_start(engine, &config));
    config.routes = "cue=null";
    OK(tutti_output_start(engine, &config));
    OK(tutti_output_stop(engine));
    config.struct_size = (uint32_t)offsetof(tutti_output_config, routes);
    config.routes = "booth=null"; /* beyond the caller's layout: not read */
    OK(tutti_output_start(engine, &config));
    OK(tutti_output_stop(engine));
    tutti_engine_destroy(engine);
}

/* The deprecated names call the new ones: the same bus set, read back and rendered. */
static void the_old_route_names_still_work(void) {
    tutti_engine *engine = two_routes();
    tutti_session dj = make_session(engine, "dj", TUTTI_CATEGORY_MULTI_ROUTE, 0);
    tutti_source b;
    char name[16];
    size_t length = 0;
    float m[4800], c[4800], *outputs[2];
    uint32_t done = 0;
    CHECK(TUTTI_MAX_ROUTES == TUTTI_MAX_OUTPUT_BUSES, "TUTTI_MAX_ROUTES %u", TUTTI_MAX_ROUTES);
    OK(tutti_source_create_tone(engine, dj, 1000, 0.25f, &b));
    OK(tutti_source_set_route(engine, b, "cue", TUTTI_NOW));
    OK(tutti_source_get_output_bus(engine, b, name, sizeof name, &length));
    CHECK(strcmp(name, "cue") == 0 && length == 3, "output bus %s (%zu)", name, length);
    OK(tutti_source_get_route(engine, b, name, sizeof name, &length));
    CHECK(strcmp(name, "cue") == 0 && length == 3, "route %s (%zu)", name, length);
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "tutti_source_set_route: route", tutti_source_set_route(engine, b, NULL, TUTTI_NOW));
    OK(tutti_session_set_active(engine, dj, 1, 0, TUTTI_NOW));
    OK(tutti_source_play(engine, b, TUTTI_NOW));
    while (done < 4800) {
        outputs[0] = m + done;
        outputs[1] = c + done;
        OK(tutti_engine_render_routes(engine, outputs, 2, 240));
        done += 240;
    }
    CHECK(fabs(tone_amplitude(c + 2400, 2400, 1, 1000) - 0.25) < 0.01, "cue 1 kHz: %f", tone_amplitude(c + 2400, 2400, 1, 1000));
    CHECK(tone_amplitude(m + 2400, 2400, 1, 1000) < 1e-4, "no 1 kHz on main: %f", tone_amplitude(m + 2400, 2400, 1, 1000));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "route_count", tutti_engine_render_routes(engine, outputs, 3, 128));
    tutti_engine_destroy(engine);
}

int main(void) {
    TEST(routes_play_on_their_own_pcms);
    TEST(a_tone_on_cue_sounds_only_on_cue);
    TEST(the_first_released_config_size_means_main_alone);
    TEST(every_engine_config_layout_is_accepted);
    TEST(init_functions_never_write_past_the_callers_struct);
    TEST(bad_routes_are_refused);
    TEST(the_old_route_names_still_work);
    return harness_done();
}
