/* Effects on session buses through the C ABI: a notch takes its tone out of the mix; a peaking
 * filter's gain is heard at its centre; a delay's echo is heard after the source stops; a
 * biquad glides to another and its tone comes back; bad effects are refused naming the
 * field, nothing changed. A host effect (tutti_bus_set_effect) halves its bus from the frame
 * asked, exactly; removed, the output is the dry one bit for bit and its release is called
 * once, off the render thread; bad calls are refused by name, calling nothing. The master
 * stage (tutti_engine_config.master_effects): its chain is heard, a bad effect is refused naming
 * config->master_effects[i] and its field, and its host effect (tutti_master_set_effect) halves
 * the output from its frame, exactly, needing a master stage. */
#include <math.h>
#include <string.h>

#include "harness.h"

#define FRAMES 24000

static tutti_effect biquad(tutti_effect_type type, double frequency, double q, double gain) {
    tutti_effect e;
    memset(&e, 0, sizeof e);
    e.type = type;
    e.frequency_hz = frequency;
    e.q = q;
    e.gain_db = gain;
    return e;
}

/* A mono engine, a playback session playing a tone of `frequency` at 0.25 through `effects`. */
static tutti_engine *tone_through(const tutti_effect *effects, uint32_t count, double frequency, tutti_session *out_session) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    tutti_source tone;
    OK(tutti_source_create_tone(engine, music, frequency, 0.25f, &tone));
    OK(tutti_session_set_effects(engine, music, effects, count, TUTTI_NOW));
    OK(tutti_session_set_active(engine, music, 1, 0, TUTTI_NOW));
    OK(tutti_source_play(engine, tone, TUTTI_NOW));
    if (out_session) *out_session = music;
    return engine;
}

static void filters_are_heard(void) {
    tutti_effect notch = biquad(TUTTI_EFFECT_NOTCH, 440, 0.5, 0);
    tutti_effect peaking = biquad(TUTTI_EFFECT_PEAKING, 1000, 1, 6);
    tutti_engine *engine = tone_through(&notch, 1, 440, NULL);
    float *out = render_mono(engine, FRAMES);
    double notched = tone_amplitude(out + 4800, FRAMES - 4800, 1, 440);
    CHECK(notched < 1e-4, "the notched tone: %g", notched);
    free(out);
    tutti_engine_destroy(engine);
    engine = tone_through(&peaking, 1, 1000, NULL);
    out = render_mono(engine, FRAMES);
    {
        double db = 20 * log10(tone_amplitude(out + 4800, FRAMES - 4800, 1, 1000) / 0.25);
        CHECK(fabs(db - 6) < 0.1, "peaking +6 dB at its centre: %f dB", db);
    }
    free(out);
    tutti_engine_destroy(engine);
}

static void a_glide_brings_the_tone_back(void) {
    tutti_effect notch = biquad(TUTTI_EFFECT_NOTCH, 440, 0.5, 0);
    tutti_effect moved = biquad(TUTTI_EFFECT_HIGHPASS, 20, 0.7071, 0);
    tutti_session music;
    tutti_engine *engine = tone_through(&notch, 1, 440, &music);
    float *out = render_mono(engine, 4800);
    free(out);
    OK(tutti_session_set_effect(engine, music, 0, &moved, 480, TUTTI_NOW));
    out = render_mono(engine, FRAMES);
    {
        double back = tone_amplitude(out + 4800, FRAMES - 4800, 1, 440);
        CHECK(fabs(back - 0.25) < 0.01, "the tone after the glide: %f", back);
    }
    free(out);
    {
        tutti_effect delay;
        memset(&delay, 0, sizeof delay);
        delay.type = TUTTI_EFFECT_DELAY;
        delay.time_seconds = 0.1;
        FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "effect->", tutti_session_set_effect(engine, music, 0, &delay, 0, TUTTI_NOW));
        FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "effects[1]", tutti_session_set_effect(engine, music, 1, &moved, 0, TUTTI_NOW));
    }
    tutti_engine_destroy(engine);
}

static void a_delay_rings_after_the_source_stops(void) {
    tutti_effect delay;
    tutti_session music;
    tutti_engine *engine;
    tutti_source tone;
    float *out;
    memset(&delay, 0, sizeof delay);
    delay.type = TUTTI_EFFECT_DELAY;
    delay.time_seconds = 0.25;
    delay.feedback = 0.5;
    delay.mix = 0.5;
    engine = make_engine(1, 0);
    music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    OK(tutti_source_create_tone(engine, music, 1000, 0.5f, &tone));
    OK(tutti_session_set_effects(engine, music, &delay, 1, TUTTI_NOW));
    OK(tutti_session_set_active(engine, music, 1, 0, TUTTI_NOW));
    OK(tutti_source_play(engine, tone, TUTTI_NOW));
    OK(tutti_source_stop(engine, tone, 4800));
    out = render_mono(engine, FRAMES);
    /* The source stopped at 0.1 s (its 10 ms fade-out): the echo at 0.25…0.35 s is heard at
     * mix × the tone, 0.25, and silence before it. */
    CHECK(peak(out, 6000, 11900) == 0, "silence between the tone and its echo: %g", peak(out, 6000, 11900));
    {
        double echo = tone_amplitude(out + 12400, 3600, 1, 1000);
        CHECK(fabs(echo - 0.25) < 0.01, "the echo: %f", echo);
    }
    free(out);
    tutti_engine_destroy(engine);
}

static void bad_effects_name_their_field(void) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    tutti_effect chain[2];
    chain[0] = biquad(TUTTI_EFFECT_LOWPASS, 1000, 0.7, 0);
    chain[1] = biquad(TUTTI_EFFECT_LOWPASS, 30000, 0.7, 0);
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "effects[1].frequency_hz", tutti_session_set_effects(engine, music, chain, 2, TUTTI_NOW));
    chain[1] = biquad(TUTTI_EFFECT_PEAKING, 1000, 0, 0);
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "effects[1].q", tutti_session_set_effects(engine, music, chain, 2, TUTTI_NOW));
    chain[1].q = NAN;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "effects[1].q", tutti_session_set_effects(engine, music, chain, 2, TUTTI_NOW));
    memset(&chain[1], 0, sizeof chain[1]);
    chain[1].type = TUTTI_EFFECT_COMPRESSOR;
    chain[1].ratio = 0.5;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "effects[1].ratio", tutti_session_set_effects(engine, music, chain, 2, TUTTI_NOW));
    memset(&chain[1], 0, sizeof chain[1]);
    chain[1].type = TUTTI_EFFECT_DELAY;
    chain[1].time_seconds = 0.1;
    chain[1].feedback = 1;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "effects[1].feedback", tutti_session_set_effects(engine, music, chain, 2, TUTTI_NOW));
    chain[1].feedback = 0;
    chain[1].mix = 2;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "effects[1].mix", tutti_session_set_effects(engine, music, chain, 2, TUTTI_NOW));
    chain[1].mix = 0.5;
    chain[1].time_seconds = 0;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "effects[1].time_seconds", tutti_session_set_effects(engine, music, chain, 2, TUTTI_NOW));
    chain[1].type = 42;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "effects[1].type", tutti_session_set_effects(engine, music, chain, 2, TUTTI_NOW));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "effects", tutti_session_set_effects(engine, music, NULL, 2, TUTTI_NOW));
    OK(tutti_session_set_effects(engine, music, NULL, 0, TUTTI_NOW));
    tutti_engine_destroy(engine);
}

/* A host effect: multiplies by `factor`, counts frames and calls; `released` counts releases. */
typedef struct scale_state {
    float factor;
    uint64_t frames;
    uint32_t channels;
    int released;
} scale_state;

static void scale_callback(float *interleaved, uint32_t frames, uint32_t channels, void *user) {
    scale_state *s = user;
    for (uint32_t i = 0; i < frames * channels; i++) interleaved[i] *= s->factor;
    s->frames += frames;
    s->channels = channels;
}

static void scale_release(void *user) { ((scale_state *)user)->released += 1; }

static void a_host_effect_halves_its_bus_from_its_frame(void) {
    tutti_session music, dry_music;
    tutti_engine *engine = tone_through(NULL, 0, 440, &music);
    tutti_engine *dry = tone_through(NULL, 0, 440, &dry_music);
    scale_state state = {0.5f, 0, 0, 0};
    OK(tutti_bus_set_effect(engine, music, scale_callback, scale_release, &state, 1000));
    float *out = render_mono(engine, 4800);
    float *reference = render_mono(dry, 4800);
    int exact = 1;
    for (int i = 0; i < 4800; i++) {
        if (out[i] != (i < 1000 ? reference[i] : reference[i] * 0.5f)) exact = 0;
    }
    CHECK(exact, "the host effect halves the bus from frame 1000 on, exactly");
    CHECK(state.frames == 3800 && state.channels == 1, "called for %llu frames of %u channels", (unsigned long long)state.frames,
          state.channels);
    free(out);
    free(reference);
    /* Removed: the dry output bit for bit; released once by a later call on the engine. */
    OK(tutti_bus_set_effect(engine, music, NULL, NULL, NULL, TUTTI_NOW));
    CHECK(state.released == 0, "not released before the render side let go: %d", state.released);
    out = render_mono(engine, 4800);
    reference = render_mono(dry, 4800);
    CHECK(memcmp(out, reference, 4800 * sizeof(float)) == 0, "removed: the dry output");
    CHECK(state.frames == 3800, "not called once removed: %llu frames", (unsigned long long)state.frames);
    OK(tutti_session_set_gain(engine, music, 1.0f, 0, TUTTI_NOW));
    CHECK(state.released == 1, "released once: %d", state.released);
    free(out);
    free(reference);
    /* Bad calls change nothing and call nothing. */
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "at", tutti_bus_set_effect(engine, music, scale_callback, scale_release, &state, -5));
    FAILS(TUTTI_ERROR_NOT_FOUND, "session", tutti_bus_set_effect(engine, music + 12345, scale_callback, scale_release, &state, TUTTI_NOW));
    /* Installed when the engine is destroyed: released then. */
    OK(tutti_bus_set_effect(engine, music, scale_callback, scale_release, &state, TUTTI_NOW));
    tutti_engine_destroy(engine);
    CHECK(state.released == 2, "released by tutti_engine_destroy: %d", state.released);
    tutti_engine_destroy(dry);
}

/* A mono engine with a master stage of `count` effects (enabled even when count is 0) playing a
 * tone of `frequency` at 0.25 in a playback session. */
static tutti_engine *master_engine(const tutti_effect *effects, uint32_t count, double frequency) {
    tutti_engine_config config;
    tutti_engine *engine = NULL;
    tutti_session music;
    tutti_source tone;
    tutti_engine_config_init(&config);
    CHECK(config.master_effects_enabled == 0 && config.master_effect_count == 0 && config.master_effects == NULL,
          "no master stage by default: %d %u", config.master_effects_enabled, config.master_effect_count);
    config.channels = 1;
    config.master_effects_enabled = 1;
    config.master_effect_count = count;
    config.master_effects = effects;
    OK(tutti_engine_create(&config, &engine));
    if (engine == NULL) exit(2);
    music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    OK(tutti_source_create_tone(engine, music, frequency, 0.25f, &tone));
    OK(tutti_session_set_active(engine, music, 1, 0, TUTTI_NOW));
    OK(tutti_source_play(engine, tone, TUTTI_NOW));
    return engine;
}

static void the_master_chain_is_heard(void) {
    tutti_effect chain[2];
    tutti_engine_config config;
    tutti_engine *engine;
    float *out;
    chain[0] = biquad(TUTTI_EFFECT_HIGHPASS, 20, 0.7071, 0);
    chain[1] = biquad(TUTTI_EFFECT_NOTCH, 440, 0.5, 0);
    engine = master_engine(chain, 2, 440);
    out = render_mono(engine, FRAMES);
    {
        double notched = tone_amplitude(out + 4800, FRAMES - 4800, 1, 440);
        CHECK(notched < 1e-4, "the master's notch takes the tone out: %g", notched);
    }
    free(out);
    tutti_engine_destroy(engine);
    engine = master_engine(chain, 1, 440); /* the high-pass alone: the tone passes */
    out = render_mono(engine, FRAMES);
    {
        double passed = tone_amplitude(out + 4800, FRAMES - 4800, 1, 440);
        CHECK(fabs(passed - 0.25) < 0.005, "through the high-pass: %f", passed);
    }
    free(out);
    tutti_engine_destroy(engine);
    /* Bad master effects name config->master_effects[i] and its field; nothing is created. */
    engine = NULL;
    tutti_engine_config_init(&config);
    chain[1] = biquad(TUTTI_EFFECT_LOWPASS, 30000, 0.7, 0);
    config.master_effects_enabled = 1;
    config.master_effect_count = 2;
    config.master_effects = chain;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config->master_effects[1].frequency_hz", tutti_engine_create(&config, &engine));
    chain[1].type = 42;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config->master_effects[1].type", tutti_engine_create(&config, &engine));
    config.master_effects = NULL;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config->master_effects must not be NULL", tutti_engine_create(&config, &engine));
    CHECK(engine == NULL, "nothing created%s", "");
    /* Not enabled: the fields are not read. */
    config.master_effects_enabled = 0;
    OK(tutti_engine_create(&config, &engine));
    tutti_engine_destroy(engine);
}

static void a_master_host_effect_halves_the_output_from_its_frame(void) {
    tutti_engine *engine = master_engine(NULL, 0, 440);
    tutti_engine *dry = master_engine(NULL, 0, 440);
    tutti_engine *plain;
    tutti_session music;
    scale_state state = {0.5f, 0, 0, 0};
    int exact = 1;
    float *out, *reference;
    OK(tutti_master_set_effect(engine, scale_callback, scale_release, &state, 1000));
    out = render_mono(engine, 4800);
    reference = render_mono(dry, 4800);
    for (int i = 0; i < 4800; i++) {
        if (out[i] != (i < 1000 ? reference[i] : reference[i] * 0.5f)) exact = 0;
    }
    CHECK(exact, "the master host effect halves the output from frame 1000 on, exactly");
    CHECK(state.frames == 3800 && state.channels == 1, "called for %llu frames of %u channels", (unsigned long long)state.frames,
          state.channels);
    CHECK(peak(reference, 1000, 4800) > 0.2, "the reference plays: %f", peak(reference, 1000, 4800));
    free(out);
    free(reference);
    /* Removed: the dry output bit for bit; released once by a later call on the engine. */
    OK(tutti_master_set_effect(engine, NULL, NULL, NULL, TUTTI_NOW));
    CHECK(state.released == 0, "not released before the render side let go: %d", state.released);
    out = render_mono(engine, 4800);
    reference = render_mono(dry, 4800);
    CHECK(memcmp(out, reference, 4800 * sizeof(float)) == 0, "removed: the dry output");
    CHECK(state.frames == 3800, "not called once removed: %llu frames", (unsigned long long)state.frames);
    OK(tutti_system_set_volume(engine, 1.0f, TUTTI_NOW));
    CHECK(state.released == 1, "released once: %d", state.released);
    free(out);
    free(reference);
    /* Bad calls change nothing and call nothing. */
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "at", tutti_master_set_effect(engine, scale_callback, scale_release, &state, -5));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine", tutti_master_set_effect(NULL, scale_callback, scale_release, &state, TUTTI_NOW));
    plain = tone_through(NULL, 0, 440, &music); /* no master stage */
    FAILS(TUTTI_ERROR_STATE, "master stage", tutti_master_set_effect(plain, scale_callback, scale_release, &state, TUTTI_NOW));
    tutti_engine_destroy(plain);
    CHECK(state.released == 1 && state.frames == 3800, "failed calls called nothing: %d %llu", state.released,
          (unsigned long long)state.frames);
    /* Installed when the engine is destroyed: released then. */
    OK(tutti_master_set_effect(engine, scale_callback, scale_release, &state, TUTTI_NOW));
    tutti_engine_destroy(engine);
    CHECK(state.released == 2, "released by tutti_engine_destroy: %d", state.released);
    tutti_engine_destroy(dry);
}

int main(void) {
    TEST(filters_are_heard);
    TEST(a_glide_brings_the_tone_back);
    TEST(a_delay_rings_after_the_source_stops);
    TEST(bad_effects_name_their_field);
    TEST(a_host_effect_halves_its_bus_from_its_frame);
    TEST(the_master_chain_is_heard);
    TEST(a_master_host_effect_halves_the_output_from_its_frame);
    return harness_done();
}
