// The platform seam in POSIX calls only, for macOS and every platform but Linux (and for Linux
// built with FOLEY_PORTABLE=1, where CI tests it). See foley_platform.h.
#if defined(__linux__)
#define _GNU_SOURCE  // glibc declares pthread_setname_np only then
#endif
#include "foley_platform.h"

#if FOLEY_PLATFORM_POSIX
#include "include/foley_codecs.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__APPLE__)
#include <mach-o/dyld.h>
#endif

const char *foley_platform_name(void) { return "posix"; }

static int close_on_exec(int fd) {
  int flags = fcntl(fd, F_GETFD);
  return flags < 0 ? -1 : fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

int foley_platform_shared_memory(const char *name) {
  // A POSIX shared-memory object under a name no one else uses, unlinked at once: only the
  // descriptor (and the mappings) keep it.
  static atomic_uint serial;
  char path[64];
  for (int attempt = 0; attempt < 8; attempt++) {
    snprintf(path, sizeof path, "/foley-%ld-%u-%.16s", (long)getpid(), atomic_fetch_add(&serial, 1), name);
    for (char *cursor = path + 1; *cursor; cursor++) {
      if (*cursor == '/') *cursor = '-';
    }
    int fd = shm_open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) return -1;
    shm_unlink(path);
    if (close_on_exec(fd) != 0) {
      close(fd);
      return -1;
    }
    return fd;
  }
  errno = EEXIST;
  return -1;
}

int foley_platform_message_sockets(int pair[2]) {
  if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair) != 0) return -1;
  for (int side = 0; side < 2; side++) {
#if defined(SO_NOSIGPIPE)
    int on = 1;
    setsockopt(pair[side], SOL_SOCKET, SO_NOSIGPIPE, &on, sizeof on);
#endif
    if (close_on_exec(pair[side]) != 0) {
      close(pair[0]);
      close(pair[1]);
      return -1;
    }
  }
  return 0;
}

ssize_t foley_platform_send(int socket, const struct msghdr *message) {
#if defined(MSG_NOSIGNAL)
  return sendmsg(socket, message, MSG_NOSIGNAL);
#else
  return sendmsg(socket, message, 0);  // SO_NOSIGPIPE is set on the socket
#endif
}

ssize_t foley_platform_receive(int socket, struct msghdr *message) {
  ssize_t got = recvmsg(socket, message, 0);
  if (got <= 0) return got;
  // Each received descriptor closed on exec, as Linux's receive flag does in the call (here
  // another thread's exec in between would leak it to that program: the window is this loop).
  for (struct cmsghdr *header = CMSG_FIRSTHDR(message); header; header = CMSG_NXTHDR(message, header)) {
    if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
    int received = (int)((header->cmsg_len - CMSG_LEN(0)) / sizeof(int));
    for (int index = 0; index < received; index++) {
      int fd;
      memcpy(&fd, CMSG_DATA(header) + sizeof(int) * (size_t)index, sizeof fd);
      close_on_exec(fd);
    }
  }
  return got;
}

int foley_platform_pipe(int ends[2]) {
  if (pipe(ends) != 0) return -1;
  if (close_on_exec(ends[0]) != 0 || close_on_exec(ends[1]) != 0) {
    close(ends[0]);
    close(ends[1]);
    return -1;
  }
  return 0;
}

int foley_platform_wake_make(int ends[2]) {
  if (foley_platform_pipe(ends) != 0) {
    ends[0] = -1;
    ends[1] = -1;
    return -1;
  }
  // A full pipe means the waiter has been woken already: the write end must not block.
  fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK);
  return 0;
}

void foley_platform_wake_signal(const int ends[2]) {
  char one = 1;
  if (ends[1] >= 0 && write(ends[1], &one, 1) < 0) {
    // Full (the waiter has not read: it is awake already).
  }
}

void foley_platform_wake_close(int ends[2]) {
  if (ends[0] >= 0) close(ends[0]);
  if (ends[1] >= 0) close(ends[1]);
  ends[0] = -1;
  ends[1] = -1;
}

size_t foley_platform_memory_bytes(int field) {
  // No portable way to read the address space or the resident size now: the peak resident
  // size, which only grows (kilobytes on Linux, bytes on macOS).
  if (field != 1) return 0;
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
#if defined(__APPLE__)
  return (size_t)usage.ru_maxrss;
#else
  return (size_t)usage.ru_maxrss * 1024;
#endif
}

void foley_platform_name_process(const char *name) {
#if defined(__APPLE__)
  pthread_setname_np(name);
#else
  pthread_setname_np(pthread_self(), name);
#endif
}

static void *watch_parent(void *context) {
  pid_t parent = (pid_t)(intptr_t)context;
  while (getppid() == parent) usleep(100 * 1000);
  _exit(1);
  return NULL;
}

void foley_platform_die_with_parent(pid_t parent) {
  if (getppid() != parent) _exit(1);
  pthread_t watcher;
  if (pthread_create(&watcher, NULL, watch_parent, (void *)(intptr_t)parent) == 0) pthread_detach(watcher);
}

static char *service_executable;
static pthread_mutex_t executable_lock = PTHREAD_MUTEX_INITIALIZER;

void foley_set_service_executable(const char *path) {
  pthread_mutex_lock(&executable_lock);
  free(service_executable);
  service_executable = path ? strdup(path) : NULL;
  pthread_mutex_unlock(&executable_lock);
}

// This program's executable: the system's answer on macOS, the path the engine gave otherwise.
static int own_executable(char *path, size_t size) {
#if defined(__APPLE__)
  uint32_t length = (uint32_t)size;
  if (_NSGetExecutablePath(path, &length) == 0) return 0;
#endif
  pthread_mutex_lock(&executable_lock);
  int found = service_executable != NULL && strlen(service_executable) < size;
  if (found) strcpy(path, service_executable);
  pthread_mutex_unlock(&executable_lock);
  return found ? 0 : -1;
}

int foley_platform_spawn_self(int keep, int as, char *const arguments[], char *const environment[], pid_t *pid) {
  char path[4096];
  if (own_executable(path, sizeof path) != 0) return ENOENT;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, keep, as);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
#if defined(__APPLE__)
  // Every descriptor not named in the actions is closed in the child.
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_CLOEXEC_DEFAULT);
  posix_spawn_file_actions_addinherit_np(&actions, as);
#else
  // Each open descriptor above `as` closed by name (those open now: one opened meanwhile by
  // another thread without close-on-exec would be inherited).
  long highest = sysconf(_SC_OPEN_MAX);
  if (highest < 0 || highest > 65536) highest = 65536;
  for (int fd = as + 1; fd < highest; fd++) {
    if (fcntl(fd, F_GETFD) >= 0) posix_spawn_file_actions_addclose(&actions, fd);
  }
#endif
  int failed = posix_spawn(pid, path, &actions, &attributes, arguments, environment);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  return failed;
}
#endif
