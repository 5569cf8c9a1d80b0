/* tutti_output_config.mpris (the fourth layout) and tutti_system_get_other_audio: an older
 * caller's struct is still accepted and means no MPRIS; with the flag, on a private session
 * bus (dbus-daemon, when installed), the name appears and PlayPause reaches the now-playing
 * session; without a bus the output plays anyway. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

/* The layout before mpris, as a caller built against that header has it. */
typedef struct {
    uint32_t struct_size;
    int32_t backend;
    const char *device;
    uint32_t period_frames;
    uint32_t periods;
    tutti_source capture;
    const char *capture_from;
    const char *routes;
} routes_layout;

static void layouts(void) {
    tutti_engine *engine = make_engine(2, 0);
    tutti_output_config config;
    unsigned char bytes[sizeof(tutti_output_config) + 16];
    routes_layout old;
    size_t i;
    CHECK(sizeof(routes_layout) == offsetof(tutti_output_config, mpris), "the old layout ends where mpris starts: %zu",
          sizeof(routes_layout));
    tutti_output_config_init(&config);
    CHECK(config.mpris == 0, "off by default: %u", config.mpris);
    CHECK(config.struct_size == sizeof(tutti_output_config), "struct_size %u", config.struct_size);
    /* The exported unsized symbol writes the layout it wrote before mpris came, never more. */
    memset(bytes, 0xA5, sizeof bytes);
    (tutti_output_config_init)((tutti_output_config *)(void *)bytes);
    {
        uint32_t size;
        memcpy(&size, bytes, sizeof size);
        CHECK(size == sizeof(routes_layout), "the unsized init says %u bytes", size);
    }
    for (i = sizeof(routes_layout); i < sizeof bytes; i++) CHECK(bytes[i] == 0xA5, "byte %zu written", i);
    /* The old layout, sized by the new init: accepted, no MPRIS. */
    tutti_output_config_init_size((tutti_output_config *)(void *)&old, (uint32_t)sizeof old);
    CHECK(old.struct_size == sizeof old, "struct_size %u", old.struct_size);
    old.device = "null";
    OK(tutti_output_start(engine, (const tutti_output_config *)(const void *)&old));
    OK(tutti_output_stop(engine));
    /* 0 or 1 only. */
    config.device = "null";
    config.mpris = 2;
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "config->mpris", tutti_output_start(engine, &config));
    tutti_engine_destroy(engine);
}

/* Other apps' audio reads back as set. */
static void other_audio(void) {
    tutti_engine *engine = make_engine(2, 0);
    int32_t playing = -1, silence = -1;
    const char *clients[] = {"mpv"};
    OK(tutti_system_get_other_audio(engine, &playing, &silence));
    CHECK(playing == 0 && silence == 0, "none at first: %d %d", playing, silence);
    OK(tutti_system_set_other_audio(engine, 1, 1, clients, 1, TUTTI_NOW));
    OK(tutti_system_get_other_audio(engine, &playing, NULL));
    OK(tutti_system_get_other_audio(engine, NULL, &silence));
    CHECK(playing == 1 && silence == 1, "as set: %d %d", playing, silence);
    OK(tutti_system_set_other_audio(engine, 1, 0, NULL, 0, TUTTI_NOW));
    OK(tutti_system_get_other_audio(engine, &playing, &silence));
    CHECK(playing == 1 && silence == 0, "as set again: %d %d", playing, silence);
    FAILS(TUTTI_ERROR_INVALID_ARGUMENT, "engine", tutti_system_get_other_audio(NULL, &playing, &silence));
    tutti_engine_destroy(engine);
}

/* dbus-send's reply (stdout) for `args` on the bus at $DBUS_SESSION_BUS_ADDRESS, in `out`. */
static void dbus_send(const char *args, char *out, size_t size) {
    char command[512];
    FILE *p;
    size_t n;
    snprintf(command, sizeof command, "/usr/bin/dbus-send --session --print-reply %s 2>&1", args);
    p = popen(command, "r");
    out[0] = 0;
    if (!p) return;
    n = fread(out, 1, size - 1, p);
    out[n] = 0;
    pclose(p);
}

static int has_name(void) {
    char reply[8192];
    dbus_send("--dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.ListNames", reply, sizeof reply);
    return strstr(reply, "\"org.mpris.MediaPlayer2.tutti\"") != NULL;
}

static int32_t source_state(tutti_engine *engine, tutti_source source) {
    int32_t state = -1;
    OK(tutti_source_get_status(engine, source, &state, NULL, NULL));
    return state;
}

static void served_on_a_private_bus(void) {
    char dir[] = "/tmp/tutti-mpris-XXXXXX";
    char address[320], socket_path[256];
    pid_t daemon;
    int i;
    tutti_engine *engine;
    tutti_session music;
    tutti_source tone;
    tutti_output_config config;
    if (access("/usr/bin/dbus-daemon", X_OK) != 0 || access("/usr/bin/dbus-send", X_OK) != 0) {
        printf("  skipped: needs dbus-daemon and dbus-send (the Debian package dbus)\n");
        return;
    }
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(socket_path, sizeof socket_path, "%s/bus", dir);
    snprintf(address, sizeof address, "--address=unix:path=%s", socket_path);
    daemon = fork();
    if (daemon == 0) {
        if (!freopen("/dev/null", "w", stderr)) _exit(127);
        execl("/usr/bin/dbus-daemon", "dbus-daemon", "--session", "--nofork", "--nopidfile", address, (char *)NULL);
        _exit(127);
    }
    for (i = 0; i < 500 && access(socket_path, F_OK) != 0; i++) sleep_ms(20);
    setenv("DBUS_SESSION_BUS_ADDRESS", address + strlen("--address="), 1);

    engine = make_engine(2, 0);
    music = make_session(engine, "music", TUTTI_CATEGORY_PLAYBACK, 0);
    OK(tutti_session_set_remote_commands(engine, music, TUTTI_REMOTE_COMMAND_BIT(TUTTI_REMOTE_TOGGLE_PLAY_PAUSE)));
    OK(tutti_session_set_active(engine, music, 1, 0, TUTTI_NOW));
    OK(tutti_source_create_tone(engine, music, 440, 0.1f, &tone));
    OK(tutti_source_play(engine, tone, TUTTI_NOW));
    tutti_output_config_init(&config);
    config.device = "null";
    OK(tutti_output_start(engine, &config));
    CHECK(!has_name(), "the name is there without the flag");
    OK(tutti_output_stop(engine));
    config.mpris = 1;
    OK(tutti_output_start(engine, &config));
    CHECK(has_name(), "org.mpris.MediaPlayer2.tutti is not on the bus");
    {
        char reply[2048];
        dbus_send("--dest=org.mpris.MediaPlayer2.tutti /org/mpris/MediaPlayer2 org.mpris.MediaPlayer2.Player.PlayPause", reply,
                  sizeof reply);
        for (i = 0; i < 250 && source_state(engine, tone) != TUTTI_SOURCE_PAUSED; i++) sleep_ms(20);
        CHECK(source_state(engine, tone) == TUTTI_SOURCE_PAUSED, "PlayPause did not pause the tone: %d (%s)",
              source_state(engine, tone), reply);
    }
    OK(tutti_output_stop(engine));
    CHECK(!has_name(), "the name stays after tutti_output_stop");
    tutti_engine_destroy(engine);

    /* No bus there: the output plays anyway. */
    setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/tutti-no-bus", 1);
    engine = make_engine(2, 0);
    OK(tutti_output_start(engine, &config));
    OK(tutti_output_stop(engine));
    tutti_engine_destroy(engine);

    kill(daemon, SIGTERM);
    waitpid(daemon, NULL, 0);
    unlink(socket_path);
    rmdir(dir);
}

int main(void) {
    TEST(layouts);
    TEST(other_audio);
    TEST(served_on_a_private_bus);
    return harness_done();
}
