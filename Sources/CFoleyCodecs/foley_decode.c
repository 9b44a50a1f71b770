// Whole-sound decoding: a source read to its end, resampled to the mix's rate by libsamplerate (the
// resampler music streams through, exact in rate where SDL's own drifted by tens of ppm), then
// converted to the mix's channels and format by SDL's audio stream, within a length limit checked
// before and during the decode.
#include "codec_internal.h"
#include <SDL2/SDL.h>
#include <samplerate.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum { READ_FRAMES = 8192, TAIL_FRAMES = 4096 };

static int fail(foley_decode_result *result, int status, const char *format, ...) {
  va_list arguments;
  va_start(arguments, format);
  vsnprintf(result->message, sizeof result->message, format, arguments);
  va_end(arguments);
  result->status = status;
  return status;
}

size_t foley_decode_capacity(const foley_target *target, double max_seconds) {
  size_t frame_bytes = (size_t)target->channels * (target->is_float ? 4 : 2);
  double frames = ceil(max_seconds * target->sample_rate) + TAIL_FRAMES;
  return (size_t)frames * frame_bytes;
}

// `frames` frames of `input` into the stream, through `resampler` when there is one (which holds
// back what it needs until `end` says no more input follows).
static int put(SDL_AudioStream *stream, SRC_STATE *resampler, double ratio, float *converted,
               long converted_frames, const float *input, long frames, int channels, int end) {
  if (!resampler) return SDL_AudioStreamPut(stream, input, (int)(frames * channels * (long)sizeof(float)));
  for (;;) {
    SRC_DATA data = {input, converted, frames, converted_frames, 0, 0, end, ratio};
    if (src_process(resampler, &data) != 0) return -1;
    if (data.output_frames_gen > 0 &&
        SDL_AudioStreamPut(stream, converted, (int)(data.output_frames_gen * channels * (long)sizeof(float))) != 0) {
      return -1;
    }
    input += data.input_frames_used * channels;
    frames -= data.input_frames_used;
    if (frames == 0 && (!end || data.output_frames_gen == 0)) return 0;
  }
}

// Moves what the stream has converted into `out`; FOLEY_ERR_TOO_LONG if it does not fit.
static int drain(SDL_AudioStream *stream, unsigned char *out, size_t capacity, size_t *length,
                 foley_decode_result *result) {
  int available;
  while ((available = SDL_AudioStreamAvailable(stream)) > 0) {
    if (*length + (size_t)available > capacity) return fail(result, FOLEY_ERR_TOO_LONG, "longer than the limit");
    int got = SDL_AudioStreamGet(stream, out + *length, available);
    if (got < 0) return fail(result, FOLEY_ERR_CORRUPT, "conversion failed: %s", SDL_GetError());
    if (got == 0) break;
    *length += (size_t)got;
  }
  return FOLEY_OK;
}

static void copy_tag(foley_source *source, const char *key, char *out, size_t size) {
  if (foley_source_tag(source, key, out, size) < 0) out[0] = 0;
}

int foley_decode_whole(const void *bytes, size_t length, const foley_target *target, double max_seconds,
                       void *out, size_t capacity, foley_decode_result *result) {
  memset(result, 0, sizeof *result);
  if (length == 0) return fail(result, FOLEY_ERR_NO_SAMPLES, "empty");
  int status = FOLEY_OK;
  foley_source *source =
      foley_source_open_memory(bytes, length, &result->info, &status, result->message, sizeof result->message);
  if (!source) {
    result->status = status;
    return status;
  }
  int rate = result->info.sample_rate;
  int channels = result->info.channels;
  float *buffer = NULL;
  float *converted = NULL;
  SRC_STATE *resampler = NULL;
  SDL_AudioStream *stream = NULL;
  // A header's claims are checked before anything is decoded: a hostile one declaring 1 Hz would
  // otherwise become a sound 48,000 times its size once resampled.
  if (rate < 1000 || rate > 384000) {
    fail(result, FOLEY_ERR_CORRUPT, "the header declares %d Hz", rate);
    goto done;
  }
  int64_t frame_limit = (int64_t)(max_seconds * rate);
  if (result->info.frames > frame_limit) {
    fail(result, FOLEY_ERR_TOO_LONG, "%.1f s declared; %.1f s is the limit", (double)result->info.frames / rate,
         max_seconds);
    goto done;
  }
  SDL_AudioFormat format = target->is_float ? AUDIO_F32SYS : AUDIO_S16SYS;
  stream = SDL_NewAudioStream(AUDIO_F32SYS, (Uint8)channels, target->sample_rate, format, (Uint8)target->channels,
                              target->sample_rate);
  if (!stream) {
    fail(result, FOLEY_ERR_UNSUPPORTED, "cannot convert %d channels at %d Hz: %s", channels, rate, SDL_GetError());
    goto done;
  }
  double ratio = (double)target->sample_rate / rate;
  long converted_frames = (long)ceil(READ_FRAMES * ratio) + 256;
  if (rate != target->sample_rate) {
    int error = 0;
    resampler = src_new(SRC_SINC_MEDIUM_QUALITY, channels, &error);
    converted = malloc((size_t)converted_frames * (size_t)channels * sizeof(float));
    if (!resampler || !converted) {
      fail(result, FOLEY_ERR_NOMEM, "cannot resample %d Hz: %s", rate, resampler ? "out of memory" : src_strerror(error));
      goto done;
    }
  }
  buffer = calloc((size_t)READ_FRAMES * (size_t)channels, sizeof(float));
  if (!buffer) {
    fail(result, FOLEY_ERR_NOMEM, "out of memory");
    goto done;
  }
  int64_t decoded = 0;
  size_t written = 0;
  for (;;) {
    int64_t got = foley_source_read(source, buffer, READ_FRAMES);
    if (got < 0) {
      // A stream that breaks after some audio keeps what came before (as players do).
      if (decoded > 0) break;
      fail(result, FOLEY_ERR_CORRUPT, "%s", foley_source_error(source));
      goto done;
    }
    if (got == 0) break;
    decoded += got;
    if (decoded > frame_limit) {
      fail(result, FOLEY_ERR_TOO_LONG, "longer than %.1f s", max_seconds);
      goto done;
    }
    if (put(stream, resampler, ratio, converted, converted_frames, buffer, (long)got, channels, 0) != 0) {
      fail(result, FOLEY_ERR_CORRUPT, "conversion failed: %s", SDL_GetError());
      goto done;
    }
    if (drain(stream, out, capacity, &written, result) != FOLEY_OK) goto done;
  }
  if (decoded == 0) {
    fail(result, FOLEY_ERR_NO_SAMPLES, "no samples");
    goto done;
  }
  // The resampler holds back its last few milliseconds until it is told the input ended; SDL's
  // stream is fed silence after it and flushed. Exactly the source's length is kept.
  if (put(stream, resampler, ratio, converted, converted_frames, buffer, 0, channels, 1) != 0) {
    fail(result, FOLEY_ERR_CORRUPT, "conversion failed");
    goto done;
  }
  memset(buffer, 0, (size_t)READ_FRAMES * (size_t)channels * sizeof(float));
  if (SDL_AudioStreamPut(stream, buffer, TAIL_FRAMES * channels * (int)sizeof(float)) != 0 ||
      SDL_AudioStreamFlush(stream) != 0) {
    fail(result, FOLEY_ERR_CORRUPT, "conversion failed: %s", SDL_GetError());
    goto done;
  }
  if (drain(stream, out, capacity, &written, result) != FOLEY_OK) goto done;
  size_t frame_bytes = (size_t)target->channels * (target->is_float ? 4 : 2);
  int64_t expected = (int64_t)llround((double)decoded * target->sample_rate / rate);
  int64_t frames = (int64_t)(written / frame_bytes);
  result->frames = frames < expected ? frames : expected;
  if (result->frames <= 0) {
    fail(result, FOLEY_ERR_NO_SAMPLES, "no samples");
    goto done;
  }
  copy_tag(source, "TITLE", result->title, sizeof result->title);
  copy_tag(source, "ARTIST", result->artist, sizeof result->artist);
  copy_tag(source, "ALBUM", result->album, sizeof result->album);
  result->status = FOLEY_OK;
done:
  if (stream) SDL_FreeAudioStream(stream);
  if (resampler) src_delete(resampler);
  free(converted);
  free(buffer);
  foley_source_close(source);
  return result->status;
}
