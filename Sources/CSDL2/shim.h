#ifndef FOLEY_CSDL2_SHIM_H
#define FOLEY_CSDL2_SHIM_H

// Foley's view of SDL2. Swift cannot import function-like macros, so each one
// Foley needs is wrapped here as a `static inline CSDL2_*` function.
#include <SDL2/SDL.h>

static inline Uint16 CSDL2_AUDIO_S16SYS(void) { return AUDIO_S16SYS; }
static inline Uint16 CSDL2_AUDIO_F32SYS(void) { return AUDIO_F32SYS; }
static inline int CSDL2_AUDIO_BITSIZE(SDL_AudioFormat format) { return SDL_AUDIO_BITSIZE(format); }
static inline int CSDL2_AUDIO_ISFLOAT(SDL_AudioFormat format) { return SDL_AUDIO_ISFLOAT(format) ? 1 : 0; }
static inline int CSDL2_AUDIO_ISSIGNED(SDL_AudioFormat format) { return SDL_AUDIO_ISSIGNED(format) ? 1 : 0; }
static inline int CSDL2_AUDIO_ISBIGENDIAN(SDL_AudioFormat format) { return SDL_AUDIO_ISBIGENDIAN(format) ? 1 : 0; }
static inline int CSDL2_WINDOWPOS_CENTERED(void) { return (int)SDL_WINDOWPOS_CENTERED; }
static inline int CSDL2_WINDOWPOS_UNDEFINED(void) { return (int)SDL_WINDOWPOS_UNDEFINED; }
static inline SDL_bool CSDL2_QuitRequested(void) { return SDL_QuitRequested(); }
static inline Uint32 CSDL2_BUTTON_LMASK(void) { return SDL_BUTTON_LMASK; }
static inline SDL_RWops *CSDL2_RWFromConstMem(const void *mem, int size) { return SDL_RWFromConstMem(mem, size); }

static inline int CSDL2_SaveBMP(SDL_Surface *surface, const char *file) { return SDL_SaveBMP(surface, file); }
static inline SDL_Surface *CSDL2_LoadBMP(const char *file) { return SDL_LoadBMP(file); }

#endif
