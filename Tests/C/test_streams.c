/* tutti_output_config.streams (the sixth layout): TUTTI_STREAMS_SINGLE by default; an older
 * caller's struct (through watch_other_audio) is accepted whatever its tail padding holds;
 * TUTTI_STREAMS_PER_SESSION is PipeWire's (ALSA: INVALID_ARGUMENT naming it, nothing started);
 * other values: INVALID_ARGUMENT. PipeWire's periods (rendering ahead) exclude per-session
 * streams. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

/* The layout before streams (through watch_other_audio), as a caller built against that
 * header has it: its sizeof includes the tail padding the new layout names reserved1. */
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
    uint32_t reserved0;
    uint32_t watch_other_audio;
} watch_layout;

static void stream_layouts(void) {
    tutti_engine *engine = make_engine(2, 0);
    tutti_output_config config;
    watch_layout old;
    int32_t running = -1;
    size_t end = offsetof(watch_layout, watch_other_audio) + sizeof old.watch_other_audio;
    CHECK(offsetof(watch_layout, watch_other_audio) == offsetof(tutti_output_config, watch_other_audio),
          "watch_other_audio at %zu", offsetof(watch_layout, watch_other_audio));
    /* The point of reserved1: the old sizeof never reaches the new field. */
    CHECK(sizeof(watch_layout) <= offsetof(tutti_output_config, streams), "the old layout (%zu bytes) covers streams (at %zu)",
          sizeof(watch_layout), offsetof(tutti_output_config, streams));
    tutti_output_config_init(&config);
    CHECK(config.streams == TUTTI_STREAMS_SINGLE, "single by default: %u", config.streams);
    CHECK(config.reserved1 == 0, "reserved1 %u", config.reserved1);

    /* The old layout, its tail padding garbage: accepted, the padding never read. */
    tutti_output_config_init_size((tutti_output_config *)(void *)&old, (uint32_t)sizeof old);
    if (end < sizeof old) memset((unsigned char *)&old + end, 0xA5, sizeof old - end);
    old.device = "null";
    OK(tutti_output_start(engine, (const tutti_output_config *)(const void *)&old));
    OK(tutti_output_stop(engine));

    /* Per session is PipeWire's: ALSA refuses it and nothing starts. */
    config.device = "null";
    config.streams = TUTTI_STREAMS_PER_SESSION;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "per-session", tutti_output_start(engine, &config));
    OK(tutti_output_is_running(engine, &running));
    CHECK(running == 0, "started anyway: %d", running);
    config.streams = 2;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config->streams", tutti_output_start(engine, &config));
    config.streams = TUTTI_STREAMS_SINGLE;
    OK(tutti_output_start(engine, &config));
    OK(tutti_output_stop(engine));

    /* PipeWire renders ahead with periods, for main's stream only: per session refused, naming
     * the field, before any daemon is asked (none runs here), and nothing starts. */
    config.backend = TUTTI_BACKEND_PIPEWIRE;
    config.device = NULL;
    config.periods = 3;
    config.streams = TUTTI_STREAMS_PER_SESSION;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "periodCount: rendering ahead plays main alone", tutti_output_start(engine, &config));
    OK(tutti_output_is_running(engine, &running));
    CHECK(running == 0, "started anyway: %d", running);
    tutti_engine_destroy(engine);
}

int main(void) {
    TEST(stream_layouts);
    return harness_done();
}
