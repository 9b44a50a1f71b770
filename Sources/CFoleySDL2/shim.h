#ifndef FOLEY_CFOLEYSDL2_SHIM_H
#define FOLEY_CFOLEYSDL2_SHIM_H

// Foley's view of SDL2. Swift cannot import function-like macros, so each one
// Foley needs is wrapped here as a `static inline CFoleySDL2_*` function.
#include <SDL2/SDL.h>

static inline Uint16 CFoleySDL2_AUDIO_S16SYS(void) { return AUDIO_S16SYS; }
static inline Uint16 CFoleySDL2_AUDIO_F32SYS(void) { return AUDIO_F32SYS; }
static inline int CFoleySDL2_AUDIO_ISFLOAT(SDL_AudioFormat format) { return SDL_AUDIO_ISFLOAT(format) ? 1 : 0; }
static inline int CFoleySDL2_WINDOWPOS_CENTERED(void) { return (int)SDL_WINDOWPOS_CENTERED; }
static inline int CFoleySDL2_SaveBMP(SDL_Surface *surface, const char *file) { return SDL_SaveBMP(surface, file); }

#endif
