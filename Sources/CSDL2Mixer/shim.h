#ifndef FOLEY_CSDL2MIXER_SHIM_H
#define FOLEY_CSDL2MIXER_SHIM_H

// Foley's view of SDL_mixer 2. Function-like macros are wrapped as
// `static inline CSDL2_*` functions because Swift cannot import them.
#include <SDL2/SDL_mixer.h>

static inline int CSDL2_Mix_PlayChannel(int channel, Mix_Chunk *chunk, int loops) {
  return Mix_PlayChannel(channel, chunk, loops);
}
static inline Uint16 CSDL2_MIX_DEFAULT_FORMAT(void) { return MIX_DEFAULT_FORMAT; }
static inline int CSDL2_MIX_MAX_VOLUME(void) { return MIX_MAX_VOLUME; }
static inline int CSDL2_MIX_CHANNEL_POST(void) { return MIX_CHANNEL_POST; }

#endif
