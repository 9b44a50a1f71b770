import Dispatch
import FoleyAudio
package import Foundation
import Synchronization

/// The poll behind ``SoundMap/watchesFile``: a timer off the game thread that compares the files'
/// sizes and modification times.
///
/// Invariant behind `@unchecked Sendable`: its only `var`s (the timer, the signatures) are touched
/// on `queue` alone; the flag is atomic.
package final class SoundMapWatch: @unchecked Sendable {
  private let queue = DispatchQueue(label: "foley.soundmap.watch", qos: .utility)
  private let changed = Atomic<Bool>(false)
  // Touched only on `queue`.
  private var timer: (any DispatchSourceTimer)?
  private var signatures: [URL: FileSignature?] = [:]

  package func start(files: [URL], onChange: @escaping @Sendable () -> Void) {
    queue.sync {
      timer?.cancel()
      // Two names may lead to one file (a link): it is watched once.
      signatures = Dictionary(
        files.map { ($0, FileSignature(of: $0)) }, uniquingKeysWith: { first, _ in first })
      let timer = DispatchSource.makeTimerSource(queue: queue)
      timer.schedule(
        deadline: .now() + .milliseconds(500), repeating: .milliseconds(500), leeway: .milliseconds(100))
      timer.setEventHandler { [unowned self] in
        for (file, signature) in signatures where FileSignature(of: file) != signature {
          signatures[file] = FileSignature(of: file)
          changed.store(true, ordering: .releasing)
          onChange()
        }
      }
      timer.resume()
      self.timer = timer
    }
  }

  package func stop() {
    queue.sync {
      timer?.cancel()
      timer = nil
    }
  }

  /// Whether a file changed since the last look.
  func takeChange() -> Bool {
    changed.exchange(false, ordering: .acquiringAndReleasing)
  }

  deinit {
    timer?.cancel()
  }
}
