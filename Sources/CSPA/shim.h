// The SPA headers (header-only, libspa-0.2-dev): pkg-config's libspa-0.2 gives their include
// path and links nothing. CPipeWire includes them; no Swift code imports this module.
#include <spa/utils/defs.h>
