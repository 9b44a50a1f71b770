// MP3 through libmpg123, gapless (encoder delay and padding removed), float output, with a scan
// for the exact length and pre-frames so a seek decodes cleanly.
#include "codec_internal.h"
#include <mpg123.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  mpg123_handle *handle;
  int channels;  // what the source reports (the first format)
  int present;   // what mpg123 currently delivers
  float pending[1152 * 2 * 4];
  size_t pending_frames;
  size_t pending_offset;
} mp3_state;

static pthread_once_t mpg123_ready = PTHREAD_ONCE_INIT;
static void start_mpg123(void) { mpg123_init(); }

static ssize_t mp3_read_bytes(void *source, void *destination, size_t count) {
  return (ssize_t)foley_io_read(&((foley_source *)source)->io, destination, count);
}

static off_t mp3_seek_bytes(void *source, off_t offset, int whence) {
  foley_io *io = &((foley_source *)source)->io;
  if (foley_io_seek(io, (int64_t)offset, whence) != 0) return -1;
  return (off_t)io->position;
}

static void copy_tag(foley_source *source, const char *key, const mpg123_string *text) {
  if (text && text->p && text->fill > 1) foley_set_tag(source, key, text->p, strnlen(text->p, text->fill));
}

static int mp3_open(foley_source *source) {
  pthread_once(&mpg123_ready, start_mpg123);
  mp3_state *state = calloc(1, sizeof *state);
  if (!state) return foley_fail(source, FOLEY_ERR_NOMEM, "out of memory");
  source->state = state;
  int error = 0;
  state->handle = mpg123_new(NULL, &error);
  if (!state->handle) return foley_fail(source, FOLEY_ERR_NOMEM, "libmpg123: %s", mpg123_plain_strerror(error));
  mpg123_handle *handle = state->handle;
  mpg123_param(handle, MPG123_ADD_FLAGS, MPG123_QUIET | MPG123_GAPLESS, 0);
  mpg123_param(handle, MPG123_PREFRAMES, 8, 0);
  mpg123_format_none(handle);
  const long *rates = NULL;
  size_t rate_count = 0;
  mpg123_rates(&rates, &rate_count);
  for (size_t index = 0; index < rate_count; index++)
    mpg123_format(handle, rates[index], MPG123_MONO | MPG123_STEREO, MPG123_ENC_FLOAT_32);
  if (mpg123_replace_reader_handle(handle, mp3_read_bytes, mp3_seek_bytes, NULL) != MPG123_OK ||
      mpg123_open_handle(handle, source) != MPG123_OK)
    return foley_fail(source, FOLEY_ERR_CORRUPT, "libmpg123: %s", mpg123_strerror(handle));
  if (mpg123_scan(handle) != MPG123_OK)
    return foley_fail(source, FOLEY_ERR_CORRUPT, "libmpg123: %s", mpg123_strerror(handle));
  long rate = 0;
  int channels = 0, encoding = 0;
  if (mpg123_getformat(handle, &rate, &channels, &encoding) != MPG123_OK || encoding != MPG123_ENC_FLOAT_32)
    return foley_fail(source, FOLEY_ERR_CORRUPT, "no MPEG audio frames");
  source->info.sample_rate = (int)rate;
  source->info.channels = channels;
  state->channels = channels;
  state->present = channels;
  off_t length = mpg123_length(handle);
  source->info.frames = length >= 0 ? (int64_t)length : -1;
  if (mpg123_meta_check(handle) & MPG123_ID3) {
    mpg123_id3v1 *version1 = NULL;
    mpg123_id3v2 *version2 = NULL;
    if (mpg123_id3(handle, &version1, &version2) == MPG123_OK && version2) {
      copy_tag(source, "TITLE", version2->title);
      copy_tag(source, "ARTIST", version2->artist);
      copy_tag(source, "ALBUM", version2->album);
    }
  }
  return FOLEY_OK;
}

static int64_t mp3_read(foley_source *source, float *out, int64_t frames) {
  mp3_state *state = source->state;
  int channels = state->channels;
  int64_t done = 0;
  int stalls = 0;
  while (done < frames) {
    if (state->pending_frames > 0) {
      size_t take = state->pending_frames;
      if ((int64_t)take > frames - done) take = (size_t)(frames - done);
      for (size_t frame = 0; frame < take; frame++) {
        const float *from = state->pending + (state->pending_offset + frame) * (size_t)state->present;
        for (int channel = 0; channel < channels; channel++) {
          out[(done + (int64_t)frame) * channels + channel] = from[channel < state->present ? channel : 0];
        }
      }
      state->pending_offset += take;
      state->pending_frames -= take;
      done += (int64_t)take;
      continue;
    }
    size_t got = 0;
    int result = mpg123_read(state->handle, state->pending, sizeof state->pending, &got);
    if (result == MPG123_NEW_FORMAT) {
      long rate = 0;
      int present = 0, encoding = 0;
      mpg123_getformat(state->handle, &rate, &present, &encoding);
      if (present < 1 || present > 2 || encoding != MPG123_ENC_FLOAT_32) break;
      state->present = present;
    } else if (result == MPG123_DONE) {
      if (got == 0) break;
    } else if (result != MPG123_OK) {
      foley_fail(source, FOLEY_ERR_CORRUPT, "corrupt MP3 data: %s", mpg123_strerror(state->handle));
      return done > 0 ? done : -1;
    }
    state->pending_frames = got / (sizeof(float) * (size_t)state->present);
    state->pending_offset = 0;
    if (state->pending_frames > 0) {
      stalls = 0;
    } else if (++stalls > 64) {
      break;
    }
  }
  return done;
}

static int mp3_seek(foley_source *source, int64_t frame) {
  mp3_state *state = source->state;
  state->pending_frames = 0;
  return mpg123_seek(state->handle, (off_t)frame, SEEK_SET) >= 0 ? 0 : -1;
}

static void mp3_close(foley_source *source) {
  mp3_state *state = source->state;
  if (!state) return;
  if (state->handle) {
    mpg123_close(state->handle);
    mpg123_delete(state->handle);
  }
  free(state);
}

const foley_codec foley_mp3_codec = {mp3_open, mp3_read, mp3_seek, mp3_close};
