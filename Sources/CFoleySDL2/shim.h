#ifndef FOLEY_CFOLEYSDL2_SHIM_H
#define FOLEY_CFOLEYSDL2_SHIM_H

// Foley's view of SDL2. Swift cannot import function-like macros, so each one
// Foley needs is wrapped here as a `static inline CFoleySDL2_*` function.
#include <SDL2/SDL.h>
#include <dlfcn.h>
#include <stdlib.h>

static inline Uint16 CFoleySDL2_AUDIO_S16SYS(void) { return AUDIO_S16SYS; }
static inline Uint16 CFoleySDL2_AUDIO_F32SYS(void) { return AUDIO_F32SYS; }
static inline int CFoleySDL2_AUDIO_ISFLOAT(SDL_AudioFormat format) { return SDL_AUDIO_ISFLOAT(format) ? 1 : 0; }
static inline int CFoleySDL2_WINDOWPOS_CENTERED(void) { return (int)SDL_WINDOWPOS_CENTERED; }
static inline int CFoleySDL2_SaveBMP(SDL_Surface *surface, const char *file) { return SDL_SaveBMP(surface, file); }

// alsa-lib writes its own error lines to stderr while SDL probes for a device ("ALSA lib
// confmisc.c:855:(parse_card) cannot find card '0'", eight of them on a machine without a sound
// card), before SDL falls back and Foley says so in one line of its own. This quiets them by giving
// alsa-lib a handler that drops them, through the library SDL loads itself (libasound.so.2, not
// linked). Not done when FOLEY_ALSA_ERRORS is set (to see them), when alsa-lib is absent, or when
// the game has set a handler of its own.
typedef void (*CFoleySDL2_ALSAErrorHandler)(const char *file, int line, const char *function, int err,
                                            const char *fmt, ...);

static void CFoleySDL2_dropALSAError(const char *file, int line, const char *function, int err, const char *fmt,
                                     ...) {
  (void)file, (void)line, (void)function, (void)err, (void)fmt;
}

static inline void CFoleySDL2_QuietALSAErrors(void) {
  if (getenv("FOLEY_ALSA_ERRORS")) return;
  // Kept open for ever: were the library unloaded and loaded again, its handler would be the
  // default again.
  void *alsa = dlopen("libasound.so.2", RTLD_LAZY | RTLD_LOCAL);
  if (!alsa) return;
  int (*set_handler)(CFoleySDL2_ALSAErrorHandler) =
      (int (*)(CFoleySDL2_ALSAErrorHandler))dlsym(alsa, "snd_lib_error_set_handler");
  CFoleySDL2_ALSAErrorHandler *current = (CFoleySDL2_ALSAErrorHandler *)dlsym(alsa, "snd_lib_error");
  if (!set_handler || !current) return;
  CFoleySDL2_ALSAErrorHandler before = *current;
  set_handler(NULL);  // the default, to see whether `before` was it
  if (before != *current && before != CFoleySDL2_dropALSAError) {
    set_handler(before);  // the game's own: left alone
    return;
  }
  set_handler(CFoleySDL2_dropALSAError);
}

#endif
