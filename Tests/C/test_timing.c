/* Frames and ordering, measured on the rendered samples: a DC file (every sample 0.5) plays
 * in a mono engine, so each output sample is 0.5 × the gains in force at that frame. */
#include "harness.h"

/* An engine playing a looping DC source from frame 0, at gain 1. */
static tutti_engine *dc_engine(tutti_source *dc) {
    tutti_engine *engine = make_engine(1, 0);
    tutti_session music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    const char *path = temp_path("dc-timing.wav");
    write_mono_wav(path, RATE, RATE, dc_half);
    OK(tutti_source_create_file(engine, music, path, TUTTI_SOURCE_LOOP, dc));
    OK(tutti_source_play(engine, *dc, 0));
    return engine;
}

static void a_step_lands_on_its_frame(void) {
    tutti_source dc;
    tutti_engine *engine = dc_engine(&dc);
    float *x;
    OK(tutti_source_set_gain(engine, dc, 0.25f, 0, 1000));
    OK(tutti_source_set_gain(engine, dc, 1.0f, 0, 1001)); /* one frame later */
    x = render_mono(engine, 2048);
    CHECK(x[0] == 0.5f, "frame 0 plays: %f", x[0]);
    CHECK(x[999] == 0.5f && x[1000] == 0.125f && x[1001] == 0.5f, "frames 999..1001: %f %f %f", x[999], x[1000], x[1001]);
    free(x);
    tutti_engine_destroy(engine);
}

static void a_ramp_is_linear_from_its_frame(void) {
    tutti_source dc;
    tutti_engine *engine = dc_engine(&dc);
    float *x;
    int k, linear = 1;
    OK(tutti_source_set_gain(engine, dc, 0.0f, 1000, 500)); /* 1 → 0 over 1000 frames from frame 500 */
    x = render_mono(engine, 4096);
    CHECK(x[499] == 0.5f, "before the ramp: %f", x[499]);
    for (k = 0; k < 1000; k++) {
        double expected = 0.5 * (1.0 - (k + 1) / 1000.0);
        if (fabs(x[500 + k] - expected) > 1e-5) {
            linear = 0;
            CHECK(0, "frame %d: %f, expected %f", 500 + k, x[500 + k], expected);
            break;
        }
    }
    CHECK(linear, "the ramp is linear%s", "");
    CHECK(x[1499] == 0.0f && x[4095] == 0.0f, "reaches its target on its last frame: %f", x[1499]);
    free(x);
    tutti_engine_destroy(engine);
}

/* A NOW change applies at the next block even when later changes were scheduled first. */
static void now_never_waits_behind_later_frames(void) {
    tutti_source dc;
    tutti_engine *engine = dc_engine(&dc);
    float *x = render_mono(engine, 512), *y;
    OK(tutti_source_set_gain(engine, dc, 0.0f, 0, 40000)); /* far ahead, sent first */
    OK(tutti_source_set_gain(engine, dc, 0.5f, 0, TUTTI_NOW));
    y = render_mono(engine, 48000 - 512);
    CHECK(y[0] == 0.25f, "NOW lands on the first frame of the next block (512): %f", y[0]);
    CHECK(y[40000 - 512 - 1] == 0.25f && y[40000 - 512] == 0.0f, "the later change still lands at 40000: %f %f",
          y[40000 - 513], y[40000 - 512]);
    free(x);
    free(y);
    tutti_engine_destroy(engine);
}

/* Changes for the same frame apply in the order they were made. */
static void same_frame_in_call_order(void) {
    tutti_source dc;
    tutti_engine *engine = dc_engine(&dc);
    float *x;
    OK(tutti_source_set_gain(engine, dc, 0.1f, 0, 300));
    OK(tutti_source_set_gain(engine, dc, 0.7f, 0, 300));
    OK(tutti_source_set_gain(engine, dc, 0.9f, 0, 600));
    OK(tutti_source_set_gain(engine, dc, 0.3f, 0, 600));
    /* NOW twice: the second wins as well. */
    x = render_mono(engine, 1024);
    CHECK(fabsf(x[300] - 0.35f) < 1e-6f && fabsf(x[599] - 0.35f) < 1e-6f, "frame 300: %f (0.5 × 0.7)", x[300]);
    CHECK(fabsf(x[600] - 0.15f) < 1e-6f, "frame 600: %f (0.5 × 0.3)", x[600]);
    free(x);
    OK(tutti_source_set_gain(engine, dc, 0.2f, 0, TUTTI_NOW));
    OK(tutti_source_set_gain(engine, dc, 0.4f, 0, TUTTI_NOW));
    x = render_mono(engine, 256);
    CHECK(fabsf(x[0] - 0.2f) < 1e-6f, "two NOW changes: the later one holds from the next block: %f", x[0]);
    free(x);
    tutti_engine_destroy(engine);
}

/* A frame already rendered counts as NOW. */
static void past_frames_count_as_now(void) {
    tutti_source dc;
    tutti_engine *engine = dc_engine(&dc);
    float *x = render_mono(engine, 2000), *y;
    OK(tutti_source_set_gain(engine, dc, 0.5f, 0, 100));
    CHECK(tutti_engine_get_frame(engine) == 2000, "%lld", (long long)tutti_engine_get_frame(engine));
    y = render_mono(engine, 256);
    CHECK(y[0] == 0.25f, "applies at frame 2000: %f", y[0]);
    free(x);
    free(y);
    tutti_engine_destroy(engine);
}

/* Output never depends on how the host splits its render calls (any frame count works). */
static void block_sizes_do_not_matter(void) {
    tutti_source a, b;
    tutti_engine *e1 = dc_engine(&a), *e2 = dc_engine(&b);
    float *x = calloc(6000, sizeof(float)), *y = calloc(6000, sizeof(float));
    uint32_t done = 0, n = 1;
    int k, same = 1;
    OK(tutti_source_set_gain(e1, a, 0.2f, 777, 1234));
    OK(tutti_source_set_gain(e2, b, 0.2f, 777, 1234));
    OK(tutti_source_pause(e1, a, 3000));
    OK(tutti_source_pause(e2, b, 3000));
    OK(tutti_engine_render(e1, x, 6000)); /* one call, split internally */
    while (done < 6000) {                 /* odd sizes */
        uint32_t m = 6000 - done < n ? 6000 - done : n;
        OK(tutti_engine_render(e2, y + done, m));
        done += m;
        n = n * 3 % 997 + 1;
    }
    for (k = 0; k < 6000; k++) same &= x[k] == y[k];
    CHECK(same, "bit-identical output%s", "");
    free(x);
    free(y);
    tutti_engine_destroy(e1);
    tutti_engine_destroy(e2);
}

int main(void) {
    TEST(a_step_lands_on_its_frame);
    TEST(a_ramp_is_linear_from_its_frame);
    TEST(now_never_waits_behind_later_frames);
    TEST(same_frame_in_call_order);
    TEST(past_frames_count_as_now);
    TEST(block_sizes_do_not_matter);
    return harness_done();
}
