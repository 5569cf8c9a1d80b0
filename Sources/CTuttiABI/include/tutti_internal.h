/* Helpers of the C ABI's implementation (not installed, not exported: hidden visibility). */
#ifndef TUTTI_INTERNAL_H
#define TUTTI_INTERNAL_H

#include <stdint.h>

#define TUTTI_HIDDEN __attribute__((visibility("hidden")))

/* Records `message` (copied) as the calling thread's last error and returns `code`.
 * Allocates: not for the real-time thread. */
TUTTI_HIDDEN int32_t tuttic_fail(int32_t code, const char *message);

/* Static messages of tutti_engine_render's failures. */
enum {
    TUTTIC_RENDER_NULL_ENGINE = 0,
    TUTTIC_RENDER_NULL_BUFFER = 1,
    TUTTIC_RENDER_BUSY = 2,
    TUTTIC_RENDER_BAD_ROUTE_COUNT = 3,
};

/* Records the static message of a render failure and returns its code: a store to
 * thread-local memory, nothing else (real-time safe). */
TUTTI_HIDDEN int32_t tuttic_fail_render(int32_t which);

#endif
