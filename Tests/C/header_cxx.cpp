// tutti.h from C++: it compiles warning-free (-Wall -Wextra -pedantic -Werror), its
// declarations have C linkage (this links against libtutti), and its constants are usable
// in constant expressions.
#include <tutti.h>

#include <cstdio>
#include <cstring>

static_assert(TUTTI_OK == 0 && TUTTI_ERROR_VERSION == -9, "result codes");
static_assert(TUTTI_NOW == -1, "TUTTI_NOW");
static_assert(sizeof(tutti_session) == 8 && sizeof(tutti_source) == 8 && sizeof(tutti_frame) == 8, "id widths");
static_assert(TUTTI_REMOTE_COMMAND_BIT(TUTTI_REMOTE_STOP) == 32u, "remote command bits");

int main() {
    tutti_engine_config config;
    tutti_engine_config_init(&config);
    tutti_engine *engine = nullptr;
    if (tutti_engine_create(&config, &engine) != TUTTI_OK) {
        std::fprintf(stderr, "header_cxx: %s\n", tutti_last_error());
        return 1;
    }
    tutti_session session = 0;
    tutti_result r = tutti_session_create(engine, "c++", &session);
    tutti_engine_destroy(engine);
    if (r != TUTTI_OK || std::strcmp(tutti_version_string(), "") == 0) return 1;
    std::printf("header_cxx: tutti.h works from C++ (libtutti %s)\n", tutti_version_string());
    return 0;
}
