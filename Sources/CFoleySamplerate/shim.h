#ifndef FOLEY_CFOLEYSAMPLERATE_SHIM_H
#define FOLEY_CFOLEYSAMPLERATE_SHIM_H

// libsamplerate (BSD-2-Clause, Debian's libsamplerate0-dev): the real-time playback rate's
// band-limited resampler.
#include <samplerate.h>

#endif
