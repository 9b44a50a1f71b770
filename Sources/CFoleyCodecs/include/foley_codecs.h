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
  FOLEY_ERR_TOO_LONG = 6,
  FOLEY_ERR_NO_SAMPLES = 7,
  FOLEY_ERR_CRASHED = 8,    // the isolated decoder died on a signal
  FOLEY_ERR_TIMED_OUT = 9,  // the isolated decoder ran past its time and was killed
  FOLEY_ERR_ISOLATION = 10, // the child process could not be started
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

// --- Whole-sound decoding ---------------------------------------------------------------------

// The format a whole decode converts to.
typedef struct {
  int sample_rate;
  int channels;
  int is_float;  // 1: float32, 0: signed 16-bit, native byte order
} foley_target;

typedef struct {
  int status;         // foley_status
  int signal;         // with FOLEY_ERR_CRASHED, the signal that ended the decoder
  foley_info info;    // what the source declared
  int64_t frames;     // frames written to the output, in the target format
  char message[256];  // why it failed, NUL-terminated
  char title[256];
  char artist[256];
  char album[256];
  char bpm[32];       // the BPM tag (Vorbis comments: Ogg Vorbis, Opus, FLAC), as written
  int has_loudness;   // a check measured the track (BS.1770, libebur128): the three below are set
  double loudness;    // integrated loudness, LUFS (-HUGE_VAL for silence)
  double loudness_range;  // loudness range, LU (EBU Tech 3342)
  double true_peak;   // true peak, linear (0 for silence)
} foley_decode_result;

// The bytes a whole decode of at most `max_seconds` can produce in `target` (an upper bound).
size_t foley_decode_capacity(const foley_target *target, double max_seconds);

// Decodes `bytes` whole into `out` (`capacity` bytes), converted to `target` with SDL's resampler.
// The declared rate and length are checked before anything is decoded; more than `max_seconds` of
// audio is FOLEY_ERR_TOO_LONG. Returns the status (also in result->status).
int foley_decode_whole(const void *bytes, size_t length, const foley_target *target, double max_seconds,
                       void *out, size_t capacity, foley_decode_result *result);

// The same in a child process, so a decoder that crashes, hangs or runs away with memory cannot
// take the caller down: the child may add at most `memory_limit` bytes of address space and is
// killed after `timeout_ms`. `out` and `result` must be shared with the child: allocate them with
// foley_shared_alloc. Returns the status (also in result->status).
int foley_decode_isolated(const void *bytes, size_t length, const foley_target *target, double max_seconds,
                          int timeout_ms, size_t memory_limit, void *out, size_t capacity,
                          foley_decode_result *result);

// The same, through the decoding service when it runs (a forked child otherwise), with the
// samples returned in a new SDL_malloc buffer of exactly result->frames frames (*samples; NULL
// when the status is not FOLEY_OK). Needs no shared memory from the caller.
int foley_decode_isolated_samples(const void *bytes, size_t length, const foley_target *target, double max_seconds,
                                  int timeout_ms, size_t memory_limit, foley_decode_result *result, void **samples);

// Reads a whole stream (from `bytes`, or from the file at `path` when bytes is NULL) in a child
// process and throws the audio away: a check that a track decodes to its end without crashing,
// hanging or running away with memory, before it is streamed in the caller's own process.
// Its info and message are filled in `result` (any memory: a forked child reports through memory
// of its own shared with it).
int foley_check_isolated(const void *bytes, size_t length, const char *path, int timeout_ms, size_t memory_limit,
                         foley_decode_result *result);

// Memory that a forked child writes and the parent reads (anonymous, shared, committed lazily).
void *foley_shared_alloc(size_t size);
void foley_shared_free(void *memory, size_t size);

// The decoding service behind foley_decode_isolated and foley_check_isolated with bytes: how many
// times it has started (a crash or a hang ends it; the next job starts another), and its process
// id while it runs (0 otherwise). For tests and tools.
uint64_t foley_service_starts(void);
int32_t foley_service_pid(void);
// Starts the decoding service on a thread of its own, if it is not running or starting, so that
// the game's first decodes do not wait for it (an engine opening calls this). While it starts, a
// job from a game still small (at most 128 MiB resident, where a fork costs a few milliseconds;
// FOLEY_DECODER_FORK_LIMIT_MIB sets another bound, 0 none) is decoded in a forked child instead
// of waiting for it; a larger game waits, as before.
// `memory_limit` is what the service may add to its address space.
void foley_service_prewarm(size_t memory_limit);
// Whether a prewarm's start is under way now, and how many jobs went to a forked child because
// one was. For tests and tools.
int foley_service_starting(void);
uint64_t foley_service_forks_while_starting(void);

// A stream decoded in a streaming service: a helper process of one engine's (beside the
// process-wide service that decodes whole sounds), so one engine's stuck stream never holds
// another's. The track's bytes stay in the shared memory `fd` (`length` bytes), which the service maps;
// reads, seeks and tags are foley_source's, across the process boundary. When the service dies on a
// stream's request (a crash, a read past `timeout_ms`), that read or seek fails (-1,
// foley_remote_error says why) and the next open starts a new service. When it is lost between
// requests (killed from outside, as an out-of-memory killer would), a read or seek opens its
// stream again in a new service at the frame it had reached and goes on (at most three times).
typedef struct foley_streaming foley_streaming;
typedef struct foley_remote foley_remote;
// An engine's streaming service, started at its first open; NULL if out of memory.
foley_streaming *foley_streaming_make(void);
// Gives up on the service's requests, now and from now on (the engine is closing): a request that
// waits gives the service 100 ms more to answer, then kills it; new requests fail at once.
void foley_streaming_cancel(foley_streaming *streaming);
// Stops the service process (killed if it runs) and waits for it; its streams' reads then fail.
void foley_streaming_stop(foley_streaming *streaming);
// Stops the service and frees it: after every remote opened with it is closed.
void foley_streaming_free(foley_streaming *streaming);
// The service's process id while it runs (0 otherwise), and how many stream reads wait for its
// answer now (0 or 1). Neither waits for a request. For tests and tools.
int32_t foley_streaming_pid(const foley_streaming *streaming);
int foley_streaming_reads_waiting(const foley_streaming *streaming);
// Starts the streaming service now if it is not running, on the calling thread (it waits for the
// service to be ready, about 20 ms): for a thread that prepares tracks, so that their first open
// does not wait for the start. 0 when the service runs, -1 if it cannot start or was given up.
int foley_streaming_prewarm(foley_streaming *streaming, size_t memory_limit);
// New shared memory (close-on-exec), for bytes the streaming service is to map; -1 if none can
// be made.
int foley_shared_memory(const char *name);

// Where this program's executable is, for starting the decoding service on a platform that
// cannot tell (not Linux, not macOS). The engine passes it as it opens; NULL forgets it.
void foley_set_service_executable(const char *path);

// "linux" or "posix": which platform seam this build has (foley_platform.h).
const char *foley_platform_name(void);
foley_remote *foley_remote_open(foley_streaming *streaming, int fd, size_t length, int timeout_ms,
                                size_t memory_limit, foley_info *info, int *status, char *error,
                                size_t error_size);
int64_t foley_remote_read(foley_remote *remote, float *out, int64_t frames);
int foley_remote_seek(foley_remote *remote, int64_t frame);
int foley_remote_tag(foley_remote *remote, const char *key, char *out, size_t out_size);
const char *foley_remote_error(foley_remote *remote);
void foley_remote_close(foley_remote *remote);

#ifdef __cplusplus
}
#endif

#endif
