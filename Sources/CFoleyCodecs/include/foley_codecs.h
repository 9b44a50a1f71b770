#ifndef FOLEY_CODECS_H
#define FOLEY_CODECS_H

// Foley's decoders behind one interface: a "source" yields interleaved float32 frames at the
// file's own rate and channel count, can seek to a frame, and exposes tags and loop points.
// Each format uses the library made for it (libvorbisfile, libopusfile, libFLAC, libmpg123);
// WAV and AIFF are parsed here, with SDL's WAV loader for the compressed WAV encodings.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  FOLEY_FORMAT_UNKNOWN = 0,
  FOLEY_FORMAT_WAV = 1,
  FOLEY_FORMAT_AIFF = 2,
  FOLEY_FORMAT_VORBIS = 3,
  FOLEY_FORMAT_OPUS = 4,
  FOLEY_FORMAT_FLAC = 5,
  FOLEY_FORMAT_MP3 = 6,
  // Recognised but not decoded (a clear error instead of a guess).
  FOLEY_FORMAT_MIDI = 100,
  FOLEY_FORMAT_MOD = 101,
  FOLEY_FORMAT_VOC = 102,
  FOLEY_FORMAT_OGG_OTHER = 103,
} foley_format;

typedef enum {
  FOLEY_OK = 0,
  FOLEY_ERR_UNKNOWN_FORMAT = 1,
  FOLEY_ERR_UNSUPPORTED = 2,
  FOLEY_ERR_CORRUPT = 3,
  FOLEY_ERR_IO = 4,
  FOLEY_ERR_NOMEM = 5,
} foley_status;

typedef struct {
  int format;            // foley_format
  int sample_rate;       // Hz, as the file declares it
  int channels;          // 1...8
  int64_t frames;        // frames the file declares, or -1 when it does not say
  int64_t loop_start;    // loop points in frames from tags or chunks, -1 when absent
  int64_t loop_end;      // exclusive end, -1 when absent
} foley_info;

typedef struct foley_source foley_source;

// Names the format from the first bytes (at least 12 help; 1084 finds MOD files).
int foley_sniff(const void *bytes, size_t length);

// A readable name for a foley_format ("WAV", "OGG Vorbis", ...).
const char *foley_format_name(int format);

// Opens `bytes` (which must outlive the source). On failure returns NULL, sets *status and
// writes a message into `error` (always NUL-terminated when error_size > 0).
foley_source *foley_source_open_memory(const void *bytes, size_t length, foley_info *info, int *status,
                                       char *error, size_t error_size);

// Opens a file for streaming (the source keeps it open).
foley_source *foley_source_open_file(const char *path, foley_info *info, int *status, char *error,
                                     size_t error_size);

// Reads up to `frames` interleaved frames. Returns the number read, 0 at the end, or -1 on a
// decoding error (the message is in foley_source_error).
int64_t foley_source_read(foley_source *source, float *out, int64_t frames);

// Seeks so that the next read starts at `frame`. Returns 0, or -1 when the format cannot seek.
int foley_source_seek(foley_source *source, int64_t frame);

// The last error's message ("" when none).
const char *foley_source_error(const foley_source *source);

// A tag's value ("TITLE", "ARTIST", "ALBUM"), copied into `out`; returns its length, or -1.
int foley_source_tag(foley_source *source, const char *key, char *out, size_t out_size);

void foley_source_close(foley_source *source);

#ifdef __cplusplus
}
#endif

#endif
