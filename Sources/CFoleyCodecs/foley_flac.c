// FLAC through libFLAC's stream decoder; seek_absolute is sample-exact.
#include "codec_internal.h"
#include <FLAC/stream_decoder.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  FLAC__StreamDecoder *decoder;
  float *pending;  // decoded frames not yet handed out
  int64_t pending_capacity;
  int64_t pending_frames;
  int64_t pending_offset;
  int channels;
  int failed;
} flac_state;

static FLAC__StreamDecoderReadStatus flac_read_bytes(const FLAC__StreamDecoder *decoder, FLAC__byte buffer[],
                                                     size_t *bytes, void *client) {
  (void)decoder;
  foley_source *source = client;
  if (*bytes == 0) return FLAC__STREAM_DECODER_READ_STATUS_ABORT;
  *bytes = foley_io_read(&source->io, buffer, *bytes);
  return *bytes == 0 ? FLAC__STREAM_DECODER_READ_STATUS_END_OF_STREAM : FLAC__STREAM_DECODER_READ_STATUS_CONTINUE;
}

static FLAC__StreamDecoderSeekStatus flac_seek_bytes(const FLAC__StreamDecoder *decoder, FLAC__uint64 offset,
                                                     void *client) {
  (void)decoder;
  foley_source *source = client;
  if (offset > (FLAC__uint64)INT64_MAX) return FLAC__STREAM_DECODER_SEEK_STATUS_ERROR;
  return foley_io_seek(&source->io, (int64_t)offset, SEEK_SET) == 0 ? FLAC__STREAM_DECODER_SEEK_STATUS_OK
                                                                     : FLAC__STREAM_DECODER_SEEK_STATUS_ERROR;
}

static FLAC__StreamDecoderTellStatus flac_tell_bytes(const FLAC__StreamDecoder *decoder, FLAC__uint64 *offset,
                                                     void *client) {
  (void)decoder;
  *offset = (FLAC__uint64)foley_io_tell(&((foley_source *)client)->io);
  return FLAC__STREAM_DECODER_TELL_STATUS_OK;
}

static FLAC__StreamDecoderLengthStatus flac_length(const FLAC__StreamDecoder *decoder, FLAC__uint64 *length,
                                                   void *client) {
  (void)decoder;
  *length = (FLAC__uint64)((foley_source *)client)->io.size;
  return FLAC__STREAM_DECODER_LENGTH_STATUS_OK;
}

static FLAC__bool flac_at_end(const FLAC__StreamDecoder *decoder, void *client) {
  (void)decoder;
  foley_io *io = &((foley_source *)client)->io;
  return io->position >= io->size;
}

static FLAC__StreamDecoderWriteStatus flac_write(const FLAC__StreamDecoder *decoder, const FLAC__Frame *frame,
                                                 const FLAC__int32 *const buffer[], void *client) {
  (void)decoder;
  foley_source *source = client;
  flac_state *state = source->state;
  int64_t count = frame->header.blocksize;
  int channels = state->channels;
  int present = (int)frame->header.channels;
  int bits = (int)frame->header.bits_per_sample;
  if (bits < 4 || bits > 32 || present < 1) return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT;
  int64_t needed = state->pending_offset + state->pending_frames + count;
  if (needed > state->pending_capacity) {
    // Compact first; grow only if one frame does not fit (65,535 frames is FLAC's largest block).
    memmove(state->pending, state->pending + state->pending_offset * channels,
            (size_t)(state->pending_frames * channels) * sizeof(float));
    state->pending_offset = 0;
    needed = state->pending_frames + count;
    if (needed > state->pending_capacity) {
      float *grown = realloc(state->pending, (size_t)(needed * channels) * sizeof(float));
      if (!grown) return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT;
      state->pending = grown;
      state->pending_capacity = needed;
    }
  }
  double scale = 1.0 / (double)((int64_t)1 << (bits - 1));
  float *out = state->pending + (state->pending_offset + state->pending_frames) * channels;
  for (int64_t index = 0; index < count; index++) {
    for (int channel = 0; channel < channels; channel++) {
      out[index * channels + channel] = (float)(buffer[channel < present ? channel : 0][index] * scale);
    }
  }
  state->pending_frames += count;
  return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE;
}

static void flac_metadata(const FLAC__StreamDecoder *decoder, const FLAC__StreamMetadata *metadata, void *client) {
  (void)decoder;
  foley_source *source = client;
  if (metadata->type == FLAC__METADATA_TYPE_STREAMINFO) {
    const FLAC__StreamMetadata_StreamInfo *info = &metadata->data.stream_info;
    source->info.sample_rate = (int)info->sample_rate;
    source->info.channels = (int)info->channels;
    source->info.frames = info->total_samples > 0 ? (int64_t)info->total_samples : -1;
  } else if (metadata->type == FLAC__METADATA_TYPE_VORBIS_COMMENT) {
    const FLAC__StreamMetadata_VorbisComment *comments = &metadata->data.vorbis_comment;
    for (FLAC__uint32 index = 0; index < comments->num_comments; index++) {
      const FLAC__StreamMetadata_VorbisComment_Entry *entry = &comments->comments[index];
      if (entry->entry && entry->length > 0) foley_take_comment(source, (const char *)entry->entry, entry->length);
    }
  }
}

static void flac_error(const FLAC__StreamDecoder *decoder, FLAC__StreamDecoderErrorStatus status, void *client) {
  (void)decoder;
  (void)status;
  // Lost sync and bad frames are skipped by libFLAC; note them, keep decoding.
  ((flac_state *)((foley_source *)client)->state)->failed += 1;
}

static int flac_open(foley_source *source) {
  flac_state *state = calloc(1, sizeof *state);
  if (!state) return foley_fail(source, FOLEY_ERR_NOMEM, "out of memory");
  source->state = state;
  state->decoder = FLAC__stream_decoder_new();
  if (!state->decoder) return foley_fail(source, FOLEY_ERR_NOMEM, "out of memory");
  FLAC__stream_decoder_set_md5_checking(state->decoder, false);
  FLAC__stream_decoder_set_metadata_respond(state->decoder, FLAC__METADATA_TYPE_VORBIS_COMMENT);
  FLAC__StreamDecoderInitStatus initialised = FLAC__stream_decoder_init_stream(
      state->decoder, flac_read_bytes, flac_seek_bytes, flac_tell_bytes, flac_length, flac_at_end, flac_write,
      flac_metadata, flac_error, source);
  if (initialised != FLAC__STREAM_DECODER_INIT_STATUS_OK)
    return foley_fail(source, FOLEY_ERR_CORRUPT, "libFLAC cannot start (status %d)", (int)initialised);
  if (!FLAC__stream_decoder_process_until_end_of_metadata(state->decoder) || source->info.sample_rate <= 0)
    return foley_fail(source, FOLEY_ERR_CORRUPT, "no FLAC stream info");
  state->channels = source->info.channels;
  if (state->channels < 1 || state->channels > FOLEY_MAX_CHANNELS)
    return foley_fail(source, FOLEY_ERR_UNSUPPORTED, "%d channels", state->channels);
  return FOLEY_OK;
}

static int64_t flac_read(foley_source *source, float *out, int64_t frames) {
  flac_state *state = source->state;
  int channels = state->channels;
  int64_t done = 0;
  int idle = 0;
  while (done < frames) {
    if (state->pending_frames > 0) {
      int64_t take = state->pending_frames < frames - done ? state->pending_frames : frames - done;
      memcpy(out + done * channels, state->pending + state->pending_offset * channels,
             (size_t)(take * channels) * sizeof(float));
      state->pending_offset += take;
      state->pending_frames -= take;
      if (state->pending_frames == 0) state->pending_offset = 0;
      done += take;
      idle = 0;
      continue;
    }
    FLAC__StreamDecoderState decoder_state = FLAC__stream_decoder_get_state(state->decoder);
    if (decoder_state == FLAC__STREAM_DECODER_END_OF_STREAM) break;
    int64_t before = foley_io_tell(&source->io);
    if (!FLAC__stream_decoder_process_single(state->decoder)) {
      foley_fail(source, FOLEY_ERR_CORRUPT, "corrupt FLAC data (libFLAC state %d)",
                 (int)FLAC__stream_decoder_get_state(state->decoder));
      return done > 0 ? done : -1;
    }
    // Nothing decoded and nothing consumed, many times over: the stream is stuck, not slow.
    if (state->pending_frames == 0 && foley_io_tell(&source->io) == before && ++idle > 64) break;
  }
  return done;
}

static int flac_seek(foley_source *source, int64_t frame) {
  flac_state *state = source->state;
  state->pending_frames = 0;
  state->pending_offset = 0;
  if (FLAC__stream_decoder_seek_absolute(state->decoder, (FLAC__uint64)frame)) return 0;
  if (FLAC__stream_decoder_get_state(state->decoder) == FLAC__STREAM_DECODER_SEEK_ERROR)
    FLAC__stream_decoder_flush(state->decoder);
  return -1;
}

static void flac_close(foley_source *source) {
  flac_state *state = source->state;
  if (!state) return;
  if (state->decoder) FLAC__stream_decoder_delete(state->decoder);
  free(state->pending);
  free(state);
}

const foley_codec foley_flac_codec = {flac_open, flac_read, flac_seek, flac_close};
