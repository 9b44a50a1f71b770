/* The floor of this stack: SDL_mixer driven directly from C, doing the same work as Foley.
 *   raw_mixer trigger FILE CHANNELS N  -> {"cpu": µs, "wall": µs} per trigger: Mix_PlayChannel on a
 *                                         free channel, else halt the oldest (Mix_GroupOldest) and
 *                                         play there; process CPU includes SDL's mixing thread
 *   raw_mixer floor FILE CHANNELS N    -> the same, SDL_mixer's floor: Mix_PlayChannel on the next channel
 *                                         in turn (replacing what plays there), no search, no failed call
 *   raw_mixer mix FILE SECONDS VOICES plain|same FORMAT
 *                                      -> process CPU seconds while VOICES loop; "same" gives each
 *                                         voice Mix_Volume 64 (0.5) and Mix_SetPanning over the
 *                                         nine pan positions Foley's benchmark uses; FORMAT s16|f32
 *   raw_mixer idle SECONDS FORMAT      -> process CPU seconds with the mixer open and silent
 *   raw_mixer positional FILE SECONDS VOICES
 *                                      -> {"update_us": µs, "cpu_percent": %}: VOICES channels loop
 *                                         while a 60 Hz loop moves each around the listener on its
 *                                         own circle (Mix_SetPosition: angle and distance) every
 *                                         frame; the loop's thread CPU per frame (the circles' cos
 *                                         and sin computed before it), and process CPU
 *                                         as a share of a core (SDL's mixing included)
 *   raw_mixer firstsound FILE          -> ms of wall time from before SDL_Init to the first post-mix
 *                                         call after Mix_PlayChannel (the first buffer carrying it),
 *                                         Mix_LoadWAV in between
 */
#include <SDL.h>
#include <SDL_mixer.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clock_seconds(clockid_t which) {
  struct timespec t;
  clock_gettime(which, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static int open_mixer(const char *format) {
  Uint16 sdl_format = strcmp(format, "s16") == 0 ? AUDIO_S16SYS : AUDIO_F32SYS;
  if (SDL_Init(SDL_INIT_AUDIO) != 0 || Mix_OpenAudioDevice(48000, sdl_format, 2, 512, NULL, 0) != 0) {
    fprintf(stderr, "raw_mixer: %s\n", SDL_GetError());
    return 0;
  }
  return 1;
}

static volatile double first_mixed = 0;

/* SDL_mixer calls its post-mix hook after mixing the channels, with the device locked, and
 * Mix_PlayChannel takes the same lock: a channel playing here was mixed in this buffer. */
static void note_first_mix(void *udata, Uint8 *stream, int len) {
  (void)udata, (void)stream, (void)len;
  if (first_mixed == 0 && Mix_Playing(-1) > 0) first_mixed = clock_seconds(CLOCK_MONOTONIC);
}

int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "firstsound") == 0) {
    double start = clock_seconds(CLOCK_MONOTONIC);
    if (!open_mixer("f32")) return 1;
    Mix_Chunk *chunk = Mix_LoadWAV(argv[2]);
    if (!chunk) {
      fprintf(stderr, "raw_mixer: %s\n", SDL_GetError());
      return 1;
    }
    Mix_SetPostMix(note_first_mix, NULL);
    Mix_PlayChannel(-1, chunk, 0);
    while (first_mixed == 0) SDL_Delay(0);
    printf("%.4f\n", (first_mixed - start) * 1000);
    Mix_CloseAudio();
    SDL_Quit();
    return 0;
  }
  if (argc < 3) {
    fprintf(stderr, "usage: see the comment at the top of raw_mixer.c\n");
    return 2;
  }
  if (strcmp(argv[1], "idle") == 0) {
    if (!open_mixer(argc > 3 ? argv[3] : "f32")) return 1;
    Mix_AllocateChannels(32);
    SDL_Delay(500);
    double cpu = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
    SDL_Delay((Uint32)(atof(argv[2]) * 1000));
    printf("%.6f\n", clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu);
    Mix_CloseAudio();
    SDL_Quit();
    return 0;
  }
  const char *format = strcmp(argv[1], "mix") == 0 && argc > 6 ? argv[6] : "f32";
  if (!open_mixer(format)) return 1;
  Mix_Chunk *chunk = Mix_LoadWAV(argv[2]);
  if (!chunk) {
    fprintf(stderr, "raw_mixer: %s\n", SDL_GetError());
    return 1;
  }
  if ((strcmp(argv[1], "trigger") == 0 || strcmp(argv[1], "floor") == 0) && argc > 4) {
    int channels = atoi(argv[3]);
    long triggers = atol(argv[4]);
    int floor = strcmp(argv[1], "floor") == 0;
    Mix_AllocateChannels(channels);
    double cpu = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
    double wall = clock_seconds(CLOCK_MONOTONIC);
    for (long i = 0; i < triggers; i++) {
      if (floor) {
        // What a C game that manages its channels itself pays: SDL_mixer's own work, nothing else.
        Mix_PlayChannel((int)(i % channels), chunk, 0);
      } else if (Mix_PlayChannel(-1, chunk, 0) < 0) {
        int oldest = Mix_GroupOldest(-1);
        Mix_HaltChannel(oldest);
        Mix_PlayChannel(oldest, chunk, 0);
      }
    }
    printf("{\"cpu\": %.5f, \"wall\": %.5f}\n", (clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu) / triggers * 1e6,
           (clock_seconds(CLOCK_MONOTONIC) - wall) / triggers * 1e6);
  } else if (strcmp(argv[1], "mix") == 0 && argc > 5) {
    double seconds = atof(argv[3]);
    int voices = atoi(argv[4]);
    int same = strcmp(argv[5], "same") == 0;
    Mix_AllocateChannels(voices);
    for (int i = 0; i < voices; i++) {
      if (same) {
        // Foley's balance law: full level at the centre, the far side falling to zero.
        double pan = (double)(i % 9) / 4 - 1;
        Mix_Volume(i, MIX_MAX_VOLUME / 2);
        Mix_SetPanning(i, (Uint8)(255 * (pan > 0 ? 1 - pan : 1)), (Uint8)(255 * (pan < 0 ? 1 + pan : 1)));
      }
      Mix_PlayChannel(i, chunk, -1);
    }
    SDL_Delay(500);
    double cpu = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
    SDL_Delay((Uint32)(seconds * 1000));
    printf("%.6f\n", clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu);
  } else if (strcmp(argv[1], "positional") == 0 && argc > 4) {
    double seconds = atof(argv[3]);
    int voices = atoi(argv[4]);
    Mix_AllocateChannels(voices);
    for (int i = 0; i < voices; i++) {
      Mix_Volume(i, 3);  // Foley's benchmark plays them at 0.02
      Mix_PlayChannel(i, chunk, -1);
    }
    // The same circles as Foley's benchmark: 30 to 540 points out, each at its own speed.
    double time = 0;
    SDL_Delay(500);
    double cpu = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
    double start = clock_seconds(CLOCK_MONOTONIC);
    double next = start, update = 0;
    long frames = 0;
    double *xs = calloc(voices, sizeof(double)), *ys = calloc(voices, sizeof(double));
    while (clock_seconds(CLOCK_MONOTONIC) - start < seconds) {
      // The game's own work, outside the timed part as in Foley's: where each voice is this frame.
      time += 1.0 / 60;
      for (int i = 0; i < voices; i++) {
        double angle = time * (0.5 + (i % 7) * 0.2) + i * 2.399;
        double radius = 30 + i * 2;
        xs[i] = radius * cos(angle), ys[i] = radius * sin(angle);
      }
      // The update: SDL_mixer's angle and distance from each position, as Foley places a voice.
      double thread = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
      for (int i = 0; i < voices; i++) {
        double distance = sqrt(xs[i] * xs[i] + ys[i] * ys[i]);
        int degrees = ((int)lround(atan2(xs[i], ys[i]) * 180 / M_PI) + 360) % 360;  // 0 ahead, 90 right
        Mix_SetPosition(i, (Sint16)degrees, (Uint8)fmin(255, distance / 540 * 255));
      }
      update += clock_seconds(CLOCK_THREAD_CPUTIME_ID) - thread;
      frames++;
      next += 1.0 / 60;
      double left = next - clock_seconds(CLOCK_MONOTONIC);
      if (left > 0) SDL_Delay((Uint32)(left * 1000));
    }
    free(xs), free(ys);
    double wall = clock_seconds(CLOCK_MONOTONIC) - start;
    printf("{\"update_us\": %.3f, \"cpu_percent\": %.3f}\n", update / frames * 1e6,
           (clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu) / wall * 100);
  } else {
    fprintf(stderr, "raw_mixer: unknown mode %s\n", argv[1]);
    return 2;
  }
  Mix_FreeChunk(chunk);
  Mix_CloseAudio();
  SDL_Quit();
  return 0;
}
