#ifndef FOLEY_CFOLEYSDL2MIXER_SHIM_H
#define FOLEY_CFOLEYSDL2MIXER_SHIM_H

// Foley's view of SDL_mixer 2. Function-like macros are wrapped as
// `static inline CFoleySDL2Mixer_*` functions because Swift cannot import them.
#include <SDL2/SDL_mixer.h>

static inline int CFoleySDL2Mixer_PlayChannel(int channel, Mix_Chunk *chunk, int loops) {
  return Mix_PlayChannel(channel, chunk, loops);
}

#endif
