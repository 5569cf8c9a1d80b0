// tutti_last_error's per-thread storage, tutti_result_string, tutti_event_type_string and the version functions:
// plain C because they need thread-local storage with a destructor and static strings.
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/tutti.h"
#include "include/tutti_internal.h"

// Per thread: the message tutti_last_error returns, and the heap buffer that holds copied
// messages. Initial-exec TLS: a store or a load, never a lazy allocation (the render path
// writes `message`).
struct last_error {
    const char *message;
    char *buffer;
    size_t capacity;
};
static __thread struct last_error last_error __attribute__((tls_model("initial-exec")));

// The buffer is freed when its thread exits (a key whose value is the buffer).
static pthread_key_t buffer_key;
static pthread_once_t buffer_key_once = PTHREAD_ONCE_INIT;

static void free_buffer(void *buffer) {
    free(buffer);
    last_error.buffer = NULL;
    last_error.capacity = 0;
    last_error.message = "";
}

static void make_buffer_key(void) { (void)pthread_key_create(&buffer_key, free_buffer); }

int32_t tuttic_fail(int32_t code, const char *message) {
    size_t length = strlen(message) + 1;
    if (length > last_error.capacity) {
        size_t capacity = length < 256 ? 256 : length;
        char *buffer = realloc(last_error.buffer, capacity);
        if (buffer == NULL) {
            last_error.message = "out of memory while recording an error message";
            return code;
        }
        (void)pthread_once(&buffer_key_once, make_buffer_key);
        (void)pthread_setspecific(buffer_key, buffer);
        last_error.buffer = buffer;
        last_error.capacity = capacity;
    }
    memcpy(last_error.buffer, message, length);
    last_error.message = last_error.buffer;
    return code;
}

int32_t tuttic_fail_render(int32_t which) {
    switch (which) {
    case TUTTIC_RENDER_NULL_ENGINE:
        last_error.message = "tutti_engine_render: engine must not be NULL";
        return TUTTI_ERROR_INVALID_ARGUMENT;
    case TUTTIC_RENDER_NULL_BUFFER:
        last_error.message = "tutti_engine_render: interleaved must not be NULL when frames > 0";
        return TUTTI_ERROR_INVALID_ARGUMENT;
    case TUTTIC_RENDER_BAD_ROUTE_COUNT:
        last_error.message = "tutti_engine_render_output_buses (or tutti_engine_render_routes): bus_count must be 1..the "
                             "engine's output bus count (the config's route_count), and outputs and each of its first "
                             "bus_count buffers non-NULL";
        return TUTTI_ERROR_INVALID_ARGUMENT;
    default:
        last_error.message = "tutti_engine_render: an output is running (tutti_output_start) or another thread is "
                             "rendering; silence written";
        return TUTTI_ERROR_STATE;
    }
}

const char *tutti_last_error(void) { return last_error.message != NULL ? last_error.message : ""; }

const char *tutti_result_string(tutti_result result) {
    switch (result) {
    case TUTTI_OK: return "OK";
    case TUTTI_ERROR_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case TUTTI_ERROR_NOT_FOUND: return "NOT_FOUND";
    case TUTTI_ERROR_IO: return "IO";
    case TUTTI_ERROR_FORMAT: return "FORMAT";
    case TUTTI_ERROR_CAPACITY: return "CAPACITY";
    case TUTTI_ERROR_DENIED: return "DENIED";
    case TUTTI_ERROR_STATE: return "STATE";
    case TUTTI_ERROR_DEVICE: return "DEVICE";
    case TUTTI_ERROR_VERSION: return "VERSION";
    default: return "UNKNOWN";
    }
}

const char *tutti_event_type_string(int32_t type) {
    switch (type) {
    case TUTTI_EVENT_INTERRUPTION_BEGAN: return "INTERRUPTION_BEGAN";
    case TUTTI_EVENT_INTERRUPTION_ENDED: return "INTERRUPTION_ENDED";
    case TUTTI_EVENT_SOURCE_ENDED: return "SOURCE_ENDED";
    case TUTTI_EVENT_ROUTE_CHANGED: return "ROUTE_CHANGED";
    case TUTTI_EVENT_DUCKING_BEGAN: return "DUCKING_BEGAN";
    case TUTTI_EVENT_DUCKING_ENDED: return "DUCKING_ENDED";
    case TUTTI_EVENT_XRUN: return "XRUN";
    case TUTTI_EVENT_DEVICE_LOST: return "DEVICE_LOST";
    case TUTTI_EVENT_DEVICE_RESTORED: return "DEVICE_RESTORED";
    case TUTTI_EVENT_SILENCE_SECONDARY_AUDIO_HINT: return "SILENCE_SECONDARY_AUDIO_HINT";
    case TUTTI_EVENT_VOICE_STOLEN: return "VOICE_STOLEN";
    case TUTTI_EVENT_VOICE_REFUSED: return "VOICE_REFUSED";
    case TUTTI_EVENT_SOURCE_FAILED: return "SOURCE_FAILED";
    case TUTTI_EVENT_ACTIVATION_DELAYED: return "ACTIVATION_DELAYED";
    case TUTTI_EVENT_ACTIVATION_GRANTED: return "ACTIVATION_GRANTED";
    case TUTTI_EVENT_ACTIVATION_CANCELLED: return "ACTIVATION_CANCELLED";
    case TUTTI_EVENT_SOURCE_UNDERRUN: return "SOURCE_UNDERRUN";
    case TUTTI_EVENT_OTHER_AUDIO_CHANGED: return "OTHER_AUDIO_CHANGED";
    default: return "UNKNOWN";
    }
}

#define TUTTI_STRINGIFY_(x) #x
#define TUTTI_STRINGIFY(x) TUTTI_STRINGIFY_(x)

uint32_t tutti_version(void) { return TUTTI_VERSION; }

const char *tutti_version_string(void) {
    return TUTTI_STRINGIFY(TUTTI_VERSION_MAJOR) "." TUTTI_STRINGIFY(TUTTI_VERSION_MINOR) "." TUTTI_STRINGIFY(
        TUTTI_VERSION_PATCH);
}

uint32_t tutti_abi_version(void) { return TUTTI_ABI_VERSION; }
