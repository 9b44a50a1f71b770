import CFoleySDL2
import Foundation

/// SDL's disk driver announces itself at every open with two CRITICAL log lines ("You are using
/// the SDL disk i/o audio driver!", "Writing to file […]"): about 190 lines a test run, none of
/// them news. Tests that open it install this filter (once, process-wide); every other SDL log
/// line still reaches stderr as SDL would print it.
enum QuietSDL {
  nonisolated(unsafe) private static var isInstalled = false
  private static let lock = NSLock()

  static func silenceDiskDriverNotice() {
    lock.lock()
    defer { lock.unlock() }
    guard !isInstalled else { return }
    isInstalled = true
    SDL_LogSetOutputFunction(
      { _, _, priority, message in
        guard let message else { return }
        let text = String(cString: message)
        if text.hasPrefix("You are using the SDL disk i/o audio driver")
          || text.hasPrefix(" Writing to file [")
          || text.hasPrefix(" Reading from file [")
        {
          return
        }
        let names = ["", "VERBOSE", "DEBUG", "INFO", "WARN", "ERROR", "CRITICAL"]
        let name = Int(priority.rawValue) < names.count ? names[Int(priority.rawValue)] : "LOG"
        FileHandle.standardError.write(Data("\(name): \(text)\n".utf8))
      }, nil)
  }
}
