public import Foundation

/// Whether this build runs under ThreadSanitizer: its runtime reserves terabytes of address space
/// and brings its own allocator (glibc's `malloc_trim` has nothing of it to hand back).
public let isThreadSanitized = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil

/// Runs `body` with environment variables set, then restores them. SDL reads its driver choice
/// from the environment, which outranks hints.
public func withEnvironment<T>(_ values: [String: String?], _ body: () throws -> T) rethrows -> T {
  if values["SDL_AUDIODRIVER"] == "disk" { QuietSDL.silenceDiskDriverNotice() }
  var saved: [String: String?] = [:]
  for (name, value) in values {
    saved[name] = getenv(name).map { String(cString: $0) }
    if let value { setenv(name, value, 1) } else { unsetenv(name) }
  }
  defer {
    for (name, value) in saved {
      if let value { setenv(name, value, 1) } else { unsetenv(name) }
    }
  }
  return try body()
}

/// A fresh path in the temporary directory (nothing is created).
public func temporaryFile(_ name: String) -> URL {
  FileManager.default.temporaryDirectory.appendingPathComponent("foley-\(UUID().uuidString)-\(name)")
}

/// Records the order of events in a test; a class so blocks can append to it.
@MainActor
public final class EventLog {
  public var entries: [String] = []
  public init() {}
  public func append(_ entry: String) { entries.append(entry) }
}

/// The bytes process `pid` (this one by default) holds in memory, its resident set, from
/// `/proc/PID/statm`; 0 when it cannot be read.
public func residentBytes(of pid: Int32 = getpid()) -> Int {
  let fields =
    (try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8))?.split(separator: " ") ?? []
  return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}
