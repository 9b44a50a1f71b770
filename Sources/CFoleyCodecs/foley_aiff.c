// AIFF and AIFF-C: big-endian PCM (8/16/24/32-bit), and the AIFF-C encodings 'NONE', 'twos',
// 'sowt' (little-endian) and 'fl32'.
#include "codec_internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int bits;
  int bytes_per_sample;
  int little_endian;
  int is_float;
  int64_t data_offset;
  int64_t frame;
  int64_t frames;
} aiff_state;

static uint32_t be32(const unsigned char *bytes) {
  return (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 | (uint32_t)bytes[2] << 8 | (uint32_t)bytes[3];
}
static uint16_t be16(const unsigned char *bytes) { return (uint16_t)(bytes[0] << 8 | bytes[1]); }

static double extended_to_double(const unsigned char *bytes) {
  // IEEE 754 80-bit extended: sign and 15-bit exponent, then a 64-bit mantissa with explicit 1.
  int exponent = ((bytes[0] & 0x7F) << 8 | bytes[1]) - 16383 - 63;
  uint64_t mantissa = 0;
  for (int index = 0; index < 8; index++) mantissa = mantissa << 8 | bytes[2 + index];
  if (exponent < -1100 || exponent > 1100) return 0;
  double value = ldexp((double)mantissa, exponent);
  return (bytes[0] & 0x80) ? -value : value;
}

static int aiff_open(foley_source *source) {
  aiff_state *state = calloc(1, sizeof *state);
  if (!state) return foley_fail(source, FOLEY_ERR_NOMEM, "out of memory");
  source->state = state;
  unsigned char header[12];
  if (foley_io_read(&source->io, header, 12) != 12) return foley_fail(source, FOLEY_ERR_CORRUPT, "truncated header");
  int is_aifc = memcmp(header + 8, "AIFC", 4) == 0;
  int64_t position = 12, sound_offset = -1, sound_size = 0;
  int have_common = 0;
  while (position + 8 <= source->io.size) {
    unsigned char chunk[8];
    if (foley_io_seek(&source->io, position, SEEK_SET) != 0 || foley_io_read(&source->io, chunk, 8) != 8) break;
    int64_t size = be32(chunk + 4);
    int64_t body = position + 8;
    int64_t available = source->io.size - body;
    if (memcmp(chunk, "COMM", 4) == 0) {
      unsigned char common[22];
      size_t wanted = is_aifc ? 22 : 18;
      if (size < (int64_t)wanted || foley_io_read(&source->io, common, wanted) != wanted)
        return foley_fail(source, FOLEY_ERR_CORRUPT, "short COMM chunk");
      source->info.channels = be16(common);
      state->frames = be32(common + 2);
      state->bits = be16(common + 6);
      double rate = extended_to_double(common + 8);
      source->info.sample_rate = (rate >= 1 && rate <= 1e7) ? (int)lround(rate) : 0;
      if (is_aifc) {
        if (memcmp(common + 18, "sowt", 4) == 0) {
          state->little_endian = 1;
        } else if (memcmp(common + 18, "fl32", 4) == 0 || memcmp(common + 18, "FL32", 4) == 0) {
          state->is_float = 1;
          state->bits = 32;
        } else if (memcmp(common + 18, "NONE", 4) != 0 && memcmp(common + 18, "twos", 4) != 0) {
          return foley_fail(source, FOLEY_ERR_UNSUPPORTED, "AIFF-C compression '%.4s'", (const char *)common + 18);
        }
      }
      have_common = 1;
    } else if (memcmp(chunk, "SSND", 4) == 0) {
      unsigned char offsets[8];
      if (size < 8 || foley_io_read(&source->io, offsets, 8) != 8) return foley_fail(source, FOLEY_ERR_CORRUPT, "short SSND chunk");
      int64_t skip = be32(offsets);
      sound_offset = body + 8 + skip;
      sound_size = (size > available ? available : size) - 8 - skip;
      if (sound_size < 0) return foley_fail(source, FOLEY_ERR_CORRUPT, "SSND offset past its end");
    } else if (memcmp(chunk, "NAME", 4) == 0 && size <= 1024 && size <= available) {
      char name[1025];
      if (foley_io_read(&source->io, name, (size_t)size) == (size_t)size) foley_set_tag(source, "TITLE", name, (size_t)size);
    }
    if (size > available) break;
    position = body + size + (size & 1);
  }
  if (!have_common) return foley_fail(source, FOLEY_ERR_CORRUPT, "no COMM chunk");
  if (sound_offset < 0) return foley_fail(source, FOLEY_ERR_CORRUPT, "no SSND chunk");
  if (state->bits < 1 || state->bits > 32) return foley_fail(source, FOLEY_ERR_UNSUPPORTED, "%d-bit samples", state->bits);
  if (source->info.channels < 1 || source->info.channels > FOLEY_MAX_CHANNELS)
    return foley_fail(source, FOLEY_ERR_UNSUPPORTED, "%d channels", source->info.channels);
  state->bytes_per_sample = (state->bits + 7) / 8;
  int64_t frame_bytes = (int64_t)state->bytes_per_sample * source->info.channels;
  int64_t on_disk = sound_size / frame_bytes;
  if (state->frames > on_disk) state->frames = on_disk;
  state->data_offset = sound_offset;
  source->info.frames = state->frames;
  return FOLEY_OK;
}

static float sample_at(const aiff_state *state, const unsigned char *bytes) {
  if (state->is_float) {
    uint32_t raw = state->little_endian ? (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 |
                                              (uint32_t)bytes[3] << 24
                                        : be32(bytes);
    float value;
    memcpy(&value, &raw, 4);
    if (!isfinite(value)) return 0;
    return value > 4 ? 4 : (value < -4 ? -4 : value);
  }
  // Left-justified two's complement, in as many bytes as the bit depth needs.
  uint32_t raw = 0;
  for (int index = 0; index < state->bytes_per_sample; index++) {
    int byte = state->little_endian ? state->bytes_per_sample - 1 - index : index;
    raw |= (uint32_t)bytes[byte] << (24 - 8 * index);
  }
  return (float)((int32_t)raw / 2147483648.0);
}

static int64_t aiff_read(foley_source *source, float *out, int64_t frames) {
  aiff_state *state = source->state;
  int channels = source->info.channels;
  int64_t frame_bytes = (int64_t)state->bytes_per_sample * channels;
  if (frames > state->frames - state->frame) frames = state->frames - state->frame;
  int64_t done = 0;
  unsigned char buffer[16384];
  while (done < frames) {
    int64_t count = (int64_t)sizeof buffer / frame_bytes;
    if (count > frames - done) count = frames - done;
    if (foley_io_seek(&source->io, state->data_offset + state->frame * frame_bytes, SEEK_SET) != 0) break;
    size_t got = foley_io_read(&source->io, buffer, (size_t)(count * frame_bytes));
    count = (int64_t)got / frame_bytes;
    if (count == 0) break;
    for (int64_t index = 0; index < count * channels; index++) {
      out[done * channels + index] = sample_at(state, buffer + index * state->bytes_per_sample);
    }
    done += count;
    state->frame += count;
  }
  return done;
}

static int aiff_seek(foley_source *source, int64_t frame) {
  aiff_state *state = source->state;
  if (frame > state->frames) return -1;
  state->frame = frame;
  return 0;
}

static void aiff_close(foley_source *source) { free(source->state); }

const foley_codec foley_aiff_codec = {aiff_open, aiff_read, aiff_seek, aiff_close};
