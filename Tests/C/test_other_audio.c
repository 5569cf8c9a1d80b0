/* Other apps' audio in C: tutti_output_config.watch_other_audio (the fifth layout: on by
 * default, an older caller's struct is accepted whatever its tail padding holds, 0 or 1 only). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

/* The layout before watch_other_audio (through mpris), as a caller built against that header
 * has it: its sizeof includes the tail padding the new layout names reserved0. */
typedef struct {
    uint32_t struct_size;
    int32_t backend;
    const char *device;
    uint32_t period_frames;
    uint32_t periods;
    tutti_source capture;
    const char *capture_from;
    const char *routes;
    uint32_t mpris;
} mpris_layout;

static void watch_layouts(void) {
    tutti_engine *engine = make_engine(2, 0);
    tutti_output_config config;
    mpris_layout old;
    int32_t running = -1;
    size_t end = offsetof(mpris_layout, mpris) + sizeof old.mpris;
    CHECK(offsetof(mpris_layout, mpris) == offsetof(tutti_output_config, mpris), "mpris at %zu",
          offsetof(mpris_layout, mpris));
    /* The point of reserved0: the old sizeof never reaches the new field. */
    CHECK(sizeof(mpris_layout) <= offsetof(tutti_output_config, watch_other_audio),
          "the mpris layout (%zu bytes) covers watch_other_audio (at %zu)", sizeof(mpris_layout),
          offsetof(tutti_output_config, watch_other_audio));
    tutti_output_config_init(&config);
    CHECK(config.watch_other_audio == 1, "watched by default: %u", config.watch_other_audio);
    CHECK(config.reserved0 == 0, "reserved0 %u", config.reserved0);
    CHECK(config.struct_size == sizeof(tutti_output_config), "struct_size %u", config.struct_size);

    /* The old layout, its tail padding garbage (as a member-wise copy may leave it): accepted,
     * the padding never read (0xA5A5A5A5 read as watch_other_audio would be INVALID_ARGUMENT). */
    tutti_output_config_init_size((tutti_output_config *)(void *)&old, (uint32_t)sizeof old);
    CHECK(old.struct_size == sizeof old, "struct_size %u", old.struct_size);
    if (end < sizeof old) memset((unsigned char *)&old + end, 0xA5, sizeof old - end);
    old.device = "null";
    OK(tutti_output_start(engine, (const tutti_output_config *)(const void *)&old));
    OK(tutti_output_is_running(engine, &running));
    CHECK(running == 1, "running %d", running);
    OK(tutti_output_stop(engine));

    /* 0 or 1 only: anything else changes nothing. */
    config.device = "null";
    config.watch_other_audio = 2;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config->watch_other_audio", tutti_output_start(engine, &config));
    OK(tutti_output_is_running(engine, &running));
    CHECK(running == 0, "started anyway: %d", running);
    /* Off: ALSA sees no other apps anyway, so it simply plays. */
    config.watch_other_audio = 0;
    OK(tutti_output_start(engine, &config));
    OK(tutti_output_stop(engine));
    tutti_engine_destroy(engine);
}

int main(void) {
    TEST(watch_layouts);
    return harness_done();
}
