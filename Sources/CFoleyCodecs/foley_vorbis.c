// OGG Vorbis through libvorbisfile: ov_pcm_seek is sample-exact, ov_read_float gives floats.
#include "codec_internal.h"
#include <stdlib.h>
#include <vorbis/vorbisfile.h>

static size_t vorbis_read_bytes(void *destination, size_t size, size_t count, void *source) {
  if (size == 0) return 0;
  return foley_io_read(&((foley_source *)source)->io, destination, size * count) / size;
}

static int vorbis_seek_bytes(void *source, ogg_int64_t offset, int whence) {
  return foley_io_seek(&((foley_source *)source)->io, offset, whence);
}

static long vorbis_tell_bytes(void *source) { return (long)foley_io_tell(&((foley_source *)source)->io); }

static int vorbis_open(foley_source *source) {
  OggVorbis_File *file = calloc(1, sizeof *file);
  if (!file) return foley_fail(source, FOLEY_ERR_NOMEM, "out of memory");
  ov_callbacks callbacks = {vorbis_read_bytes, vorbis_seek_bytes, NULL, vorbis_tell_bytes};
  int result = ov_open_callbacks(source, file, NULL, 0, callbacks);
  if (result != 0) {
    free(file);
    return foley_fail(source, FOLEY_ERR_CORRUPT, "not a readable Vorbis stream (libvorbisfile error %d)", result);
  }
  source->state = file;
  vorbis_info *info = ov_info(file, -1);
  if (!info) return foley_fail(source, FOLEY_ERR_CORRUPT, "no Vorbis header");
  source->info.sample_rate = (int)info->rate;
  source->info.channels = info->channels;
  ogg_int64_t total = ov_pcm_total(file, -1);
  source->info.frames = total >= 0 ? total : -1;
  vorbis_comment *comments = ov_comment(file, -1);
  if (comments) {
    for (int index = 0; index < comments->comments; index++) {
      if (comments->user_comments[index] && comments->comment_lengths[index] > 0)
        foley_take_comment(source, comments->user_comments[index], (size_t)comments->comment_lengths[index]);
    }
  }
  return FOLEY_OK;
}

static int64_t vorbis_read(foley_source *source, float *out, int64_t frames) {
  OggVorbis_File *file = source->state;
  int channels = source->info.channels;
  int64_t done = 0;
  while (done < frames) {
    float **pcm = NULL;
    int section = 0;
    int wanted = frames - done > 4096 ? 4096 : (int)(frames - done);
    long got = ov_read_float(file, &pcm, wanted, &section);
    if (got == OV_HOLE) continue;  // a gap in the stream: keep going
    if (got < 0) {
      foley_fail(source, FOLEY_ERR_CORRUPT, "corrupt Vorbis data (libvorbisfile error %ld)", got);
      return done > 0 ? done : -1;
    }
    if (got == 0) break;
    vorbis_info *info = ov_info(file, section);
    int present = info ? info->channels : channels;
    for (long frame = 0; frame < got; frame++) {
      for (int channel = 0; channel < channels; channel++) {
        // A chained stream may change its channel count: missing channels repeat the first.
        float value = pcm[channel < present ? channel : 0][frame];
        out[(done + frame) * channels + channel] = value;
      }
    }
    done += got;
  }
  return done;
}

static int vorbis_seek(foley_source *source, int64_t frame) {
  return ov_pcm_seek(source->state, frame) == 0 ? 0 : -1;
}

static void vorbis_close(foley_source *source) {
  if (!source->state) return;
  ov_clear(source->state);
  free(source->state);
}

const foley_codec foley_vorbis_codec = {vorbis_open, vorbis_read, vorbis_seek, vorbis_close};
