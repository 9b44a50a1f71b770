// WAV (RIFF/WAVE): integer PCM (8/16/24/32-bit), IEEE float (32/64-bit) and WAVE_FORMAT_EXTENSIBLE
// are read here, streaming; the compressed encodings SDL knows (MS and IMA ADPCM, A-law, mu-law)
// go through SDL_LoadWAV_RW, which was hardened and fuzzed upstream, and are served from memory.
#include "codec_internal.h"
#include <SDL2/SDL.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int is_float;
  int bits;
  int bytes_per_sample;
  int block_align;
  int64_t data_offset;
  int64_t data_size;
  int64_t frame;
  Uint8 *decoded;  // SDL's output for compressed encodings (S16LSB), or NULL
} wav_state;

static uint32_t le32(const unsigned char *bytes) {
  return (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24;
}
static uint16_t le16(const unsigned char *bytes) { return (uint16_t)(bytes[0] | bytes[1] << 8); }

static void read_info_list(foley_source *source, int64_t offset, int64_t size) {
  // LIST/INFO: INAM title, IART artist, IPRD album; values are NUL-terminated text.
  int64_t end = offset + size;
  int64_t position = offset + 4;
  while (position + 8 <= end) {
    unsigned char header[8];
    if (foley_io_seek(&source->io, position, SEEK_SET) != 0) return;
    if (foley_io_read(&source->io, header, 8) != 8) return;
    uint32_t length = le32(header + 4);
    if (length > 4096 || position + 8 + length > end) return;
    char value[4097];
    if (foley_io_read(&source->io, value, length) != length) return;
    value[length] = 0;
    size_t text = strnlen(value, length);
    if (memcmp(header, "INAM", 4) == 0) foley_set_tag(source, "TITLE", value, text);
    if (memcmp(header, "IART", 4) == 0) foley_set_tag(source, "ARTIST", value, text);
    if (memcmp(header, "IPRD", 4) == 0) foley_set_tag(source, "ALBUM", value, text);
    position += 8 + length + (length & 1);
  }
}

static void read_sampler_loop(foley_source *source, int64_t offset, int64_t size) {
  unsigned char sampler[60];
  if (size < 60 || foley_io_seek(&source->io, offset, SEEK_SET) != 0) return;
  if (foley_io_read(&source->io, sampler, 60) != 60) return;
  if (le32(sampler + 28) < 1) return;  // no loops
  uint32_t start = le32(sampler + 36 + 8);
  uint32_t end = le32(sampler + 36 + 12);  // inclusive
  if (end < start) return;
  source->info.loop_start = start;
  source->info.loop_end = (int64_t)end + 1;
}

static int open_with_sdl(foley_source *source, wav_state *state) {
  // The compressed encodings: SDL decodes the whole file to 16-bit samples.
  int64_t size = source->io.size;
  unsigned char *copy = NULL;
  SDL_RWops *stream;
  if (source->io.data) {
    if (size > INT32_MAX) return foley_fail(source, FOLEY_ERR_UNSUPPORTED, "larger than 2 GiB");
    stream = SDL_RWFromConstMem(source->io.data, (int)size);
  } else {
    if (size > 256 * 1024 * 1024) return foley_fail(source, FOLEY_ERR_UNSUPPORTED, "compressed WAV over 256 MiB");
    copy = malloc((size_t)size);
    if (!copy) return foley_fail(source, FOLEY_ERR_NOMEM, "out of memory");
    source->io.position = 0;
    if ((int64_t)foley_io_read(&source->io, copy, (size_t)size) != size) {
      free(copy);
      return foley_fail(source, FOLEY_ERR_IO, "cannot read the file");
    }
    stream = SDL_RWFromConstMem(copy, (int)size);
  }
  if (!stream) {
    free(copy);
    return foley_fail(source, FOLEY_ERR_NOMEM, "%s", SDL_GetError());
  }
  SDL_AudioSpec spec;
  Uint8 *buffer = NULL;
  Uint32 length = 0;
  SDL_AudioSpec *loaded = SDL_LoadWAV_RW(stream, 1, &spec, &buffer, &length);
  free(copy);
  if (!loaded) {
    int result = foley_fail(source, FOLEY_ERR_CORRUPT, "%s", SDL_GetError());
    SDL_ClearError();
    return result;
  }
  int bits = SDL_AUDIO_BITSIZE(spec.format);
  if (SDL_AUDIO_ISFLOAT(spec.format) || bits != 16 || SDL_AUDIO_ISBIGENDIAN(spec.format)) {
    SDL_FreeWAV(buffer);
    return foley_fail(source, FOLEY_ERR_UNSUPPORTED, "unexpected decoded WAV format");
  }
  state->decoded = buffer;
  state->is_float = 0;
  state->bits = 16;
  state->bytes_per_sample = 2;
  state->block_align = 2 * spec.channels;
  state->data_offset = 0;
  state->data_size = length;
  source->info.sample_rate = spec.freq;
  source->info.channels = spec.channels;
  return FOLEY_OK;
}

static int wav_open(foley_source *source) {
  wav_state *state = calloc(1, sizeof *state);
  if (!state) return foley_fail(source, FOLEY_ERR_NOMEM, "out of memory");
  source->state = state;
  unsigned char header[12];
  if (foley_io_read(&source->io, header, 12) != 12) return foley_fail(source, FOLEY_ERR_CORRUPT, "truncated header");
  int64_t position = 12;
  int have_format = 0, compressed = 0, format_tag = 0;
  int64_t data_offset = -1, data_size = 0;
  while (position + 8 <= source->io.size) {
    unsigned char chunk[8];
    if (foley_io_seek(&source->io, position, SEEK_SET) != 0 || foley_io_read(&source->io, chunk, 8) != 8) break;
    int64_t size = le32(chunk + 4);
    int64_t body = position + 8;
    int64_t available = source->io.size - body;
    if (memcmp(chunk, "fmt ", 4) == 0) {
      unsigned char format[40];
      if (size < 16 || available < 16) return foley_fail(source, FOLEY_ERR_CORRUPT, "short fmt chunk");
      size_t wanted = size < 40 ? (size_t)size : 40;
      if (foley_io_read(&source->io, format, wanted) != wanted) return foley_fail(source, FOLEY_ERR_CORRUPT, "short fmt chunk");
      format_tag = le16(format);
      if (format_tag == 0xFFFE && wanted >= 26) format_tag = le16(format + 24);  // extensible: the sub-format
      source->info.channels = le16(format + 2);
      source->info.sample_rate = (int)le32(format + 4);
      if (source->info.sample_rate < 0) source->info.sample_rate = 0;
      state->block_align = le16(format + 12);
      state->bits = le16(format + 14);
      have_format = 1;
      if (format_tag == 1 && (state->bits == 8 || state->bits == 16 || state->bits == 24 || state->bits == 32)) {
        state->is_float = 0;
      } else if (format_tag == 3 && (state->bits == 32 || state->bits == 64)) {
        state->is_float = 1;
      } else if (format_tag == 2 || format_tag == 6 || format_tag == 7 || format_tag == 0x11) {
        compressed = 1;
      } else {
        return foley_fail(source, FOLEY_ERR_UNSUPPORTED, "WAV encoding 0x%04x with %d bits", format_tag, state->bits);
      }
    } else if (memcmp(chunk, "data", 4) == 0) {
      data_offset = body;
      // A header never finalised (size 0, or more than is there) reads as what is there.
      data_size = (size == 0 || size > available) ? available : size;
      if (!have_format) return foley_fail(source, FOLEY_ERR_CORRUPT, "data chunk before fmt");
    } else if (memcmp(chunk, "LIST", 4) == 0 && size >= 4 && size <= available) {
      unsigned char kind[4];
      if (foley_io_read(&source->io, kind, 4) == 4 && memcmp(kind, "INFO", 4) == 0) read_info_list(source, body, size);
    } else if (memcmp(chunk, "smpl", 4) == 0 && size <= available) {
      read_sampler_loop(source, body, size);
    }
    if (data_offset >= 0 && have_format && size > available) break;
    position = body + size + (size & 1);
  }
  if (!have_format) return foley_fail(source, FOLEY_ERR_CORRUPT, "no fmt chunk");
  if (data_offset < 0) return foley_fail(source, FOLEY_ERR_CORRUPT, "no data chunk");
  if (compressed) return open_with_sdl(source, state);
  state->bytes_per_sample = state->bits / 8;
  if (source->info.channels < 1 || source->info.channels > FOLEY_MAX_CHANNELS)
    return foley_fail(source, FOLEY_ERR_UNSUPPORTED, "%d channels", source->info.channels);
  int frame_bytes = state->bytes_per_sample * source->info.channels;
  if (state->block_align != frame_bytes) state->block_align = frame_bytes;  // trust the sample layout
  state->data_offset = data_offset;
  state->data_size = data_size;
  source->info.frames = data_size / state->block_align;
  return FOLEY_OK;
}

static float sanitize(double value) {
  // Non-finite or absurd float samples from a hostile file must not poison the mix.
  if (!isfinite(value)) return 0;
  if (value > 4) return 4;
  if (value < -4) return -4;
  return (float)value;
}

static void convert(const wav_state *state, const unsigned char *bytes, float *out, int64_t samples) {
  for (int64_t index = 0; index < samples; index++) {
    const unsigned char *sample = bytes + index * state->bytes_per_sample;
    if (state->is_float) {
      if (state->bits == 32) {
        uint32_t raw = le32(sample);
        float value;
        memcpy(&value, &raw, 4);
        out[index] = sanitize(value);
      } else {
        uint64_t raw = (uint64_t)le32(sample) | (uint64_t)le32(sample + 4) << 32;
        double value;
        memcpy(&value, &raw, 8);
        out[index] = sanitize(value);
      }
      continue;
    }
    switch (state->bits) {
    case 8: out[index] = ((int)sample[0] - 128) / 128.0f; break;
    case 16: out[index] = (int16_t)le16(sample) / 32768.0f; break;
    case 24: {
      int32_t value = (int32_t)((uint32_t)sample[0] << 8 | (uint32_t)sample[1] << 16 | (uint32_t)sample[2] << 24);
      out[index] = (float)(value / 2147483648.0);
      break;
    }
    default: out[index] = (float)((int32_t)le32(sample) / 2147483648.0); break;
    }
  }
}

static int64_t wav_read(foley_source *source, float *out, int64_t frames) {
  wav_state *state = source->state;
  int64_t total = state->data_size / state->block_align;
  int64_t left = total - state->frame;
  if (frames > left) frames = left;
  if (frames <= 0) return 0;
  int channels = source->info.channels;
  int64_t done = 0;
  unsigned char buffer[16384];
  int64_t per_pass = (int64_t)sizeof buffer / state->block_align;
  while (done < frames) {
    int64_t count = frames - done < per_pass ? frames - done : per_pass;
    int64_t offset = state->data_offset + state->frame * state->block_align;
    size_t bytes = (size_t)(count * state->block_align);
    const unsigned char *samples;
    if (state->decoded) {
      samples = state->decoded + offset;
    } else {
      if (foley_io_seek(&source->io, offset, SEEK_SET) != 0) break;
      size_t got = foley_io_read(&source->io, buffer, bytes);
      count = (int64_t)got / state->block_align;
      if (count == 0) break;
      samples = buffer;
    }
    convert(state, samples, out + done * channels, count * channels);
    done += count;
    state->frame += count;
  }
  return done;
}

static int wav_seek(foley_source *source, int64_t frame) {
  wav_state *state = source->state;
  if (frame > state->data_size / state->block_align) return -1;
  state->frame = frame;
  return 0;
}

static void wav_close(foley_source *source) {
  wav_state *state = source->state;
  if (!state) return;
  if (state->decoded) SDL_FreeWAV(state->decoded);
  free(state);
}

const foley_codec foley_wav_codec = {wav_open, wav_read, wav_seek, wav_close};
