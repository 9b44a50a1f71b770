import Dispatch
import FoleyCore
import Foundation

/// The clocks the benchmarks read: wall time, this thread's CPU time, the whole process's CPU time
/// (every thread: the game thread, the audio queue, SDL's mixing thread), and resident memory.
enum Clocks {
  static var wallNanoseconds: UInt64 { DispatchTime.now().uptimeNanoseconds }

  /// CPU time of the calling thread (`CLOCK_THREAD_CPUTIME_ID`), in nanoseconds.
  static var threadCPUNanoseconds: UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
  }

  /// CPU time of the whole process (`CLOCK_PROCESS_CPUTIME_ID`), in nanoseconds.
  static var processCPUNanoseconds: UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
  }

  static var residentKiB: Double {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let pages = text.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? 0
    return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_024
  }

  /// Blocks without spinning (the thread's CPU clock does not move).
  static func sleep(seconds: Double) {
    usleep(UInt32(seconds * 1_000_000))
  }
}
