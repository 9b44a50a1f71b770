/* The floor of this stack: SDL_mixer driven directly from C.
 *   raw_mixer trigger TRIGGERS SOUND.wav   -> prints microseconds per trigger (Mix_PlayChannel,
 *                                             stealing with Mix_GroupOldest when all 256 are busy)
 *   raw_mixer mix SECONDS SOUND.wav VOICES -> mixes VOICES looping voices, prints process CPU seconds
 */
#include <SDL.h>
#include <SDL_mixer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static double cpu_seconds(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: raw_mixer trigger N file | raw_mixer mix SECONDS file VOICES\n");
    return 2;
  }
  if (SDL_Init(SDL_INIT_AUDIO) != 0 || Mix_OpenAudio(48000, AUDIO_S16SYS, 2, 512) != 0) {
    fprintf(stderr, "raw_mixer: %s\n", SDL_GetError());
    return 1;
  }
  Mix_Chunk *chunk = Mix_LoadWAV(argv[3]);
  if (!chunk) {
    fprintf(stderr, "raw_mixer: %s\n", SDL_GetError());
    return 1;
  }
  if (strcmp(argv[1], "trigger") == 0) {
    long triggers = atol(argv[2]);
    Mix_AllocateChannels(256);
    double start = now_seconds();
    for (long i = 0; i < triggers; i++) {
      if (Mix_PlayChannel(-1, chunk, 0) < 0) {
        int oldest = Mix_GroupOldest(-1);
        Mix_HaltChannel(oldest);
        Mix_PlayChannel(oldest, chunk, 0);
      }
    }
    double elapsed = now_seconds() - start;
    printf("%.4f\n", elapsed / triggers * 1e6);
  } else {
    double seconds = atof(argv[2]);
    int voices = argc > 4 ? atoi(argv[4]) : 64;
    Mix_AllocateChannels(voices);
    for (int i = 0; i < voices; i++) Mix_PlayChannel(i, chunk, -1);
    double cpu = cpu_seconds();
    SDL_Delay((Uint32)(seconds * 1000));
    printf("%.4f\n", cpu_seconds() - cpu);
  }
  Mix_FreeChunk(chunk);
  Mix_CloseAudio();
  SDL_Quit();
  return 0;
}
