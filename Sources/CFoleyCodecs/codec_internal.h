#ifndef FOLEY_CODEC_INTERNAL_H
#define FOLEY_CODEC_INTERNAL_H

#include <stdlib.h>

#include "foley_codecs.h"
#include <stdio.h>

// Bytes from memory or from a file, with bounds checked on every access.
typedef struct {
  const unsigned char *data;  // memory source, or NULL
  FILE *file;                 // file source, or NULL
  int64_t size;
  int64_t position;
} foley_io;

size_t foley_io_read(foley_io *io, void *destination, size_t count);
int foley_io_seek(foley_io *io, int64_t offset, int whence);  // 0 ok, -1 out of range
int64_t foley_io_tell(const foley_io *io);

#define FOLEY_MAX_CHANNELS 8
#define FOLEY_TAG_COUNT 4  // TITLE, ARTIST, ALBUM, BPM

typedef struct foley_codec {
  // Fills info (format, rate, channels, frames, loop points); returns FOLEY_OK or an error.
  int (*open)(foley_source *source);
  int64_t (*read)(foley_source *source, float *out, int64_t frames);
  int (*seek)(foley_source *source, int64_t frame);
  void (*close)(foley_source *source);
} foley_codec;

struct foley_source {
  foley_io io;
  foley_info info;
  const foley_codec *codec;
  void *state;
  char error[256];
  char *tags[FOLEY_TAG_COUNT];
};

extern const foley_codec foley_wav_codec;
extern const foley_codec foley_aiff_codec;
extern const foley_codec foley_vorbis_codec;
extern const foley_codec foley_opus_codec;
extern const foley_codec foley_flac_codec;
extern const foley_codec foley_mp3_codec;

// Records an error message on the source (printf-style); returns `status` for convenience.
int foley_fail(foley_source *source, int status, const char *format, ...);

// Remembers a tag ("TITLE=...", or key and value apart) and loop points found in comments.
void foley_take_comment(foley_source *source, const char *comment, size_t length);
void foley_set_tag(foley_source *source, const char *key, const char *value, size_t length);

// The decoders' fault injection (bytes that make a decoder crash, spin or allocate without end,
// and a slow service start), for the tests of containment: read from FOLEY_DECODER_FAULTS only
// in debug builds, which the tests use (Package.swift defines FOLEY_TEST_SEAMS for them). A
// release build — a shipped game — has no such switch in its environment. NULL when unset.
static inline const char *foley_decoder_faults(void) {
#ifdef FOLEY_TEST_SEAMS
  return getenv("FOLEY_DECODER_FAULTS");
#else
  return NULL;
#endif
}

#endif
