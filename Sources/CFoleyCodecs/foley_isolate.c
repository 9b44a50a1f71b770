// Decoding in a forked child, so that no decoder bug can take the game down.
//
// The child is a copy of the caller's address space with one thread: it lowers its own limits
// (address space, CPU time, core dumps), puts default signal handlers back (a crash must end the
// child, not run the parent's crash reporter), does its work into memory shared with the parent,
// and leaves with _exit. It runs C only: no Swift runtime, no Dispatch, no SDL_mixer and no SDL
// lock another thread might have held at the fork. The parent waits on a pipe the child holds
// open, with a timeout, then reaps it; anything the child reports is bounds-checked.
#define _GNU_SOURCE  // strsignal
#include "codec_internal.h"
#include "foley_platform.h"
#include "foley_job.h"
#include "foley_service.h"
#include <SDL2/SDL.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

// What the child is to do: decode whole into `out` (target set), or check a stream to its end.
typedef struct {
  const void *bytes;
  size_t length;
  const char *path;
  const foley_target *target;
  double max_seconds;
  void *out;
  size_t capacity;
} isolated_job;

static pthread_once_t warmed = PTHREAD_ONCE_INIT;

// Whatever SDL builds lazily behind a lock (the resampler's filter table, the error buffer) is
// built once in the parent, so the child never waits on a lock held by a thread it does not have.
static void warm_up(void) {
  SDL_ClearError();
  SDL_AudioStream *stream = SDL_NewAudioStream(AUDIO_F32SYS, 1, 22050, AUDIO_F32SYS, 2, 48000);
  if (stream) SDL_FreeAudioStream(stream);
}

static void run_child(const isolated_job *job, int timeout_ms, size_t memory_limit, foley_decode_result *result,
                      pid_t parent) {
  // The child dies with the game: a child blocked in a file's open() once outlived it by minutes,
  // holding its descriptors.
  foley_platform_die_with_parent(parent);
  foley_prepare_isolated_process(memory_limit);
  rlim_t seconds = (rlim_t)(timeout_ms / 1000 + 2);
  struct rlimit cpu = {seconds, seconds};
  setrlimit(RLIMIT_CPU, &cpu);
  int faults = foley_decoder_faults() != NULL;
  if (job->bytes) {
    foley_run_job(job->bytes, job->length, job->target, job->max_seconds, job->out, job->capacity, faults, result);
  } else {
    foley_check_stream(NULL, 0, job->path, result);
  }
}

static int64_t milliseconds_now(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static int fail(foley_decode_result *result, int status, const char *format, const char *detail) {
  memset(result, 0, sizeof *result);
  result->status = status;
  snprintf(result->message, sizeof result->message, format, detail);
  return status;
}

// The child's or the service's report is not trusted beyond its shape.
static int checked_report(const isolated_job *job, foley_decode_result *result) {
  result->message[sizeof result->message - 1] = 0;
  result->title[sizeof result->title - 1] = 0;
  result->artist[sizeof result->artist - 1] = 0;
  result->album[sizeof result->album - 1] = 0;
  if (result->status < FOLEY_OK || result->status > FOLEY_ERR_ISOLATION) result->status = FOLEY_ERR_CRASHED;
  if (job->target && result->status == FOLEY_OK) {
    size_t frame_bytes = (size_t)job->target->channels * (job->target->is_float ? 4 : 2);
    if (result->frames <= 0 || (size_t)result->frames > job->capacity / frame_bytes) {
      return fail(result, FOLEY_ERR_CRASHED, "%s", "the decoder reported an impossible length");
    }
  }
  return result->status;
}

static int run_isolated(const isolated_job *job, int timeout_ms, size_t memory_limit, foley_decode_result *result) {
  pthread_once(&warmed, warm_up);
  memset(result, 0, sizeof *result);
  result->status = FOLEY_ERR_CRASHED;  // what a child that dies before reporting leaves behind
  int pipe_ends[2];
  if (foley_platform_pipe(pipe_ends) != 0) return fail(result, FOLEY_ERR_ISOLATION, "pipe: %s", strerror(errno));
  pid_t parent = getpid();
  pid_t child = fork();
  if (child < 0) {
    close(pipe_ends[0]);
    close(pipe_ends[1]);
    return fail(result, FOLEY_ERR_ISOLATION, "fork: %s", strerror(errno));
  }
  if (child == 0) {
    close(pipe_ends[0]);
    run_child(job, timeout_ms, memory_limit, result, parent);
    _exit(0);
  }
  close(pipe_ends[1]);
  // The pipe closes when the child exits, however it exits.
  int64_t deadline = milliseconds_now() + timeout_ms;
  int timed_out = 0;
  for (;;) {
    int64_t left = deadline - milliseconds_now();
    if (left <= 0) {
      timed_out = 1;
      break;
    }
    struct pollfd watch = {pipe_ends[0], POLLIN, 0};
    int ready = poll(&watch, 1, (int)left);
    if (ready > 0) break;
    if (ready < 0 && errno != EINTR) break;
  }
  close(pipe_ends[0]);
  if (timed_out) kill(child, SIGKILL);
  int wait_status = 0;
  while (waitpid(child, &wait_status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    char detail[32];
    snprintf(detail, sizeof detail, "%d", timeout_ms);
    return fail(result, FOLEY_ERR_TIMED_OUT, "still decoding after %s ms", detail);
  }
  if (WIFSIGNALED(wait_status)) {
    int number = WTERMSIG(wait_status);
    char detail[96];
    snprintf(detail, sizeof detail, "%s (signal %d)",
             number == SIGXCPU ? "out of CPU time" : (number == SIGKILL ? "killed" : strsignal(number)), number);
    fail(result, FOLEY_ERR_CRASHED, "%s", detail);
    result->signal = number;
    return result->status;
  }
  if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0) {
    char detail[32];
    snprintf(detail, sizeof detail, "%d", WEXITSTATUS(wait_status));
    return fail(result, FOLEY_ERR_CRASHED, "the decoder exited with status %s", detail);
  }
  return checked_report(job, result);
}

int foley_decode_isolated(const void *bytes, size_t length, const foley_target *target, double max_seconds,
                          int timeout_ms, size_t memory_limit, void *out, size_t capacity,
                          foley_decode_result *result) {
  isolated_job job = {bytes, length, NULL, target, max_seconds, out, capacity};
  return run_isolated(&job, timeout_ms, memory_limit, result);
}

int foley_check_isolated(const void *bytes, size_t length, const char *path, int timeout_ms, size_t memory_limit,
                         foley_decode_result *result) {
  isolated_job job = {bytes, length, path, NULL, 0, NULL, 0};
  // Bytes go to the long-lived service; a file by path (or a service that cannot start) gets a
  // forked child.
  if (bytes && length > 0) {
    foley_decode_result report;
    memset(&report, 0, sizeof report);
    int served = foley_service_run(bytes, length, NULL, 0, timeout_ms, memory_limit, 0,
                                   foley_decoder_faults() != NULL, &report, NULL);
    if (served != -1) {
      *result = report;
      return checked_report(&job, result);
    }
  }
  // A forked child: its report goes through memory shared with it, then to the caller's.
  foley_decode_result *shared = foley_shared_alloc(sizeof *shared);
  if (!shared) return fail(result, FOLEY_ERR_ISOLATION, "%s", "cannot map memory for the decoder");
  int status = run_isolated(&job, timeout_ms, memory_limit, shared);
  *result = *shared;
  foley_shared_free(shared, sizeof *shared);
  return status;
}

int foley_decode_isolated_samples(const void *bytes, size_t length, const foley_target *target, double max_seconds,
                                  int timeout_ms, size_t memory_limit, foley_decode_result *result, void **samples) {
  *samples = NULL;
  size_t capacity = foley_decode_capacity(target, max_seconds);
  isolated_job job = {bytes, length, NULL, target, max_seconds, NULL, capacity};
  foley_decode_result report;
  memset(&report, 0, sizeof report);
  int served = foley_service_run(bytes, length, target, max_seconds, timeout_ms, memory_limit, capacity,
                                 foley_decoder_faults() != NULL, &report, samples);
  if (served != -1) {
    *result = report;
    int status = checked_report(&job, result);
    if (status != FOLEY_OK && *samples) {
      SDL_free(*samples);
      *samples = NULL;
    }
    return status;
  }
  // No service: a forked child, writing into memory shared with it.
  size_t header = (sizeof(foley_decode_result) + 63) & ~(size_t)63;
  char *shared = foley_shared_alloc(header + capacity);
  if (!shared) return fail(result, FOLEY_ERR_ISOLATION, "%s", "cannot map memory for the decoder");
  foley_decode_result *shared_result = (foley_decode_result *)shared;
  int status = foley_decode_isolated(bytes, length, target, max_seconds, timeout_ms, memory_limit, shared + header,
                                     capacity, shared_result);
  *result = *shared_result;
  if (status == FOLEY_OK) {
    size_t used = (size_t)result->frames * (size_t)target->channels * (target->is_float ? 4 : 2);
    *samples = SDL_malloc(used);
    if (*samples) {
      memcpy(*samples, shared + header, used);
    } else {
      status = fail(result, FOLEY_ERR_NOMEM, "%s", "out of memory");
    }
  }
  foley_shared_free(shared, header + capacity);
  return status;
}
