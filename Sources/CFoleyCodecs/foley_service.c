// The decoding service: one long-lived helper process that decodes every sound and checks every
// track the game hands it, so that no decoder bug can take the game down, at the cost of a
// message rather than a fork per job.
//
// The service is the game's own executable run again (/proc/self/exe) with FOLEY_DECODER_SERVICE
// in its environment: the constructor below sees it before any Swift code runs, serves requests
// on the socket it was given, and never returns. It starts small (a fresh process, not a copy of
// a game that has grown to a gigabyte, whose fork costs tens of milliseconds and whose pages it
// would keep), lowers its own limits once, and dies with the game (PR_SET_PDEATHSIG).
//
// The game sends each job's bytes in a memfd and gets the decoded samples back in the memfd
// behind its output mapping (foley_shared_alloc), with a fixed-size report over the socket. A
// crash closes the socket (the job fails as crashed, with the signal); a job that runs past its
// time gets the service killed (timed out); either way the next job starts a new service. If the
// service cannot start at all, jobs fall back to a forked child each.
#define _GNU_SOURCE
#include "codec_internal.h"
#include "foley_service.h"
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
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

// MARK: - Shared mappings

// Every mapping foley_shared_alloc made, with the memfd behind it, so a job can send it.
typedef struct {
  void *address;
  size_t size;
  int fd;
} shared_mapping;

#define MAPPING_SLOTS 256
static shared_mapping mappings[MAPPING_SLOTS];
static pthread_mutex_t mappings_lock = PTHREAD_MUTEX_INITIALIZER;

void *foley_shared_alloc(size_t size) {
  int fd = memfd_create("foley-shared", MFD_CLOEXEC);
  if (fd >= 0 && ftruncate(fd, (off_t)size) != 0) {
    close(fd);
    fd = -1;
  }
  void *memory = fd >= 0 ? mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0)
                         : mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) {
    if (fd >= 0) close(fd);
    return NULL;
  }
  pthread_mutex_lock(&mappings_lock);
  int recorded = 0;
  for (int slot = 0; slot < MAPPING_SLOTS && !recorded; slot++) {
    if (mappings[slot].address == NULL) {
      mappings[slot] = (shared_mapping){memory, size, fd};
      recorded = 1;
    }
  }
  pthread_mutex_unlock(&mappings_lock);
  if (!recorded && fd >= 0) close(fd);  // still shared with a forked child; not with the service
  return memory;
}

void foley_shared_free(void *memory, size_t size) {
  if (!memory) return;
  pthread_mutex_lock(&mappings_lock);
  for (int slot = 0; slot < MAPPING_SLOTS; slot++) {
    if (mappings[slot].address == memory) {
      if (mappings[slot].fd >= 0) close(mappings[slot].fd);
      mappings[slot] = (shared_mapping){NULL, 0, -1};
      break;
    }
  }
  pthread_mutex_unlock(&mappings_lock);
  munmap(memory, size);
}

// The memfd behind the mapping that holds [address, address + length), and the offset in it.
static int mapping_fd(const void *address, size_t length, size_t *offset) {
  int fd = -1;
  pthread_mutex_lock(&mappings_lock);
  for (int slot = 0; slot < MAPPING_SLOTS; slot++) {
    const char *start = mappings[slot].address;
    if (start && (const char *)address >= start && (const char *)address + length <= start + mappings[slot].size) {
      fd = mappings[slot].fd;
      *offset = (size_t)((const char *)address - start);
      break;
    }
  }
  pthread_mutex_unlock(&mappings_lock);
  return fd;
}

// MARK: - The protocol

enum { JOB_DECODE = 1, JOB_CHECK = 2 };

typedef struct {
  uint32_t kind;
  uint32_t faults;  // FOLEY_DECODER_FAULTS was set in the game (tests of containment)
  uint64_t length;  // input bytes in the first fd
  foley_target target;
  double max_seconds;
  uint64_t out_offset;  // where the output starts in the second fd (decodes)
  uint64_t capacity;
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
    sent = sendmsg(socket, &message, MSG_NOSIGNAL);
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
    got = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
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

static void serve(int socket) {
  for (;;) {
    service_request request;
    int fds[2] = {-1, -1};
    int count = 0;
    ssize_t got = receive_with_fds(socket, &request, sizeof request, fds, &count);
    if (got <= 0) _exit(0);  // the game closed its end (or went)
    foley_decode_result result;
    memset(&result, 0, sizeof result);
    const void *bytes = MAP_FAILED;
    void *output = MAP_FAILED;
    size_t output_size = 0;
    if (got != sizeof request || count < 1 || request.length == 0) {
      result.status = FOLEY_ERR_ISOLATION;
      snprintf(result.message, sizeof result.message, "malformed request");
    } else {
      bytes = mmap(NULL, request.length, PROT_READ, MAP_PRIVATE, fds[0], 0);
      if (request.kind == JOB_DECODE && count == 2) {
        output_size = request.out_offset + request.capacity;
        output = mmap(NULL, output_size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[1], 0);
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
    if (bytes != MAP_FAILED) munmap((void *)bytes, request.length);
    if (output != MAP_FAILED) munmap(output, output_size);
    for (int index = 0; index < count; index++) close(fds[index]);
    if (send_with_fds(socket, &result, sizeof result, NULL, 0) != 0) _exit(0);
  }
}

// The game's executable, run again as the service: this runs before main and never returns.
__attribute__((constructor)) static void foley_service_entry(void) {
  const char *spec = getenv("FOLEY_DECODER_SERVICE");
  if (!spec) return;
  int socket = -1;
  long parent = 0;
  unsigned long long memory_limit = 0;
  if (sscanf(spec, "%d:%ld:%llu", &socket, &parent, &memory_limit) != 3 || socket < 0) _exit(2);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != (pid_t)parent) _exit(1);
  prctl(PR_SET_NAME, "foley-decoder");
  foley_prepare_isolated_process((size_t)memory_limit);
  char ready = 1;
  if (send_with_fds(socket, &ready, 1, NULL, 0) != 0) _exit(0);
  serve(socket);
  _exit(0);
}

// MARK: - The game's side

static struct {
  pid_t pid;
  int socket;
  int disabled;  // the service could not start: jobs fork a child each
  uint64_t starts;
} service = {0, -1, 0, 0};
static pthread_mutex_t service_lock = PTHREAD_MUTEX_INITIALIZER;

static int64_t milliseconds_now(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

// Waits until `socket` can be read, at most `timeout_ms`: 1 ready, 0 timed out, -1 error.
static int wait_readable(int socket, int timeout_ms) {
  int64_t deadline = milliseconds_now() + timeout_ms;
  for (;;) {
    int64_t left = deadline - milliseconds_now();
    if (left <= 0) return 0;
    struct pollfd watch = {socket, POLLIN, 0};
    int ready = poll(&watch, 1, (int)left);
    if (ready > 0) return 1;
    if (ready < 0 && errno != EINTR) return -1;
  }
}

// Ends the service (killed if still running) and reaps it; returns its wait status.
static int stop_service(int kill_it) {
  int wait_status = 0;
  if (service.socket >= 0) close(service.socket);
  service.socket = -1;
  if (service.pid > 0) {
    if (kill_it) kill(service.pid, SIGKILL);
    while (waitpid(service.pid, &wait_status, 0) < 0 && errno == EINTR) {
    }
  }
  service.pid = 0;
  return wait_status;
}

static int start_service(size_t memory_limit) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) return -1;
  enum { SERVICE_FD = 199 };
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
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pair[1], SERVICE_FD);  // dup2 leaves the copy open across exec
  char *arguments[] = {"foley-decoder", NULL};
  pid_t pid = 0;
  int failed = posix_spawn(&pid, "/proc/self/exe", &actions, NULL, arguments, environment);
  posix_spawn_file_actions_destroy(&actions);
  free(environment);
  close(pair[1]);
  if (failed) {
    close(pair[0]);
    return -1;
  }
  service.pid = pid;
  service.socket = pair[0];
  // The service says it is ready once its constructor runs; a binary without it never does.
  char ready = 0;
  int fds[2];
  int received = 0;
  if (wait_readable(service.socket, 10000) != 1 ||
      receive_with_fds(service.socket, &ready, 1, fds, &received) != 1 || ready != 1) {
    stop_service(1);
    return -1;
  }
  service.starts++;
  return 0;
}

int foley_service_run(const void *bytes, size_t length, const foley_target *target, double max_seconds,
                      int timeout_ms, size_t memory_limit, void *out, size_t capacity, int faults,
                      foley_decode_result *result) {
  if (getenv("FOLEY_DECODER_SERVICE_OFF")) return -1;
  size_t out_offset = 0;
  int out_fd = -1;
  if (target) {
    out_fd = mapping_fd(out, capacity, &out_offset);
    if (out_fd < 0) return -1;
  }
  int input = memfd_create("foley-job", MFD_CLOEXEC);
  if (input < 0) return -1;
  size_t written = 0;
  while (written < length) {
    ssize_t wrote = write(input, (const char *)bytes + written, length - written);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      close(input);
      return -1;
    }
    written += (size_t)wrote;
  }
  service_request request;
  memset(&request, 0, sizeof request);
  request.kind = target ? JOB_DECODE : JOB_CHECK;
  request.faults = (uint32_t)faults;
  request.length = length;
  if (target) request.target = *target;
  request.max_seconds = max_seconds;
  request.out_offset = out_offset;
  request.capacity = capacity;
  int fds[2] = {input, out_fd};

  pthread_mutex_lock(&service_lock);
  int outcome = -1;
  for (int attempt = 0; attempt < 2 && outcome == -1; attempt++) {
    if (service.disabled) break;
    if (service.pid == 0 && start_service(memory_limit) != 0) {
      service.disabled = 1;
      break;
    }
    if (send_with_fds(service.socket, &request, sizeof request, fds, target ? 2 : 1) != 0) {
      stop_service(1);  // it had gone between jobs: start another and send again
      continue;
    }
    int ready = wait_readable(service.socket, timeout_ms);
    if (ready == 0) {
      stop_service(1);
      memset(result, 0, sizeof *result);
      result->status = FOLEY_ERR_TIMED_OUT;
      snprintf(result->message, sizeof result->message, "still decoding after %d ms", timeout_ms);
      outcome = 1;
      break;
    }
    int none[2];
    int received = 0;
    ssize_t got = ready == 1 ? receive_with_fds(service.socket, result, sizeof *result, none, &received) : -1;
    for (int index = 0; index < received; index++) close(none[index]);
    if (got == (ssize_t)sizeof *result) {
      outcome = 0;
      break;
    }
    // The service died on this job: how it died is the job's outcome.
    int wait_status = stop_service(0);
    memset(result, 0, sizeof *result);
    result->status = FOLEY_ERR_CRASHED;
    if (WIFSIGNALED(wait_status)) {
      result->signal = WTERMSIG(wait_status);
      snprintf(result->message, sizeof result->message, "%s (signal %d)", strsignal(result->signal), result->signal);
    } else {
      snprintf(result->message, sizeof result->message, "the decoder exited with status %d",
               WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1);
    }
    outcome = 1;
  }
  pthread_mutex_unlock(&service_lock);
  close(input);
  return outcome < 0 ? -1 : result->status;
}

uint64_t foley_service_starts(void) {
  pthread_mutex_lock(&service_lock);
  uint64_t starts = service.starts;
  pthread_mutex_unlock(&service_lock);
  return starts;
}

int32_t foley_service_pid(void) {
  pthread_mutex_lock(&service_lock);
  int32_t pid = service.pid;
  pthread_mutex_unlock(&service_lock);
  return pid;
}
