// The platform seam on Linux: its own calls, each cheaper or safer than the POSIX way (see
// foley_platform.h; foley_platform_posix.c is the other side).
#define _GNU_SOURCE
#include "foley_platform.h"

#if FOLEY_PLATFORM_LINUX
#include "include/foley_codecs.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

const char *foley_platform_name(void) { return "linux"; }

int foley_platform_shared_memory(const char *name) { return memfd_create(name, MFD_CLOEXEC); }

int foley_platform_message_sockets(int pair[2]) {
  return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair);
}

ssize_t foley_platform_send(int socket, const struct msghdr *message) {
  return sendmsg(socket, message, MSG_NOSIGNAL);
}

ssize_t foley_platform_receive(int socket, struct msghdr *message) {
  return recvmsg(socket, message, MSG_CMSG_CLOEXEC);
}

int foley_platform_pipe(int ends[2]) { return pipe2(ends, O_CLOEXEC); }

int foley_platform_wake_make(int ends[2]) {
  // One eventfd serves as both ends.
  int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  ends[0] = fd;
  ends[1] = fd;
  return fd >= 0 ? 0 : -1;
}

void foley_platform_wake_signal(const int ends[2]) {
  uint64_t one = 1;
  if (ends[1] >= 0 && write(ends[1], &one, sizeof one) < 0) {
    // The counter is full (never in practice): the waiter is awake already.
  }
}

void foley_platform_wake_close(int ends[2]) {
  if (ends[0] >= 0) close(ends[0]);
  ends[0] = -1;
  ends[1] = -1;
}

size_t foley_platform_memory_bytes(int field) {
  int file = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (file < 0) return 0;
  char text[128];
  ssize_t got = read(file, text, sizeof text - 1);
  close(file);
  if (got <= 0) return 0;
  text[got] = 0;
  char *cursor = text;
  for (int skipped = 0; skipped < field; skipped++) {
    while (*cursor && *cursor != ' ') cursor++;
    if (*cursor) cursor++;
  }
  size_t pages = 0;
  for (; *cursor >= '0' && *cursor <= '9'; cursor++) pages = pages * 10 + (size_t)(*cursor - '0');
  return pages * (size_t)sysconf(_SC_PAGESIZE);
}

void foley_platform_name_process(const char *name) { prctl(PR_SET_NAME, name); }

void foley_platform_die_with_parent(pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The parent may have ended before the line above.
  if (getppid() != parent) _exit(1);
}

void foley_set_service_executable(const char *path) { (void)path; }  // /proc/self/exe is always right

int foley_platform_spawn_self(int keep, int as, char *const arguments[], char *const environment[], pid_t *pid) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, keep, as);  // dup2 leaves the copy open across exec
  posix_spawn_file_actions_addclosefrom_np(&actions, as + 1);
  int failed = posix_spawn(pid, "/proc/self/exe", &actions, NULL, arguments, environment);
  posix_spawn_file_actions_destroy(&actions);
  return failed;
}
#endif
