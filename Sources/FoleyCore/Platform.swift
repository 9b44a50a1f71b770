// The one Swift file that names the platform's C library: every Foley module that calls POSIX
// (`open`, `fsync`, `pthread_mutex_lock`, `poll`, …) imports FoleyCore and gets it from here.
// Linux with glibc is what CI builds and tests; Musl (static Linux builds) and Darwin (macOS)
// are the names the same calls have there (see the Platforms article).
#if canImport(Glibc)
  @_exported import Glibc
#elseif canImport(Musl)
  @_exported import Musl
#elseif canImport(Darwin)
  @_exported import Darwin
#else
  #error("Foley needs a POSIX C library (Glibc, Musl or Darwin)")
#endif

/// The C library's calls where a Foley type has a method of the same name (a plain `close` inside
/// `WAVWriter.close()` would call itself), and the few whose spelling differs between C
/// libraries, under one name.
package enum SystemCall {
  /// What `errno` value `code` means, said so a player can act on it: running out of file
  /// descriptors names the limit (`ulimit -n`) rather than whatever the failed call was about.
  ///
  /// ```swift
  /// throw MyError("cannot open \(path): \(SystemCall.describe(errno))")
  /// ```
  package static func describe(_ code: Int32) -> String {
    switch code {
    case EMFILE:
      "no file descriptor left: the process has as many files open as its limit allows (ulimit -n \(descriptorLimit))"
    case ENFILE: "no file descriptor left: the system's table of open files is full"
    default: String(cString: strerror(code))
    }
  }

  /// The most file descriptors this process may have open (its soft `RLIMIT_NOFILE`).
  package static var descriptorLimit: Int {
    #if canImport(Glibc)
      let limit = softLimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue))
    #else
      let limit = softLimit(RLIMIT_NOFILE)
    #endif
    return limit.map { Int(clamping: min($0, rlim_t(Int32.max))) } ?? 1_024
  }

  /// The most address space this process may map, in bytes (its soft `RLIMIT_AS`, `ulimit -v`);
  /// nil when there is no limit.
  package static var addressSpaceLimit: Int? {
    #if canImport(Glibc)
      let limit = softLimit(__rlimit_resource_t(RLIMIT_AS.rawValue))
    #else
      let limit = softLimit(RLIMIT_AS)
    #endif
    guard let limit, limit != rlim_t.max else { return nil }
    return Int(clamping: limit)
  }

  #if canImport(Glibc)
    private typealias LimitResource = __rlimit_resource_t
  #else
    private typealias LimitResource = Int32
  #endif

  /// The soft limit of `resource` (`rlim_t.max` when unlimited); nil when it cannot be read.
  private static func softLimit(_ resource: LimitResource) -> rlim_t? {
    var limit = rlimit()
    return getrlimit(resource, &limit) == 0 ? limit.rlim_cur : nil
  }

  package static func close(_ descriptor: Int32) -> Int32 {
    #if canImport(Glibc)
      Glibc.close(descriptor)
    #elseif canImport(Musl)
      Musl.close(descriptor)
    #else
      Darwin.close(descriptor)
    #endif
  }

  package static func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
      Glibc.read(descriptor, buffer, count)
    #elseif canImport(Musl)
      Musl.read(descriptor, buffer, count)
    #else
      Darwin.read(descriptor, buffer, count)
    #endif
  }

  package static func listen(_ socket: Int32, _ backlog: Int32) -> Int32 {
    #if canImport(Glibc)
      Glibc.listen(socket, backlog)
    #elseif canImport(Musl)
      Musl.listen(socket, backlog)
    #else
      Darwin.listen(socket, backlog)
    #endif
  }

  /// A stream socket in `domain` (`AF_UNIX`, `AF_INET`), closed on exec, non-blocking if asked;
  /// -1 on failure (errno set).
  package static func streamSocket(domain: Int32, nonBlocking: Bool) -> Int32 {
    #if canImport(Glibc)
      let type =
        Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
      return Glibc.socket(domain, type, 0)
    #else
      // No type flags: the same made with fcntl.
      let made = socket(domain, Int32(SOCK_STREAM), 0)
      guard made >= 0 else { return -1 }
      _ = fcntl(made, F_SETFD, FD_CLOEXEC)
      if nonBlocking { _ = fcntl(made, F_SETFL, fcntl(made, F_GETFL) | O_NONBLOCK) }
      return made
    #endif
  }

  /// Standard output a line at a time, also into a pipe (a tool reading a program's output sees
  /// each line as it is printed, not all of them at exit).
  package static func lineBufferStandardOutput() {
    // C's `stdout` is a global variable Swift 6 will not read; its address is looked up.
    if let standardOutput = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "stdout") {
      setvbuf(standardOutput.load(as: UnsafeMutablePointer<FILE>.self), nil, _IOLBF, 0)
    }
  }

  /// At most `count` malloc arenas, with glibc (which reserves 64 MiB of address space for each,
  /// up to eight per core: what an address-space limit, `ulimit -v`, counts); nothing elsewhere.
  package static func limitMallocArenas(to count: Int32) {
    #if canImport(Glibc)
      // `mallopt` is not in Swift's Glibc module; M_ARENA_MAX is -8 in malloc.h.
      if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") {
        typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
        _ = unsafeBitCast(symbol, to: MallOpt.self)(-8, count)
      }
    #endif
  }
}
