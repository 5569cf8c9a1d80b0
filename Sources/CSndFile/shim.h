#include <sndfile.h>

/* The first loop of an SF_INSTRUMENT (Swift does not import its array of anonymous structs):
 * 1 with its mode, start and end (end exclusive, as libsndfile reads a smpl chunk), or 0 when
 * it has no loop. */
static inline int tutti_sf_first_loop(const SF_INSTRUMENT *instrument, int *mode, uint32_t *start, uint32_t *end) {
    if (instrument->loop_count < 1) return 0;
    *mode = instrument->loops[0].mode;
    *start = instrument->loops[0].start;
    *end = instrument->loops[0].end;
    return 1;
}
