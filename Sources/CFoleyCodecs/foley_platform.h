// The one place the decoding and streaming services meet the operating system where POSIX does
// not say how. Two implementations: foley_platform_linux.c (Linux's own calls, each cheaper or
// safer than the POSIX way) and foley_platform_posix.c (only what POSIX and macOS have), chosen
// at build time: the POSIX one on every platform but
// Linux, and on Linux too when the package is built with FOLEY_PORTABLE=1 in the environment,
// which is how CI runs the service suites on it. The Platforms article says what each does.
#ifndef FOLEY_PLATFORM_H
#define FOLEY_PLATFORM_H

#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#if defined(__linux__) && defined(__GLIBC__) && !defined(FOLEY_PORTABLE)
#define FOLEY_PLATFORM_LINUX 1
#else
#define FOLEY_PLATFORM_POSIX 1
#endif

// "linux" or "posix": which implementation this build has.
const char *foley_platform_name(void);

// A file of no name, closed on exec, that the game and a service it starts both map: -1 on
// failure (errno set).
int foley_platform_shared_memory(const char *name);

// A connected pair of message sockets (boundaries kept, descriptors passed), closed on exec.
int foley_platform_message_sockets(int pair[2]);

// sendmsg and recvmsg without SIGPIPE and with every received descriptor closed on exec.
ssize_t foley_platform_send(int socket, const struct msghdr *message);
ssize_t foley_platform_receive(int socket, struct msghdr *message);

// A pipe whose ends are closed on exec.
int foley_platform_pipe(int ends[2]);

// A wake-up another thread's poll() sees: `ends[0]` turns readable (and stays so) once
// foley_platform_wake_signal(ends) was called. 0, or -1 with both ends -1.
int foley_platform_wake_make(int ends[2]);
void foley_platform_wake_signal(const int ends[2]);
void foley_platform_wake_close(int ends[2]);

// This process's address space (field 0) or resident memory (field 1) in bytes; 0 where the
// platform cannot tell (the POSIX build knows only the peak resident size).
size_t foley_platform_memory_bytes(int field);

// Names the process (and its thread) for ps and top.
void foley_platform_name_process(const char *name);

// Ends this child process if `parent` ends: at once on Linux (the kernel's parent-death
// signal), within 100 ms elsewhere (a watcher thread).
void foley_platform_die_with_parent(pid_t parent);

// Starts this program's own executable again with `arguments` and `environment`, `keep` as
// descriptor `as` and every other descriptor above 2 closed. 0 and the pid, or an errno value
// (ENOENT when the executable cannot be found: foley_platform_set_executable was not called on a
// platform with no way to find it).
int foley_platform_spawn_self(int keep, int as, char *const arguments[], char *const environment[], pid_t *pid);

#endif
