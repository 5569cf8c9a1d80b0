/* Other apps' audio in C: tutti_output_config.watch_desktop (the fifth layout: on by
 * default, an older caller's struct is accepted whatever its tail padding holds, 0 or 1 only;
 * watch_other_audio, its former name, is the same field),
 * and the apps' names (tutti_system_get_other_audio_clients: sizes, exact fit, too small,
 * UTF-8, read when the event arrives). */
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
    /* Two names, one field: the same offset and size, a write through one read through the other. */
    CHECK(offsetof(tutti_output_config, watch_desktop) == offsetof(tutti_output_config, watch_other_audio),
          "watch_desktop at %zu, watch_other_audio at %zu", offsetof(tutti_output_config, watch_desktop),
          offsetof(tutti_output_config, watch_other_audio));
    CHECK(offsetof(tutti_output_config, watch_desktop) == offsetof(tutti_output_config, reserved0) + 4,
          "watch_desktop at %zu", offsetof(tutti_output_config, watch_desktop));
    CHECK(sizeof config.watch_desktop == 4 && sizeof config.watch_other_audio == 4, "sizes %zu %zu",
          sizeof config.watch_desktop, sizeof config.watch_other_audio);
    tutti_output_config_init(&config);
    CHECK(config.watch_desktop == 1, "watched by default: %u", config.watch_desktop);
    config.watch_other_audio = 0;
    CHECK(config.watch_desktop == 0, "watch_other_audio = 0 read as watch_desktop %u", config.watch_desktop);
    config.watch_desktop = 1;
    CHECK(config.watch_other_audio == 1, "watch_desktop = 1 read as watch_other_audio %u", config.watch_other_audio);
    CHECK(config.reserved0 == 0, "reserved0 %u", config.reserved0);
    CHECK(config.struct_size == sizeof(tutti_output_config), "struct_size %u", config.struct_size);

    /* The old layout, its tail padding garbage (as a member-wise copy may leave it): accepted,
     * the padding never read (0xA5A5A5A5 read as watch_desktop would be INVALID_ARGUMENT). */
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
    config.watch_desktop = 2;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config->watch_desktop", tutti_output_start(engine, &config));
    config.watch_other_audio = 3; /* the former name: the same check */
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config->watch_desktop", tutti_output_start(engine, &config));
    OK(tutti_output_is_running(engine, &running));
    CHECK(running == 0, "started anyway: %d", running);
    /* Off: ALSA sees no other apps anyway, so it simply plays. */
    config.watch_desktop = 0;
    OK(tutti_output_start(engine, &config));
    OK(tutti_output_stop(engine));
    tutti_engine_destroy(engine);
}

/* The names as set, NUL after each; sizes reported even when they do not fit, and then
 * nothing written. */
static void client_names(void) {
    tutti_engine *engine = make_engine(2, 0);
    const char *clients[] = {"mpv", "pw-play", "Caf\xC3\xA9"}; /* "Café": 5 bytes in UTF-8 */
    const char expected[] = "mpv\0pw-play\0Caf\xC3\xA9"; /* + the array's own final NUL */
    char names[32];
    size_t count = 99, length = 99, i;
    float block[256 * 2];
    tutti_event events[16];
    const tutti_event *changed;
    int n;
    OK(tutti_system_get_other_audio_clients(engine, NULL, 0, &count, &length));
    CHECK(count == 0 && length == 0, "none at first: %zu names, %zu bytes", count, length);
    OK(tutti_system_set_other_audio(engine, 1, 1, clients, 3, TUTTI_NOW));
    OK(tutti_system_get_other_audio_clients(engine, NULL, 0, &count, &length));
    CHECK(count == 3 && length == sizeof expected, "%zu names, %zu bytes (expected 3, %zu)", count, length,
          sizeof expected);
    /* Exactly the room they take: filled, the byte past it untouched. */
    memset(names, 0x5A, sizeof names);
    count = length = 0;
    OK(tutti_system_get_other_audio_clients(engine, names, sizeof expected, &count, &length));
    CHECK(count == 3 && length == sizeof expected, "%zu names, %zu bytes", count, length);
    CHECK(memcmp(names, expected, sizeof expected) == 0, "names \"%s\"", names);
    CHECK(names[sizeof expected] == 0x5A, "byte %zu written", sizeof expected);
    /* One byte short: INVALID_ARGUMENT naming capacity, the sizes still given, nothing written. */
    memset(names, 0x5A, sizeof names);
    count = length = 0;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "capacity",
          tutti_system_get_other_audio_clients(engine, names, sizeof expected - 1, &count, &length));
    CHECK(count == 3 && length == sizeof expected, "%zu names, %zu bytes", count, length);
    for (i = 0; i < sizeof names; i++) CHECK(names[i] == 0x5A, "byte %zu written", i);
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "names", tutti_system_get_other_audio_clients(engine, NULL, 8, NULL, NULL));
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine", tutti_system_get_other_audio_clients(NULL, names, sizeof names, NULL, NULL));

    /* A host reading them when the event arrives gets the names that came with it. */
    drain_events(engine, events, 16);
    OK(tutti_system_set_other_audio(engine, 1, 0, clients + 1, 1, TUTTI_NOW));
    render(engine, block, 256, 2, 256);
    sleep_ms(50);
    n = drain_events(engine, events, 16);
    changed = find_event(events, n, TUTTI_EVENT_OTHER_AUDIO_CHANGED, 0);
    CHECK(changed != NULL, "no OTHER_AUDIO_CHANGED among %d events", n);
    if (changed) CHECK(changed->flags == TUTTI_OTHER_AUDIO_PLAYING, "flags %u", changed->flags);
    OK(tutti_system_get_other_audio_clients(engine, names, sizeof names, &count, &length));
    CHECK(count == 1 && length == 8 && strcmp(names, "pw-play") == 0, "%zu names, %zu bytes: \"%s\"", count, length, names);
    /* Off: no names; a buffer given for none is left alone. */
    OK(tutti_system_set_other_audio(engine, 0, 0, NULL, 0, TUTTI_NOW));
    memset(names, 0x5A, sizeof names);
    OK(tutti_system_get_other_audio_clients(engine, names, sizeof names, &count, &length));
    CHECK(count == 0 && length == 0 && names[0] == 0x5A, "%zu names, %zu bytes", count, length);
    tutti_engine_destroy(engine);
}

int main(void) {
    TEST(watch_layouts);
    TEST(client_names);
    return harness_done();
}
