// The decoding service: one long-lived helper process that decodes every sound and checks every
// track the game hands it, so that no decoder bug can take the game down, at the cost of a
// message rather than a fork per job.
//
// The service is the game's own executable run again (foley_platform_spawn_self) with FOLEY_DECODER_SERVICE
// in its environment: the constructor below sees it before any Swift code runs, serves requests
// on the socket it was given, and never returns. It starts small (a fresh process, not a copy of
// a game that has grown to a gigabyte, whose fork costs tens of milliseconds and whose pages it
// would keep), lowers its own limits once, and dies with the game (a watcher thread sees the
// game's end of the socket close).
//
// The game and the service share two buffers (shared memory, mapped once on each side and replaced by
// larger ones when a job needs it): the game copies each job's bytes into one, the service
// writes the decoded samples into the other, and a fixed-size report travels over the socket. A
// crash closes the socket (the job fails as crashed, with the signal); a job that runs past its
// time gets the service killed (timed out); either way the next job starts a new service. If the
// service cannot start at all, jobs fall back to a forked child each.
#define _GNU_SOURCE
#include "codec_internal.h"
#include "foley_service.h"
#include "foley_platform.h"
#include <SDL2/SDL.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int64_t nanoseconds_now(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static int64_t milliseconds_now(void) { return nanoseconds_now() / 1000000; }

// How long a side of the decoding service polls its socket before it sleeps on it. Loading is a
// burst of jobs (a scene's 500 sounds one after the other), each a round trip: asleep, each side
// wakes only after the scheduler's wake-up latency, which made isolated loading a multiple of
// decoding in-process; awake for this long, a small job (a short WAV's) is answered, and the
// next one taken, without either side sleeping.
// The price is at most this much of a core per job, and only in a burst (below).
enum { SPIN_NS = 250 * 1000 };

// Polls `socket` for up to SPIN_NS: 1 when it can be read (or was closed: the caller's read says
// which), 0 when the time ran out or the poll failed (the caller's timed wait takes over, so a
// signal during the spin never sends the caller into a read that could block for ever).
static int readable_soon(int socket) {
  int64_t until = nanoseconds_now() + SPIN_NS;
  do {
    struct pollfd quick = {socket, POLLIN, 0};
    if (poll(&quick, 1, 0) > 0) return 1;
  } while (nanoseconds_now() < until);
  return 0;
}

// MARK: - The protocol

enum { JOB_DECODE = 1, JOB_CHECK = 2, STREAM_OPEN = 3, STREAM_READ = 4, STREAM_SEEK = 5, STREAM_CLOSE = 6 };

typedef struct {
  uint32_t kind;
  uint32_t faults;  // FOLEY_DECODER_FAULTS was set in the game (tests of containment)
  uint64_t length;  // input bytes in the first fd
  foley_target target;
  double max_seconds;
  uint64_t out_offset;  // where the output starts in the second fd (decodes)
  uint64_t capacity;
  uint64_t stream;    // a stream's id (reads, seeks, closes)
  int64_t position;   // frames to read, or the frame to seek to
} service_request;

static int send_with_fds(int socket, const void *data, size_t size, const int *fds, int count) {
  struct iovec part = {(void *)data, size};
  char control[CMSG_SPACE(sizeof(int) * 2)];
  memset(control, 0, sizeof control);
  struct msghdr message = {0};
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  if (count > 0) {
    message.msg_control = control;
    message.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)count);
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)count);
    memcpy(CMSG_DATA(header), fds, sizeof(int) * (size_t)count);
  }
  ssize_t sent;
  do {
    sent = foley_platform_send(socket, &message);
  } while (sent < 0 && errno == EINTR);
  return sent == (ssize_t)size ? 0 : -1;
}

// Receives one message; returns its size (0 at EOF, -1 on error) and up to two fds.
static ssize_t receive_with_fds(int socket, void *data, size_t size, int *fds, int *count) {
  struct iovec part = {data, size};
  char control[CMSG_SPACE(sizeof(int) * 2)];
  struct msghdr message = {0};
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  ssize_t got;
  do {
    got = foley_platform_receive(socket, &message);
  } while (got < 0 && errno == EINTR);
  *count = 0;
  if (got > 0) {
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
      if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS) {
        int received = (int)((header->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (int index = 0; index < received; index++) {
          int fd;
          memcpy(&fd, CMSG_DATA(header) + sizeof(int) * (size_t)index, sizeof fd);
          if (*count < 2) {
            fds[(*count)++] = fd;
          } else {
            close(fd);
          }
        }
      }
    }
  }
  return got;
}

// MARK: - The service's side

// The service's mapping of one of the game's two persistent buffers, kept while the game sends
// the same shared memory at the same size (a grown buffer comes as a new one).
typedef struct {
  ino_t inode;
  size_t size;
  void *address;
  int writable;
} cached_mapping;

static void *mapped(cached_mapping *cache, int fd, size_t size, int writable) {
  struct stat facts;
  if (fstat(fd, &facts) != 0 || (size_t)facts.st_size < size) return MAP_FAILED;
  if (cache->address && cache->inode == facts.st_ino && cache->size == (size_t)facts.st_size) return cache->address;
  if (cache->address) munmap(cache->address, cache->size);
  cache->address = mmap(NULL, (size_t)facts.st_size, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);
  if (cache->address == MAP_FAILED) {
    cache->address = NULL;
    return MAP_FAILED;
  }
  cache->inode = facts.st_ino;
  cache->size = (size_t)facts.st_size;
  return cache->address;
}

// Streams the service keeps open for the game: a track's bytes (its own shared memory, mapped for the
// stream's life) and the decoder reading them.
#define STREAM_SLOTS 64
typedef struct {
  uint64_t id;
  foley_source *source;
  void *bytes;
  size_t length;
  int channels;
} open_stream;
static open_stream streams[STREAM_SLOTS];
static uint64_t next_stream_id = 1;

static open_stream *find_stream(uint64_t id) {
  for (int slot = 0; slot < STREAM_SLOTS; slot++) {
    if (streams[slot].id == id && id != 0) return &streams[slot];
  }
  return NULL;
}

static void close_stream(open_stream *stream) {
  foley_source_close(stream->source);
  munmap(stream->bytes, stream->length);
  memset(stream, 0, sizeof *stream);
}

// A stream request: open a track's bytes (fds[0]), read frames into the output buffer, seek, or
// close. The report's `frames` carries the new stream's id, or the frames read.
static void serve_stream(const service_request *request, const int *fds, int count, void *output,
                         foley_decode_result *result) {
  if (request->kind == STREAM_OPEN) {
    open_stream *slot = find_stream(0);
    for (int index = 0; index < STREAM_SLOTS && !slot; index++) {
      if (streams[index].id == 0) slot = &streams[index];
    }
    void *bytes = count >= 1 ? mmap(NULL, request->length, PROT_READ, MAP_SHARED, fds[0], 0) : MAP_FAILED;
    if (!slot || bytes == MAP_FAILED) {
      if (bytes != MAP_FAILED) munmap(bytes, request->length);
      result->status = FOLEY_ERR_NOMEM;
      snprintf(result->message, sizeof result->message, "no room for another stream");
      return;
    }
    int status = FOLEY_OK;
    foley_source *source = foley_source_open_memory(bytes, request->length, &result->info, &status,
                                                    result->message, sizeof result->message);
    if (!source) {
      munmap(bytes, request->length);
      result->status = status;
      return;
    }
    foley_source_tag(source, "TITLE", result->title, sizeof result->title);
    foley_source_tag(source, "ARTIST", result->artist, sizeof result->artist);
    foley_source_tag(source, "ALBUM", result->album, sizeof result->album);
    foley_source_tag(source, "BPM", result->bpm, sizeof result->bpm);
    *slot = (open_stream){next_stream_id++, source, bytes, request->length, result->info.channels};
    result->status = FOLEY_OK;
    result->frames = (int64_t)slot->id;
    return;
  }
  open_stream *stream = find_stream(request->stream);
  if (!stream) {
    result->status = FOLEY_ERR_ISOLATION;
    snprintf(result->message, sizeof result->message, "no such stream");
    return;
  }
  switch (request->kind) {
  case STREAM_READ: {
    // Fault injection for the tests of containment (FOLEY_DECODER_FAULTS in the game): bytes that
    // end with "FOLEY-FAULT:LATE" decode and check cleanly, and crash the first streamed read.
    if (request->faults && stream->length >= 16 &&
        memcmp((const char *)stream->bytes + stream->length - 16, "FOLEY-FAULT:LATE", 16) == 0) {
      raise(SIGSEGV);
    }
    // ... and bytes that end with "FOLEY-FAULT:HANG" hang in every streamed read (a decoder in an
    // endless loop): the tests of an engine closing while a read waits.
    if (request->faults && stream->length >= 16 &&
        memcmp((const char *)stream->bytes + stream->length - 16, "FOLEY-FAULT:HANG", 16) == 0) {
      for (;;) pause();
    }
    int64_t room = output ? (int64_t)(request->capacity / (sizeof(float) * (size_t)stream->channels)) : 0;
    int64_t wanted = request->position < room ? request->position : room;
    int64_t got = foley_source_read(stream->source, output, wanted);
    result->frames = got;
    result->status = got < 0 ? FOLEY_ERR_CORRUPT : FOLEY_OK;
    if (got < 0) snprintf(result->message, sizeof result->message, "%s", foley_source_error(stream->source));
    break;
  }
  case STREAM_SEEK:
    result->status = foley_source_seek(stream->source, request->position) == 0 ? FOLEY_OK : FOLEY_ERR_CORRUPT;
    if (result->status != FOLEY_OK) {
      snprintf(result->message, sizeof result->message, "%s", foley_source_error(stream->source));
    }
    break;
  default:
    close_stream(stream);
    result->status = FOLEY_OK;
  }
}

static void serve(int socket) {
  cached_mapping input_cache = {0, 0, NULL, 0};
  cached_mapping output_cache = {0, 0, NULL, 1};
  // A request that came within a millisecond of the last answer means a burst (a game loading its
  // sounds): the service then polls for the next one before it sleeps. A stream's reads, tens of
  // milliseconds apart, never make it poll, so a playing track costs no polling.
  enum { BURST_GAP_NS = 1000 * 1000 };
  int64_t answered = 0;
  int in_burst = 0;
  for (;;) {
    service_request request;
    int fds[2] = {-1, -1};
    int count = 0;
    if (in_burst) readable_soon(socket);
    ssize_t got = receive_with_fds(socket, &request, sizeof request, fds, &count);
    in_burst = answered != 0 && nanoseconds_now() - answered < BURST_GAP_NS;
    if (got <= 0) _exit(0);  // the game closed its end (or went)
    foley_decode_result result;
    memset(&result, 0, sizeof result);
    const void *bytes = MAP_FAILED;
    void *output = MAP_FAILED;
    if (got == sizeof request && request.kind >= STREAM_OPEN) {
      if (request.kind == STREAM_READ && count >= 1) output = mapped(&output_cache, fds[0], request.capacity, 1);
      serve_stream(&request, fds, count, output == MAP_FAILED ? NULL : output, &result);
      for (int index = 0; index < count; index++) close(fds[index]);
      if (send_with_fds(socket, &result, sizeof result, NULL, 0) != 0) _exit(0);
      answered = nanoseconds_now();
      continue;
    }
    if (got != sizeof request || count < 1 || request.length == 0) {
      result.status = FOLEY_ERR_ISOLATION;
      snprintf(result.message, sizeof result.message, "malformed request");
    } else {
      bytes = mapped(&input_cache, fds[0], request.length, 0);
      if (request.kind == JOB_DECODE && count == 2) {
        output = mapped(&output_cache, fds[1], request.out_offset + request.capacity, 1);
      }
      if (bytes == MAP_FAILED || (request.kind == JOB_DECODE && output == MAP_FAILED)) {
        result.status = FOLEY_ERR_NOMEM;
        snprintf(result.message, sizeof result.message, "cannot map the job's memory");
      } else {
        foley_run_job(bytes, request.length, request.kind == JOB_DECODE ? &request.target : NULL,
                      request.max_seconds,
                      request.kind == JOB_DECODE ? (char *)output + request.out_offset : NULL,
                      request.capacity, request.faults, &result);
      }
    }
    for (int index = 0; index < count; index++) close(fds[index]);
    if (send_with_fds(socket, &result, sizeof result, NULL, 0) != 0) _exit(0);
    answered = nanoseconds_now();
  }
}

// Ends the service when the game's end of the socket closes (the game exited, or was killed).
static void *watch_game(void *argument) {
  int socket = *(const int *)argument;
  for (;;) {
    struct pollfd watch = {socket, POLLRDHUP, 0};
    int ready = poll(&watch, 1, -1);
    if (ready > 0 && (watch.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))) _exit(0);
    if (ready < 0 && errno != EINTR) _exit(0);
  }
  return NULL;
}

// The game's executable, run again as the service: this runs before main and never returns.
__attribute__((constructor)) static void foley_service_entry(void) {
  const char *spec = getenv("FOLEY_DECODER_SERVICE");
  if (!spec) return;
  int socket = -1;
  long parent = 0;
  unsigned long long memory_limit = 0;
  if (sscanf(spec, "%d:%ld:%llu", &socket, &parent, &memory_limit) != 3 || socket < 0) _exit(2);
  if (getppid() != (pid_t)parent) _exit(1);
  // Dies with the game. Not through PR_SET_PDEATHSIG: that fires when the *thread* that started
  // the service ends, and Dispatch retires idle worker threads, so the service was being killed
  // under a playing stream. A watcher thread sees the game's end of the socket close instead,
  // even while the main thread is stuck in a decoder.
  static int watched;
  watched = socket;
  pthread_t watcher;
  if (pthread_create(&watcher, NULL, watch_game, &watched) != 0) _exit(1);
  foley_platform_name_process("foley-decoder");
  foley_prepare_isolated_process((size_t)memory_limit);
  // Fault injection for the tests of a slow start (FOLEY_DECODER_FAULTS=slow-start in the game).
  const char *faults = foley_decoder_faults();
  if (faults && strstr(faults, "slow-start")) sleep(3);
  char ready = 1;
  if (send_with_fds(socket, &ready, 1, NULL, 0) != 0) _exit(0);
  serve(socket);
  _exit(0);
}

// MARK: - The game's side

// One of the game's two buffers shared with the service (input bytes, output samples): shared memory
// mapped once, replaced by a larger one when a job needs more.
typedef struct {
  int fd;
  size_t size;
  void *address;
} job_buffer;

typedef struct {
  pid_t pid;
  int socket;
  int disabled;  // the service could not start: jobs fork a child each
  uint64_t starts;
  size_t memory_limit;  // what the service may add to its address space, kept for its restarts
  job_buffer input;
  job_buffer output;
  pthread_mutex_t lock;
  atomic_int visible_pid;  // `pid`, readable without the lock (which a stuck request holds)
} service_state;

// Two kinds of service: one for whole decodes and checks (shared by the process), and one per
// engine for the streams that play (foley_streaming, below), so a long decode never keeps a
// playing stream waiting, a stream's crash never fails a decode, and one engine's stuck stream
// never holds another engine's.
static service_state decoder = {0, -1, 0, 0, 0, {-1, 0, NULL}, {-1, 0, NULL}, PTHREAD_MUTEX_INITIALIZER};

// A prewarm's start of the decoder service is under way (set before its thread exists, cleared
// once the service is ready or failed), and the jobs that were forked meanwhile.
static atomic_int decoder_starting;
static atomic_ullong forks_while_starting;

// Makes `buffer` hold at least `size` bytes (rounded up to 1 MiB); 0 on success.
static int ensure_buffer(job_buffer *buffer, size_t size, const char *name) {
  if (buffer->fd >= 0 && buffer->size >= size) return 0;
  size_t rounded = (size + (1u << 20) - 1) & ~(size_t)((1u << 20) - 1);
  int fd = foley_platform_shared_memory(name);
  if (fd < 0) return -1;
  void *address = MAP_FAILED;
  if (ftruncate(fd, (off_t)rounded) == 0) {
    address = mmap(NULL, rounded, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
  }
  if (address == MAP_FAILED) {
    close(fd);
    return -1;
  }
  if (buffer->fd >= 0) {
    munmap(buffer->address, buffer->size);
    close(buffer->fd);
  }
  *buffer = (job_buffer){fd, rounded, address};
  return 0;
}


// MARK: - One engine's streaming service

// An engine's streaming service, and its way to give up on it: the engine is closing, and a
// service stuck in a decoder would otherwise hold the closing thread for the read's whole
// timeout. Giving up wakes whoever waits (the service's own wake-up); a waiter then gives the
// service a short grace to answer, and kills it.
struct foley_streaming {
  service_state service;
  atomic_int cancelled;
  atomic_int reads_waiting;  // 0 or 1: requests wait under the service's lock
  int wake[2];               // a wake-up (foley_platform_wake_make), -1 if none could be made
                             // (only the timeout ends a wait)
};

enum { CANCEL_GRACE_MS = 100 };

static int cancelled(const foley_streaming *streaming) {
  return streaming && atomic_load((atomic_int *)&streaming->cancelled);
}

enum { STOPPED_LOOK_MS = 200 };

// Whether process `pid` is stopped (SIGSTOP, SIGTSTP, a debugger): asked without reaping it, so
// its status stays for stop_service.
static int process_stopped(pid_t pid) {
  if (pid <= 0) return 0;
  siginfo_t info;
  memset(&info, 0, sizeof info);
  if (waitid(P_PID, (id_t)pid, &info, WSTOPPED | WNOHANG | WNOWAIT) != 0) return 0;
  return info.si_pid == pid && info.si_code == CLD_STOPPED;
}

// Waits until `socket` can be read, at most `timeout_ms` (or the grace once `streaming` gave up):
// 1 ready, 0 timed out or given up, 2 the service (`pid`) is stopped and cannot answer, -1 error.
// A stopped service is looked for every STOPPED_LOOK_MS: a service someone stopped is replaced
// within a fraction of a second, not after the whole timeout.
static int wait_readable(int socket, int timeout_ms, foley_streaming *streaming, pid_t pid) {
  // A decode or check (not a stream's read, whose caller is in no hurry) polls a moment before it
  // sleeps: a short job's answer is taken without a wake-up.
  if (!streaming && readable_soon(socket)) return 1;
  int64_t deadline = milliseconds_now() + timeout_ms;
  int watching = streaming && streaming->wake[0] >= 0;
  for (;;) {
    if (cancelled(streaming)) {
      int64_t grace = milliseconds_now() + CANCEL_GRACE_MS;
      if (grace < deadline) deadline = grace;
      watching = 0;
    }
    int64_t left = deadline - milliseconds_now();
    if (left <= 0) return 0;
    struct pollfd watch[2] = {{socket, POLLIN, 0}, {watching ? streaming->wake[0] : -1, POLLIN, 0}};
    int ready = poll(watch, watching ? 2 : 1, (int)(left < STOPPED_LOOK_MS ? left : STOPPED_LOOK_MS));
    if (ready > 0 && watch[0].revents) return 1;
    if (ready > 0 && watching && watch[1].revents) continue;  // given up: the loop's top sees it
    if (ready < 0 && errno != EINTR) return -1;
    if (ready == 0 && process_stopped(pid)) return 2;
  }
}

// Ends the service (killed if still running) and reaps it; returns its wait status.
static int stop_service(service_state *service, int kill_it) {
  int wait_status = 0;
  if (service->socket >= 0) close(service->socket);
  service->socket = -1;
  if (service->pid > 0) {
    if (kill_it) kill(service->pid, SIGKILL);
    while (waitpid(service->pid, &wait_status, 0) < 0 && errno == EINTR) {
    }
  }
  service->pid = 0;
  atomic_store(&service->visible_pid, 0);
  return wait_status;
}

static int start_service(service_state *service, size_t memory_limit) {
  int pair[2];
  if (foley_platform_message_sockets(pair) != 0) return -1;
  // The socket becomes fd 3 in the service and every other descriptor above 2 is closed there:
  // a service lives as long as the game, so any descriptor it inherited (a pipe the game had just
  // made for a child process of its own, say) would stay open as long, and whoever reads that
  // pipe would wait for ever for its end.
  enum { SERVICE_FD = 3 };
  char variable[96];
  snprintf(variable, sizeof variable, "FOLEY_DECODER_SERVICE=%d:%ld:%llu", SERVICE_FD, (long)getpid(),
           (unsigned long long)memory_limit);
  size_t count = 0;
  while (environ && environ[count]) count++;
  char **environment = calloc(count + 2, sizeof *environment);
  if (!environment) {
    close(pair[0]);
    close(pair[1]);
    return -1;
  }
  size_t used = 0;
  for (size_t index = 0; index < count; index++) {
    if (strncmp(environ[index], "FOLEY_DECODER_SERVICE=", 22) != 0) environment[used++] = environ[index];
  }
  environment[used++] = variable;
  environment[used] = NULL;
  char *arguments[] = {"foley-decoder", NULL};
  pid_t pid = 0;
  int failed = foley_platform_spawn_self(pair[1], SERVICE_FD, arguments, environment, &pid);
  free(environment);
  close(pair[1]);
  if (failed) {
    close(pair[0]);
    return -1;
  }
  service->pid = pid;
  atomic_store(&service->visible_pid, pid);
  service->socket = pair[0];
  // The service says it is ready once its constructor runs; a binary without it never does.
  char ready = 0;
  int fds[2];
  int received = 0;
  if (wait_readable(service->socket, 10000, NULL, service->pid) != 1 ||
      receive_with_fds(service->socket, &ready, 1, fds, &received) != 1 || ready != 1) {
    stop_service(service, 1);
    return -1;
  }
  service->starts++;
  service->memory_limit = memory_limit;
  return 0;
}

// Starts `service` unless it runs, with its lock held; a start that fails disables it for good
// (its jobs fork a child each): 0 when it runs, -1 otherwise.
static int ensure_started(service_state *service, size_t memory_limit) {
  if (service->pid != 0) return 0;
  if (service->disabled) return -1;
  // A restart asked without a limit keeps the one the service was first given: a limit of 0
  // would make the new service's address space its size at start, too small for any decode.
  if (memory_limit == 0) memory_limit = service->memory_limit;
  if (start_service(service, memory_limit) == 0) return 0;
  service->disabled = 1;
  return -1;
}

enum { SERVICE_GONE = -2 };

// Sends `request` (with `fds`) and takes the report, with the service's lock held: 0 answered,
// 1 the service crashed or ran past `timeout_ms` (the report says which; the service is gone),
// -1 no service could be had, SERVICE_GONE the service had gone between requests and
// `resend` was 0 (a stream's request, which only the service it was opened in can answer).
static int exchange(service_state *service, const service_request *request, const int *fds, int fd_count,
                    int timeout_ms, size_t memory_limit, foley_streaming *streaming, int resend,
                    foley_decode_result *result) {
  for (int attempt = 0; attempt < 2; attempt++) {
    if (ensure_started(service, memory_limit) != 0) break;
    if (send_with_fds(service->socket, request, sizeof *request, fds, fd_count) != 0) {
      stop_service(service, 1);  // it had gone between jobs: start another and send again
      if (!resend) return SERVICE_GONE;
      continue;
    }
    int counted = streaming && request->kind == STREAM_READ;
    if (counted) atomic_fetch_add(&streaming->reads_waiting, 1);
    int ready = wait_readable(service->socket, timeout_ms, streaming, service->pid);
    if (counted) atomic_fetch_sub(&streaming->reads_waiting, 1);
    if (ready == 2) {
      // Stopped, it would answer only when someone continues it: killed, and reported as a
      // killed service is, so that a stream reopens where it was in a new one.
      stop_service(service, 1);
      memset(result, 0, sizeof *result);
      result->status = FOLEY_ERR_CRASHED;
      result->signal = SIGKILL;
      snprintf(result->message, sizeof result->message, "the decoding service was stopped; it was replaced");
      return 1;
    }
    if (ready == 0) {
      stop_service(service, 1);
      memset(result, 0, sizeof *result);
      result->status = FOLEY_ERR_TIMED_OUT;
      if (cancelled(streaming)) {
        snprintf(result->message, sizeof result->message, "stopped waiting for the decoder: the engine closed");
      } else {
        snprintf(result->message, sizeof result->message, "still decoding after %d ms", timeout_ms);
      }
      return 1;
    }
    int none[2];
    int received = 0;
    ssize_t got = ready == 1 ? receive_with_fds(service->socket, result, sizeof *result, none, &received) : -1;
    for (int index = 0; index < received; index++) close(none[index]);
    if (got == (ssize_t)sizeof *result) return 0;
    // The service died on this job: how it died is the job's outcome.
    int wait_status = stop_service(service, 0);
    memset(result, 0, sizeof *result);
    result->status = FOLEY_ERR_CRASHED;
    if (WIFSIGNALED(wait_status)) {
      result->signal = WTERMSIG(wait_status);
      snprintf(result->message, sizeof result->message, "%s (signal %d)", strsignal(result->signal), result->signal);
    } else {
      snprintf(result->message, sizeof result->message, "the decoder exited with status %d",
               WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1);
    }
    return 1;
  }
  return -1;
}

// Up to how much resident memory a job forks while the service starts: 128 MiB, or
// FOLEY_DECODER_FORK_LIMIT_MIB (0: never).
static size_t fork_while_starting_limit(void) {
  const char *text = getenv("FOLEY_DECODER_FORK_LIMIT_MIB");
  if (!text || !*text) return (size_t)128 << 20;
  char *end = NULL;
  unsigned long long mebibytes = strtoull(text, &end, 10);
  if (*end || mebibytes > (1ull << 20)) return (size_t)128 << 20;
  return (size_t)mebibytes << 20;
}

static void *prewarm_decoder(void *argument) {
  size_t memory_limit = (size_t)(uintptr_t)argument;
  pthread_mutex_lock(&decoder.lock);
  ensure_started(&decoder, memory_limit);
  atomic_store(&decoder_starting, 0);
  pthread_mutex_unlock(&decoder.lock);
  return NULL;
}

void foley_service_prewarm(size_t memory_limit) {
  if (getenv("FOLEY_DECODER_SERVICE_OFF") || atomic_load(&decoder.visible_pid) != 0) return;
  int idle = 0;
  if (!atomic_compare_exchange_strong(&decoder_starting, &idle, 1)) return;
  pthread_attr_t attributes;
  pthread_t thread;
  int made = pthread_attr_init(&attributes) == 0 &&
             pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED) == 0 &&
             pthread_create(&thread, &attributes, prewarm_decoder, (void *)(uintptr_t)memory_limit) == 0;
  pthread_attr_destroy(&attributes);
  if (!made) atomic_store(&decoder_starting, 0);
}

int foley_service_starting(void) { return atomic_load(&decoder_starting); }

uint64_t foley_service_forks_while_starting(void) { return atomic_load(&forks_while_starting); }

int foley_service_run(const void *bytes, size_t length, const foley_target *target, double max_seconds,
                      int timeout_ms, size_t memory_limit, size_t capacity, int faults, foley_decode_result *result,
                      void **samples) {
  if (getenv("FOLEY_DECODER_SERVICE_OFF")) return -1;
  if (samples) *samples = NULL;
  // The service is still starting (about 20 ms: the game's executable, run again, loads every
  // library it links): a game that is still small forks a child for this job rather than wait.
  if (atomic_load(&decoder_starting)) {
    size_t resident = foley_platform_memory_bytes(1);
    if (resident > 0 && resident <= fork_while_starting_limit()) {
      atomic_fetch_add(&forks_while_starting, 1);
      return -1;
    }
  }
  service_state *service = &decoder;
  pthread_mutex_lock(&service->lock);
  if (service->disabled || ensure_buffer(&service->input, length, "foley-job-in") != 0 ||
      (target && ensure_buffer(&service->output, capacity, "foley-job-out") != 0)) {
    pthread_mutex_unlock(&service->lock);
    return -1;
  }
  memcpy(service->input.address, bytes, length);
  service_request request;
  memset(&request, 0, sizeof request);
  request.kind = target ? JOB_DECODE : JOB_CHECK;
  request.faults = (uint32_t)faults;
  request.length = length;
  if (target) request.target = *target;
  request.max_seconds = max_seconds;
  request.capacity = capacity;
  int fds[2] = {service->input.fd, service->output.fd};
  int outcome = exchange(service, &request, fds, target ? 2 : 1, timeout_ms, memory_limit, NULL, 1, result);
  // The samples leave the shared buffer while the lock still keeps other jobs out of it; the
  // service's report is bounds-checked first.
  if (outcome == 0 && target && samples && result->status == FOLEY_OK) {
    size_t frame_bytes = (size_t)target->channels * (target->is_float ? 4 : 2);
    if (result->frames > 0 && (size_t)result->frames <= capacity / frame_bytes) {
      size_t used = (size_t)result->frames * frame_bytes;
      *samples = SDL_malloc(used);
      if (*samples) {
        memcpy(*samples, service->output.address, used);
      } else {
        result->status = FOLEY_ERR_NOMEM;
      }
    }
  }
  pthread_mutex_unlock(&service->lock);
  return outcome < 0 ? -1 : result->status;
}

uint64_t foley_service_starts(void) {
  pthread_mutex_lock(&decoder.lock);
  uint64_t starts = decoder.starts;
  pthread_mutex_unlock(&decoder.lock);
  return starts;
}

int32_t foley_service_pid(void) { return atomic_load(&decoder.visible_pid); }

int foley_shared_memory(const char *name) { return foley_platform_shared_memory(name); }

// MARK: - Streams in the service

foley_streaming *foley_streaming_make(void) {
  foley_streaming *streaming = calloc(1, sizeof *streaming);
  if (!streaming) return NULL;
  streaming->service.socket = -1;
  streaming->service.input.fd = -1;
  streaming->service.output.fd = -1;
  pthread_mutex_init(&streaming->service.lock, NULL);
  atomic_init(&streaming->service.visible_pid, 0);
  atomic_init(&streaming->cancelled, 0);
  atomic_init(&streaming->reads_waiting, 0);
  foley_platform_wake_make(streaming->wake);
  return streaming;
}

void foley_streaming_cancel(foley_streaming *streaming) {
  if (!streaming) return;
  atomic_store(&streaming->cancelled, 1);
  foley_platform_wake_signal(streaming->wake);
}

static void free_buffer(job_buffer *buffer) {
  if (buffer->address) munmap(buffer->address, buffer->size);
  if (buffer->fd >= 0) close(buffer->fd);
  *buffer = (job_buffer){-1, 0, NULL};
}

void foley_streaming_stop(foley_streaming *streaming) {
  if (!streaming) return;
  pthread_mutex_lock(&streaming->service.lock);
  stop_service(&streaming->service, 1);
  pthread_mutex_unlock(&streaming->service.lock);
}

void foley_streaming_free(foley_streaming *streaming) {
  if (!streaming) return;
  foley_streaming_stop(streaming);
  free_buffer(&streaming->service.input);
  free_buffer(&streaming->service.output);
  foley_platform_wake_close(streaming->wake);
  pthread_mutex_destroy(&streaming->service.lock);
  free(streaming);
}

int foley_streaming_prewarm(foley_streaming *streaming, size_t memory_limit) {
  if (!streaming || cancelled(streaming) || getenv("FOLEY_DECODER_SERVICE_OFF")) return -1;
  service_state *service = &streaming->service;
  pthread_mutex_lock(&service->lock);
  int outcome = 0;
  if (cancelled(streaming)) {
    outcome = -1;  // the engine closed while this waited for the lock: no new service
  } else {
    outcome = ensure_started(service, memory_limit);
  }
  pthread_mutex_unlock(&service->lock);
  return outcome;
}

int32_t foley_streaming_pid(const foley_streaming *streaming) {
  return streaming ? atomic_load((atomic_int *)&streaming->service.visible_pid) : 0;
}

int foley_streaming_reads_waiting(const foley_streaming *streaming) {
  return streaming ? atomic_load((atomic_int *)&streaming->reads_waiting) : 0;
}

struct foley_remote {
  foley_streaming *streaming;
  uint64_t id;
  uint64_t generation;  // the streaming service's start the stream lives in
  int channels;
  int timeout_ms;
  // What reopens the stream in a new service when its own one is lost between requests: the
  // bytes' shared memory (the caller keeps it open as long as the remote), their length, the limit, and
  // where the decoder is (frames since the last seek).
  int fd;
  size_t length;
  size_t memory_limit;
  int64_t position;
  int reopens;
  char title[256], artist[256], album[256], bpm[32];
  char error[256];
};

static void remote_failed(foley_remote *remote, const char *message) {
  snprintf(remote->error, sizeof remote->error, "%s", message);
}

// Opens the remote's stream in its streaming service (started if need be), with the service's
// lock held: 0 and the stream's id, generation and `info`, or -1 with `status` and `error`.
static int open_in_service(foley_remote *remote, foley_info *info, foley_decode_result *result, int *status,
                           char *error, size_t error_size) {
  service_request request;
  memset(&request, 0, sizeof request);
  request.kind = STREAM_OPEN;
  request.length = remote->length;
  memset(result, 0, sizeof *result);
  service_state *service = &remote->streaming->service;
  int outcome = exchange(service, &request, &remote->fd, 1, remote->timeout_ms, remote->memory_limit,
                         remote->streaming, 1, result);
  if (outcome < 0 || result->status != FOLEY_OK) {
    if (status) *status = outcome < 0 ? FOLEY_ERR_ISOLATION : result->status;
    if (error && error_size) {
      result->message[sizeof result->message - 1] = 0;
      snprintf(error, error_size, "%s", outcome < 0 ? "no decoding service" : result->message);
    }
    return -1;
  }
  // The service's report is not trusted beyond its shape.
  if (result->info.channels < 1 || result->info.channels > FOLEY_MAX_CHANNELS || result->info.sample_rate < 1000 ||
      result->info.sample_rate > 384000 || (remote->channels && result->info.channels != remote->channels)) {
    if (status) *status = FOLEY_ERR_CRASHED;
    if (error && error_size) snprintf(error, error_size, "the decoder reported an impossible format");
    return -1;
  }
  remote->id = (uint64_t)result->frames;
  remote->generation = service->starts;
  remote->position = 0;
  *info = result->info;
  return 0;
}

foley_remote *foley_remote_open(foley_streaming *streaming, int fd, size_t length, int timeout_ms,
                                size_t memory_limit, foley_info *info, int *status, char *error,
                                size_t error_size) {
  if (cancelled(streaming)) {
    if (status) *status = FOLEY_ERR_TIMED_OUT;
    if (error && error_size) snprintf(error, error_size, "the engine closed");
    return NULL;
  }
  foley_remote *remote = calloc(1, sizeof *remote);
  if (!remote || !streaming || fd < 0 || length == 0 || getenv("FOLEY_DECODER_SERVICE_OFF")) {
    free(remote);
    if (status) *status = FOLEY_ERR_ISOLATION;
    if (error && error_size) snprintf(error, error_size, "no decoding service");
    return NULL;
  }
  remote->streaming = streaming;
  remote->timeout_ms = timeout_ms;
  remote->fd = fd;
  remote->length = length;
  remote->memory_limit = memory_limit;
  foley_decode_result result;
  service_state *service = &streaming->service;
  pthread_mutex_lock(&service->lock);
  int opened = open_in_service(remote, info, &result, status, error, error_size);
  pthread_mutex_unlock(&service->lock);
  if (opened != 0) {
    free(remote);
    return NULL;
  }
  remote->channels = result.info.channels;
  memcpy(remote->title, result.title, sizeof remote->title - 1);
  memcpy(remote->artist, result.artist, sizeof remote->artist - 1);
  memcpy(remote->album, result.album, sizeof remote->album - 1);
  memcpy(remote->bpm, result.bpm, sizeof remote->bpm - 1);
  if (status) *status = FOLEY_OK;
  return remote;
}

// One stream request with the streaming service's lock held: 0 answered; otherwise the remote's
// error says why, and the result is SERVICE_GONE when the service had gone (between requests, or
// killed by SIGKILL as an out-of-memory killer would) rather than failed on this stream, -1 else.
static int remote_request(foley_remote *remote, service_request *request, float *out, int64_t frames,
                          foley_decode_result *result) {
  if (cancelled(remote->streaming)) {
    remote_failed(remote, "the engine closed");
    return -1;
  }
  service_state *service = &remote->streaming->service;
  pthread_mutex_lock(&service->lock);
  if (service->pid == 0 || service->starts != remote->generation) {
    pthread_mutex_unlock(&service->lock);
    remote_failed(remote, "the decoding service stopped");
    return SERVICE_GONE;
  }
  size_t bytes = (size_t)frames * (size_t)remote->channels * sizeof(float);
  int fd = -1;
  if (out) {
    if (ensure_buffer(&service->output, bytes, "foley-stream-out") != 0) {
      pthread_mutex_unlock(&service->lock);
      remote_failed(remote, "out of memory");
      return -1;
    }
    fd = service->output.fd;
    request->capacity = bytes;
  }
  request->stream = remote->id;
  int outcome = exchange(service, request, &fd, out ? 1 : 0, remote->timeout_ms, remote->memory_limit,
                         remote->streaming, 0, result);
  if (outcome == 0 && out && result->status == FOLEY_OK && result->frames > 0) {
    if (result->frames > frames) {
      result->status = FOLEY_ERR_CRASHED;
      snprintf(result->message, sizeof result->message, "the decoder reported an impossible length");
    } else {
      memcpy(out, service->output.address, (size_t)result->frames * (size_t)remote->channels * sizeof(float));
    }
  }
  pthread_mutex_unlock(&service->lock);
  if (outcome != 0 || result->status != FOLEY_OK) {
    result->message[sizeof result->message - 1] = 0;
    remote_failed(remote, outcome == SERVICE_GONE ? "the decoding service stopped"
                          : outcome < 0          ? "no decoding service"
                                                 : result->message);
    int killed = outcome == 1 && result->status == FOLEY_ERR_CRASHED && result->signal == SIGKILL;
    return outcome == SERVICE_GONE || killed ? SERVICE_GONE : -1;
  }
  // The decoder's place, for a reopen in a new service.
  if (request->kind == STREAM_READ) remote->position += result->frames;
  if (request->kind == STREAM_SEEK) remote->position = request->position;
  return 0;
}

enum { MAX_REOPENS = 3 };

// The remote's service was lost: opens the stream again in a new one at the frame it had reached.
// 0 when it can go on (at most MAX_REOPENS times in its life: a stream whose service is killed
// every time fails).
static int reopen(foley_remote *remote) {
  if (remote->reopens >= MAX_REOPENS || cancelled(remote->streaming)) return -1;
  remote->reopens++;
  int64_t position = remote->position;
  foley_info info;
  foley_decode_result result;
  char error[sizeof remote->error];
  service_state *service = &remote->streaming->service;
  pthread_mutex_lock(&service->lock);
  int opened = open_in_service(remote, &info, &result, NULL, error, sizeof error);
  pthread_mutex_unlock(&service->lock);
  if (opened != 0) {
    remote_failed(remote, error);
    return -1;
  }
  if (position > 0) {
    service_request request;
    memset(&request, 0, sizeof request);
    request.kind = STREAM_SEEK;
    request.position = position;
    memset(&result, 0, sizeof result);
    if (remote_request(remote, &request, NULL, 0, &result) != 0) return -1;
  }
  return 0;
}

// A stream's request, sent again once in a new service (reopened at the frame reached) each time
// its own service is found lost: 0 answered, -1 failed (the remote's error says why).
static int request_reopening(foley_remote *remote, service_request *request, float *out, int64_t frames,
                             foley_decode_result *result) {
  for (;;) {
    memset(result, 0, sizeof *result);
    int outcome = remote_request(remote, request, out, frames, result);
    if (outcome == 0) return 0;
    if (outcome != SERVICE_GONE || reopen(remote) != 0) return -1;
  }
}

int64_t foley_remote_read(foley_remote *remote, float *out, int64_t frames) {
  if (!remote || !out || frames <= 0) return 0;
  service_request request;
  memset(&request, 0, sizeof request);
  request.kind = STREAM_READ;
  request.position = frames;
  request.faults = foley_decoder_faults() != NULL;
  foley_decode_result result;
  if (request_reopening(remote, &request, out, frames, &result) != 0) return -1;
  return result.frames;
}

int foley_remote_seek(foley_remote *remote, int64_t frame) {
  if (!remote || frame < 0) return -1;
  service_request request;
  memset(&request, 0, sizeof request);
  request.kind = STREAM_SEEK;
  request.position = frame;
  foley_decode_result result;
  return request_reopening(remote, &request, NULL, 0, &result);
}

int foley_remote_tag(foley_remote *remote, const char *key, char *out, size_t out_size) {
  if (!remote || !key || !out || out_size == 0) return 0;
  const char *value = strcmp(key, "TITLE") == 0 ? remote->title
                      : strcmp(key, "ARTIST") == 0 ? remote->artist
                      : strcmp(key, "ALBUM") == 0 ? remote->album
                      : strcmp(key, "BPM") == 0 ? remote->bpm : "";
  if (!value[0]) return 0;
  snprintf(out, out_size, "%s", value);
  return 1;
}

const char *foley_remote_error(foley_remote *remote) { return remote ? remote->error : ""; }

void foley_remote_close(foley_remote *remote) {
  if (!remote) return;
  service_request request;
  memset(&request, 0, sizeof request);
  request.kind = STREAM_CLOSE;
  foley_decode_result result;
  service_state *service = &remote->streaming->service;
  pthread_mutex_lock(&service->lock);
  if (service->pid != 0 && service->starts == remote->generation) {
    request.stream = remote->id;
    exchange(service, &request, NULL, 0, remote->timeout_ms, remote->memory_limit, remote->streaming, 0, &result);
  }
  pthread_mutex_unlock(&service->lock);
  free(remote);
}

