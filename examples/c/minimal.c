#include <stdio.h>
#include <tutti.h>

int main(void) {
    tutti_engine_config config;
    tutti_engine *engine;
    tutti_session music;
    tutti_source tone;
    float block[256 * 2];
    int i;

    tutti_engine_config_init(&config); /* 48 kHz stereo, pulled by your audio callback */
    if (tutti_engine_create(&config, &engine) != TUTTI_OK ||
        tutti_session_create(engine, "music", &music) != TUTTI_OK ||
        tutti_session_set_category(engine, music, TUTTI_CATEGORY_PLAYBACK, TUTTI_MODE_DEFAULT, 0) != TUTTI_OK ||
        tutti_source_create_tone(engine, music, 440.0, 0.5f, &tone) != TUTTI_OK ||
        tutti_source_play(engine, tone, TUTTI_NOW) != TUTTI_OK ||
        tutti_source_set_gain(engine, tone, 0.0f, 4800, 48000) != TUTTI_OK) { /* fade out at 1 s */
        fprintf(stderr, "tutti: %s\n", tutti_last_error());
        return 1;
    }
    for (i = 0; i < 400; i++) /* your audio callback, 256 frames at a time */
        tutti_engine_render(engine, block, 256);
    printf("rendered %lld frames\n", (long long)tutti_engine_get_frame(engine));
    tutti_engine_destroy(engine);
    return 0;
}
