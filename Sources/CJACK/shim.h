#include <jack/jack.h>
#include <jack/thread.h>

// jack_client_open is variadic (the server name travels as an extra argument), which Swift
// cannot call: these two fixed-argument forms can be.
static inline jack_client_t *tutti_jack_client_open(const char *client_name, unsigned int options, jack_status_t *status) {
    return jack_client_open(client_name, (jack_options_t)options, status);
}

static inline jack_client_t *tutti_jack_client_open_server(
    const char *client_name, unsigned int options, jack_status_t *status, const char *server_name) {
    return jack_client_open(client_name, (jack_options_t)(options | JackServerName), status, server_name);
}

static inline void tutti_jack_drop_message(const char *message) { (void)message; }

// libjack prints its own lines on stderr ("Cannot connect to server socket ..."); Tutti reports
// its own errors, so these are dropped unless a caller wants them.
static inline void tutti_jack_silence_messages(void) {
    jack_set_error_function(tutti_jack_drop_message);
    jack_set_info_function(tutti_jack_drop_message);
}
