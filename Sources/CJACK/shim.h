#include <jack/jack.h>
#include <jack/thread.h>
#include <sys/syscall.h>
#include <unistd.h>

// libjack is opened at run time (TuttiJACK's JACKFunctions), never linked: nothing here may
// name a libjack function.
//
// jack_client_open is variadic (the server name travels as an extra argument): Swift can
// neither call it nor a pointer to it. These fixed-argument forms call it through `open_fn`,
// its address (dlsym), held as a function pointer of no arguments (a plain code address that
// Swift can hold) and cast back to its real type here.
typedef jack_client_t *(*tutti_jack_client_open_fn)(const char *client_name, jack_options_t options, jack_status_t *status, ...);
typedef void (*tutti_jack_untyped_fn)(void);

static inline jack_client_t *tutti_jack_client_open(tutti_jack_untyped_fn open_fn, const char *client_name, unsigned int options, jack_status_t *status) {
    return ((tutti_jack_client_open_fn)open_fn)(client_name, (jack_options_t)options, status);
}

static inline jack_client_t *tutti_jack_client_open_server(
    tutti_jack_untyped_fn open_fn, const char *client_name, unsigned int options, jack_status_t *status, const char *server_name) {
    return ((tutti_jack_client_open_fn)open_fn)(client_name, (jack_options_t)(options | JackServerName), status, server_name);
}

// The calling thread's kernel id (gettid; Glibc's Swift module does not declare it): libjack's
// threads are told apart by it in /proc/self/task (TuttiJACK's JACKClient.close).
static inline int tutti_jack_gettid(void) {
    return (int)syscall(SYS_gettid);
}
