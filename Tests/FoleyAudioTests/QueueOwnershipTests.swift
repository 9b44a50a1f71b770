import Dispatch
import FoleyAudio
import FoleyAudioTesting
import FoleyCore
import Testing

/// State that belongs to a queue is checked on every access in debug builds: touching it from
/// another thread stops the process at the faulty access, instead of racing silently.
@Suite("Queue ownership")
struct QueueOwnershipTests {
  @Test("a queue-bound value is read and written on its queue")
  func onItsQueue() {
    let queue = DispatchQueue(label: "owner")
    var box = QueueBound([1, 2], on: queue)
    let total = queue.sync {
      box.value.append(3)
      return box.value.reduce(0, +)
    }
    #expect(total == 6)
  }

  #if DEBUG
    @Test("reading a queue-bound value off its queue traps")
    func readOffQueueTraps() async {
      await #expect(processExitsWith: .failure) {
        let box = QueueBound(0, on: DispatchQueue(label: "owner"))
        _ = box.value
      }
    }

    @Test("the mixer core's channel table touched from the test thread traps")
    func mixerStateOffQueueTraps() async {
      await #expect(processExitsWith: .failure) {
        let engine = try AudioEngine(embedded: EmbeddedMixer())
        _ = engine.core.table.channelCount
      }
    }

    @Test("the mixer core's queue state read from the test thread traps")
    func mixerQueueStateReadOffQueueTraps() async {
      await #expect(processExitsWith: .failure) {
        let engine = try AudioEngine(embedded: EmbeddedMixer())
        _ = engine.core.state.isOpen
      }
    }

    @Test("the mixer core's queue state written from the test thread traps")
    func mixerQueueStateWrittenOffQueueTraps() async {
      await #expect(processExitsWith: .failure) {
        let engine = try AudioEngine(embedded: EmbeddedMixer())
        engine.core.state.isOpen = true
      }
    }

    @Test("the same state read and written on its queue, in the same kind of child process, does not")
    func mixerStateOnQueueIsFine() async {
      await #expect(processExitsWith: .success) {
        let engine = try AudioEngine(embedded: EmbeddedMixer())
        let channels = engine.core.syncOnQueue { engine.core.table.channelCount }
        let isOpen = engine.core.syncOnQueue {
          engine.core.state.isOpen = true
          return engine.core.state.isOpen
        }
        precondition(channels > 0 && isOpen)
        engine.close()
      }
    }
  #endif
}
