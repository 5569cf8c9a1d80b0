// alsa-lib is opened at run time (TuttiALSA's ALSAFunctions), never linked: the headers give
// the types and constants only.
#include <alsa/asoundlib.h>
