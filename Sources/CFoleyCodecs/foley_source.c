#include "codec_internal.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const tag_keys[FOLEY_TAG_COUNT] = {"TITLE", "ARTIST", "ALBUM", "BPM"};

size_t foley_io_read(foley_io *io, void *destination, size_t count) {
  if (io->position < 0 || io->position >= io->size || count == 0) return 0;
  int64_t available = io->size - io->position;
  size_t wanted = (int64_t)count < available ? count : (size_t)available;
  size_t got;
  if (io->data) {
    memcpy(destination, io->data + io->position, wanted);
    got = wanted;
  } else {
    if (fseeko(io->file, (off_t)io->position, SEEK_SET) != 0) return 0;
    got = fread(destination, 1, wanted, io->file);
  }
  io->position += (int64_t)got;
  return got;
}

int foley_io_seek(foley_io *io, int64_t offset, int whence) {
  int64_t target;
  switch (whence) {
  case SEEK_SET: target = offset; break;
  case SEEK_CUR: target = io->position + offset; break;
  case SEEK_END: target = io->size + offset; break;
  default: return -1;
  }
  if (target < 0 || target > io->size) return -1;
  io->position = target;
  return 0;
}

int64_t foley_io_tell(const foley_io *io) { return io->position; }

int foley_fail(foley_source *source, int status, const char *format, ...) {
  va_list arguments;
  va_start(arguments, format);
  vsnprintf(source->error, sizeof source->error, format, arguments);
  va_end(arguments);
  return status;
}

void foley_set_tag(foley_source *source, const char *key, const char *value, size_t length) {
  for (int index = 0; index < FOLEY_TAG_COUNT; index++) {
    if (strcasecmp(key, tag_keys[index]) != 0 || source->tags[index]) continue;
    if (length > 1024) length = 1024;
    char *copy = malloc(length + 1);
    if (!copy) return;
    memcpy(copy, value, length);
    copy[length] = 0;
    source->tags[index] = copy;
  }
}

static int64_t parse_frame_count(const char *text, size_t length) {
  int64_t value = 0;
  if (length == 0) return -1;
  for (size_t index = 0; index < length; index++) {
    if (text[index] < '0' || text[index] > '9') return -1;
    if (value > (INT64_MAX - 9) / 10) return -1;
    value = value * 10 + (text[index] - '0');
  }
  return value;
}

void foley_take_comment(foley_source *source, const char *comment, size_t length) {
  const char *equals = memchr(comment, '=', length);
  if (!equals) return;
  size_t key_length = (size_t)(equals - comment);
  const char *value = equals + 1;
  size_t value_length = length - key_length - 1;
  char key[32];
  if (key_length == 0 || key_length >= sizeof key) return;
  memcpy(key, comment, key_length);
  key[key_length] = 0;
  if (strcasecmp(key, "LOOPSTART") == 0) {
    source->info.loop_start = parse_frame_count(value, value_length);
  } else if (strcasecmp(key, "LOOPEND") == 0) {
    int64_t end = parse_frame_count(value, value_length);
    // LOOPEND names the last frame of the loop; Foley's ends are exclusive.
    source->info.loop_end = end >= 0 ? end + 1 : -1;
  } else if (strcasecmp(key, "LOOPLENGTH") == 0) {
    int64_t loop_length = parse_frame_count(value, value_length);
    if (loop_length > 0 && source->info.loop_start >= 0 && source->info.loop_end < 0) {
      source->info.loop_end = source->info.loop_start + loop_length;
    } else if (loop_length > 0) {
      // LOOPSTART may come later; remember the length as a negative marker.
      source->info.loop_end = -2 - loop_length;
    }
  } else {
    foley_set_tag(source, key, value, value_length);
  }
}

static int matches(const unsigned char *bytes, size_t length, size_t offset, const char *tag) {
  size_t tag_length = strlen(tag);
  return length >= offset + tag_length && memcmp(bytes + offset, tag, tag_length) == 0;
}

static int looks_like_mpeg_audio(const unsigned char *bytes, size_t length) {
  // A frame sync, a valid layer and a bitrate/sample-rate index that are not reserved.
  if (length < 4) return 0;
  if (bytes[0] != 0xFF || (bytes[1] & 0xE0) != 0xE0) return 0;
  if (((bytes[1] >> 1) & 3) == 0) return 0;      // layer reserved
  if (((bytes[1] >> 3) & 3) == 1) return 0;      // version reserved
  if ((bytes[2] >> 4) == 15) return 0;           // bitrate index invalid
  if (((bytes[2] >> 2) & 3) == 3) return 0;      // sample rate reserved
  return 1;
}

int foley_sniff(const void *data, size_t length) {
  const unsigned char *bytes = data;
  if (matches(bytes, length, 0, "RIFF") && matches(bytes, length, 8, "WAVE")) return FOLEY_FORMAT_WAV;
  if (matches(bytes, length, 0, "FORM") && (matches(bytes, length, 8, "AIFF") || matches(bytes, length, 8, "AIFC")))
    return FOLEY_FORMAT_AIFF;
  if (matches(bytes, length, 0, "fLaC")) return FOLEY_FORMAT_FLAC;
  if (matches(bytes, length, 0, "OggS")) {
    // The first page's first packet says which codec: it starts right after the segment table.
    if (length > 27) {
      size_t packet = 27 + (size_t)bytes[26];
      if (matches(bytes, length, packet, "\x01vorbis")) return FOLEY_FORMAT_VORBIS;
      if (matches(bytes, length, packet, "OpusHead")) return FOLEY_FORMAT_OPUS;
    }
    return FOLEY_FORMAT_OGG_OTHER;
  }
  if (matches(bytes, length, 0, "MThd") || (matches(bytes, length, 0, "RIFF") && matches(bytes, length, 8, "RMID")))
    return FOLEY_FORMAT_MIDI;
  if (matches(bytes, length, 0, "Creative Voice File")) return FOLEY_FORMAT_VOC;
  if (matches(bytes, length, 0, "Extended Module:") || matches(bytes, length, 44, "SCRM") ||
      matches(bytes, length, 0, "IMPM") || matches(bytes, length, 1080, "M.K.") ||
      matches(bytes, length, 1080, "M!K!") || matches(bytes, length, 1080, "FLT4") ||
      matches(bytes, length, 1080, "4CHN") || matches(bytes, length, 1080, "6CHN") ||
      matches(bytes, length, 1080, "8CHN"))
    return FOLEY_FORMAT_MOD;
  if (matches(bytes, length, 0, "ID3") || looks_like_mpeg_audio(bytes, length)) return FOLEY_FORMAT_MP3;
  return FOLEY_FORMAT_UNKNOWN;
}

const char *foley_format_name(int format) {
  switch (format) {
  case FOLEY_FORMAT_WAV: return "WAV";
  case FOLEY_FORMAT_AIFF: return "AIFF";
  case FOLEY_FORMAT_VORBIS: return "OGG Vorbis";
  case FOLEY_FORMAT_OPUS: return "Opus";
  case FOLEY_FORMAT_FLAC: return "FLAC";
  case FOLEY_FORMAT_MP3: return "MP3";
  case FOLEY_FORMAT_MIDI: return "MIDI";
  case FOLEY_FORMAT_MOD: return "tracker module (MOD/XM/S3M/IT)";
  case FOLEY_FORMAT_VOC: return "Creative Voice (VOC)";
  case FOLEY_FORMAT_OGG_OTHER: return "Ogg (not Vorbis or Opus)";
  default: return "unknown";
  }
}

static const foley_codec *codec_for(int format) {
  switch (format) {
  case FOLEY_FORMAT_WAV: return &foley_wav_codec;
  case FOLEY_FORMAT_AIFF: return &foley_aiff_codec;
  case FOLEY_FORMAT_VORBIS: return &foley_vorbis_codec;
  case FOLEY_FORMAT_OPUS: return &foley_opus_codec;
  case FOLEY_FORMAT_FLAC: return &foley_flac_codec;
  case FOLEY_FORMAT_MP3: return &foley_mp3_codec;
  default: return NULL;
  }
}

static void copy_error(char *error, size_t error_size, const char *message) {
  if (error && error_size > 0) snprintf(error, error_size, "%s", message);
}

static foley_source *finish_open(foley_source *source, const unsigned char *head, size_t head_length,
                                 foley_info *info, int *status, char *error, size_t error_size) {
  int format = foley_sniff(head, head_length);
  const foley_codec *codec = codec_for(format);
  int result;
  if (!codec) {
    if (format == FOLEY_FORMAT_UNKNOWN) {
      result = foley_fail(source, FOLEY_ERR_UNKNOWN_FORMAT, "unrecognised audio format");
    } else {
      result = foley_fail(source, FOLEY_ERR_UNSUPPORTED, "%s is not supported", foley_format_name(format));
    }
  } else {
    source->codec = codec;
    source->info.format = format;
    source->info.frames = -1;
    source->info.loop_start = -1;
    source->info.loop_end = -1;
    result = codec->open(source);
    if (result == FOLEY_OK && (source->info.channels < 1 || source->info.channels > FOLEY_MAX_CHANNELS)) {
      result = foley_fail(source, FOLEY_ERR_UNSUPPORTED, "%d channels (1 to %d are supported)",
                          source->info.channels, FOLEY_MAX_CHANNELS);
    }
    if (result == FOLEY_OK && source->info.sample_rate <= 0) {
      result = foley_fail(source, FOLEY_ERR_CORRUPT, "no sample rate");
    }
    // One rule for sounds and streamed tracks, before anything is converted: a header declaring
    // 1 Hz would become 48,000 times its size once resampled to the mix.
    if (result == FOLEY_OK && (source->info.sample_rate < 1000 || source->info.sample_rate > 384000)) {
      result = foley_fail(source, FOLEY_ERR_CORRUPT, "the header declares %d Hz (1,000 to 384,000 are supported)",
                          source->info.sample_rate);
    }
  }
  if (status) *status = result;
  if (result != FOLEY_OK) {
    copy_error(error, error_size, source->error[0] ? source->error : "cannot decode");
    foley_source_close(source);
    return NULL;
  }
  // A LOOPLENGTH seen before LOOPSTART.
  if (source->info.loop_end < -1) {
    int64_t loop_length = -2 - source->info.loop_end;
    source->info.loop_end = source->info.loop_start >= 0 ? source->info.loop_start + loop_length : -1;
  }
  if (info) *info = source->info;
  copy_error(error, error_size, "");
  return source;
}

foley_source *foley_source_open_memory(const void *bytes, size_t length, foley_info *info, int *status,
                                       char *error, size_t error_size) {
  foley_source *source = calloc(1, sizeof *source);
  if (!source) {
    if (status) *status = FOLEY_ERR_NOMEM;
    copy_error(error, error_size, "out of memory");
    return NULL;
  }
  source->io.data = bytes;
  source->io.size = (int64_t)length;
  return finish_open(source, bytes, length, info, status, error, error_size);
}

foley_source *foley_source_open_file(const char *path, foley_info *info, int *status, char *error,
                                     size_t error_size) {
  // Opened without blocking and checked to be a regular file before anything is read: a FIFO
  // or a device in a track's place would otherwise block the thread that opens it for ever.
  int descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (descriptor < 0) {
    if (status) *status = FOLEY_ERR_IO;
    copy_error(error, error_size, "cannot open the file");
    return NULL;
  }
  struct stat facts;
  if (fstat(descriptor, &facts) != 0 || !S_ISREG(facts.st_mode)) {
    close(descriptor);
    if (status) *status = FOLEY_ERR_IO;
    copy_error(error, error_size, "not a regular file (a FIFO, device or folder is never read)");
    return NULL;
  }
  fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK);
  FILE *file = fdopen(descriptor, "rb");
  if (!file) {
    close(descriptor);
    if (status) *status = FOLEY_ERR_IO;
    copy_error(error, error_size, "cannot open the file");
    return NULL;
  }
  foley_source *source = calloc(1, sizeof *source);
  if (!source) {
    fclose(file);
    if (status) *status = FOLEY_ERR_NOMEM;
    copy_error(error, error_size, "out of memory");
    return NULL;
  }
  source->io.file = file;
  if (fseeko(file, 0, SEEK_END) == 0) source->io.size = (int64_t)ftello(file);
  unsigned char head[1084];
  size_t head_length = foley_io_read(&source->io, head, sizeof head);
  source->io.position = 0;
  return finish_open(source, head, head_length, info, status, error, error_size);
}

int64_t foley_source_read(foley_source *source, float *out, int64_t frames) {
  if (!source || !out || frames <= 0) return 0;
  return source->codec->read(source, out, frames);
}

int foley_source_seek(foley_source *source, int64_t frame) {
  if (!source || frame < 0) return -1;
  if (source->info.frames >= 0 && frame > source->info.frames) return -1;
  return source->codec->seek(source, frame);
}

const char *foley_source_error(const foley_source *source) { return source ? source->error : ""; }

int foley_source_tag(foley_source *source, const char *key, char *out, size_t out_size) {
  if (!source) return -1;
  for (int index = 0; index < FOLEY_TAG_COUNT; index++) {
    if (strcasecmp(key, tag_keys[index]) != 0 || !source->tags[index]) continue;
    int length = (int)strlen(source->tags[index]);
    if (out && out_size > 0) snprintf(out, out_size, "%s", source->tags[index]);
    return length;
  }
  return -1;
}

void foley_source_close(foley_source *source) {
  if (!source) return;
  if (source->codec && source->codec->close) source->codec->close(source);
  if (source->io.file) fclose(source->io.file);
  for (int index = 0; index < FOLEY_TAG_COUNT; index++) free(source->tags[index]);
  free(source);
}
