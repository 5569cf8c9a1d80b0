/* tutti_engine_render allocates nothing: the malloc family is interposed in this program
 * (libtutti's calls resolve to it) and counted on the rendering thread, around each render of
 * a busy scenario and around renders refused while an output runs, by the test-support counter
 * (Tests/CTuttiTestSupport/MallocCounter.c, linked into this program by scripts/test-c.sh). A
 * self-test shows the counter sees allocations made inside the library. */
#include <stddef.h>

#include "MallocCounter.h"
#include "harness.h"
#include "scenario.h"

/* Allocations counted by the last tutti_malloc_counter_stop (or summed over several). */
static long allocations;

static void the_counter_sees_allocations_inside_the_library(void) {
    tutti_engine *engine = make_engine(2, 0);
    tutti_session s;
    tutti_malloc_counter_start();
    (void)tutti_session_create(engine, "counted", &s); /* builds strings, dictionaries */
    allocations = (long)tutti_malloc_counter_stop();
    CHECK(allocations > 0, "a control call allocates (%ld counted): the counter works", allocations);
    tutti_engine_destroy(engine);
}

static void rendering_allocates_nothing(void) {
    struct scenario s;
    float *out = calloc(256 * 2, sizeof(float));
    long total = 0, worst = 0;
    int k, failures = 0;
    tutti_event e;
    tutti_output_config config;
    scenario_setup(&s, temp_path(""));
    for (k = 0; k < SCENARIO_BLOCKS; k++) {
        tutti_result r;
        scenario_feed(&s);
        tutti_malloc_counter_start();
        r = tutti_engine_render(s.engine, out, 256);
        allocations = (long)tutti_malloc_counter_stop();
        failures += r != TUTTI_OK;
        total += allocations;
        worst = allocations > worst ? allocations : worst;
        if (k % 100 == 0)
            while (tutti_engine_poll_event(s.engine, &e) == 1) {
            }
    }
    CHECK(failures == 0, "%d renders failed", failures);
    CHECK(total == 0, "%ld allocations in %d renders (worst block %ld)", total, SCENARIO_BLOCKS, worst);
    /* Refused renders (an output runs) allocate nothing either. */
    tutti_output_config_init(&config);
    config.device = "null";
    OK(tutti_output_start(s.engine, &config));
    tutti_malloc_counter_start();
    for (k = 0; k < 100; k++) (void)tutti_engine_render(s.engine, out, 256);
    allocations = (long)tutti_malloc_counter_stop();
    CHECK(allocations == 0, "%ld allocations in refused renders", allocations);
    CHECK(tutti_engine_render(s.engine, out, 256) == TUTTI_ERROR_STATE, "refused: %s", tutti_last_error());
    tutti_engine_destroy(s.engine);
    free(out);
}

/* tutti_engine_render_output_buses: three output buses, sources on each, allocate nothing. */
static void rendering_routes_allocates_nothing(void) {
    static const char *const names[] = {"main", "cue", "booth"};
    tutti_engine_config config;
    tutti_engine *engine = NULL;
    tutti_session dj;
    tutti_source t;
    float *buffers[3];
    int k, failures = 0;
    tutti_engine_config_init(&config);
    config.route_count = 3;
    config.route_names = names;
    OK(tutti_engine_create(&config, &engine));
    if (engine == NULL) exit(2);
    OK(tutti_session_create(engine, "dj", &dj));
    OK(tutti_session_set_category(engine, dj, TUTTI_CATEGORY_MULTI_ROUTE, TUTTI_MODE_DEFAULT, 0));
    OK(tutti_session_set_active(engine, dj, 1, 0, TUTTI_NOW));
    for (k = 0; k < 12; k++) {
        OK(tutti_source_create_tone(engine, dj, 200 + 50 * k, 0.05f, &t));
        OK(tutti_source_set_output_bus(engine, t, names[k % 3], TUTTI_NOW));
        OK(tutti_source_play(engine, t, TUTTI_NOW));
    }
    for (k = 0; k < 3; k++) buffers[k] = calloc(256 * 2, sizeof(float));
    OK(tutti_engine_render_output_buses(engine, buffers, 3, 256));
    tutti_malloc_counter_start();
    for (k = 0; k < 2000; k++) failures += tutti_engine_render_output_buses(engine, buffers, 3, 256) != TUTTI_OK;
    failures += tutti_engine_render_output_buses(engine, buffers, 4, 256) != TUTTI_ERROR_INVALID_ARGUMENT;
    allocations = (long)tutti_malloc_counter_stop();
    CHECK(failures == 0, "%d route renders failed", failures);
    CHECK(allocations == 0, "%ld allocations in 2000 route renders and a refused one", allocations);
    for (k = 0; k < 3; k++) free(buffers[k]);
    tutti_engine_destroy(engine);
}

/* tutti_stream_write and tutti_source_get_status, the calls a host makes from its own audio
 * threads, allocate nothing: 2000 rounds of a stereo stream write, an input write and status
 * reads between renders, from the first call on. */
static void stream_writes_and_status_reads_allocate_nothing(void) {
    tutti_engine *engine = make_engine(2, 0);
    tutti_session call = make_session(engine, "call", TUTTI_CATEGORY_PLAY_AND_RECORD, 0);
    tutti_source stream, mic;
    float block[2 * 64], out[2 * 64];
    uint32_t written, taken = 0;
    int32_t state = -1;
    int64_t position = -1;
    uint64_t underruns = 1;
    int k, failures = 0;
    for (k = 0; k < 2 * 64; k++) block[k] = 0.25f;
    OK(tutti_session_set_active(engine, call, 1, 0, TUTTI_NOW));
    OK(tutti_source_create_stream(engine, call, 48000, 2, 4096, &stream));
    OK(tutti_source_create_input(engine, call, 1, 4096, 0, &mic));
    OK(tutti_source_play(engine, stream, TUTTI_NOW));
    OK(tutti_source_play(engine, mic, TUTTI_NOW));
    allocations = 0;
    for (k = 0; k < 2000; k++) {
        OK(tutti_engine_render(engine, out, 64));
        tutti_malloc_counter_start();
        failures += tutti_stream_write(engine, stream, block, 64, &written) != TUTTI_OK;
        taken += written;
        failures += tutti_stream_write(engine, mic, block, 64, &written) != TUTTI_OK;
        taken += written;
        failures += tutti_source_get_status(engine, stream, &state, &position, NULL) != TUTTI_OK;
        failures += tutti_source_get_status(engine, mic, NULL, NULL, &underruns) != TUTTI_OK;
        allocations += (long)tutti_malloc_counter_stop();
    }
    CHECK(failures == 0, "%d calls failed: %s", failures, tutti_last_error());
    CHECK(allocations == 0, "%ld allocations in 2000 rounds of writes and status reads", allocations);
    CHECK(taken == 2000 * 128, "frames taken: %u of %d", taken, 2000 * 128);
    CHECK(state == TUTTI_SOURCE_PLAYING && position == 2000 * 64, "state %d, position %lld", state, (long long)position);
    CHECK(underruns == 64, "the input underran only its first block (before any write): %llu", (unsigned long long)underruns);
    /* A destroyed source: NOT_FOUND, from both calls. */
    OK(tutti_source_destroy(engine, stream, TUTTI_NOW));
    CHECK(tutti_stream_write(engine, stream, block, 64, &written) == TUTTI_ERROR_NOT_FOUND, "write: %s", tutti_last_error());
    CHECK(tutti_source_get_status(engine, stream, &state, NULL, NULL) == TUTTI_ERROR_NOT_FOUND, "status: %s", tutti_last_error());
    tutti_engine_destroy(engine);
}

int main(void) {
    TEST(the_counter_sees_allocations_inside_the_library);
    TEST(stream_writes_and_status_reads_allocate_nothing);
    TEST(rendering_allocates_nothing);
    TEST(rendering_routes_allocates_nothing);
    return harness_done();
}
