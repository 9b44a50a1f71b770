// What the tests and the benchmark read or call and a game has no use for: package members, out
// of the engine's production files, so each concern's file holds only what the engine does.
internal import CFoleyDSP
import Dispatch
import Synchronization

extension AudioEngine {
  /// When the mixer first mixed `voice` (uptime nanoseconds, `DispatchTime`'s clock), or nil if it
  /// has not yet. For the latency benchmark.
  package func firstMixTime(of voice: Voice) -> UInt64? {
    core.syncOnQueue { core.firstMixTime(of: voice) }
  }

  /// CPU seconds the stream thread has spent decoding and converting, for the benchmark.
  package var musicDecodeCPUSeconds: Double {
    Double(streamFiller.cpuNanoseconds.load(ordering: .relaxed)) / 1e9
  }
}

extension MixerCore {
  /// When the mixer first mixed `voice`'s samples (uptime ns), or nil if not yet or not playing.
  package func firstMixTime(of voice: Voice) -> UInt64? {
    dispatchPrecondition(condition: .onQueue(queue))
    guard let channel = table.channel(of: voice) else { return nil }
    let time = table.gains[channel].firstMixedAt.load(ordering: .acquiring)
    return time == 0 ? nil : time
  }
}

extension ChunkReleaser {
  /// Trims done so far (the tests' count).
  package var trims: Int { trimsDone.load(ordering: .acquiring) }
  /// Trims that handed pages back to the system (none where the C library cannot trim).
  package var releasingTrims: Int { trimsReleasing.load(ordering: .acquiring) }
}

extension VoiceMixer {
  /// Whether this machine sums with the AVX kernel (mixers made while
  /// ``AudioConfiguration/allowsWideVectors`` is true use it).
  package static var hasWideVectors: Bool { foley_dsp_has_avx() }

  /// ``addScaled(_:into:count:by:)`` with the AVX kernel; false (and nothing done) on a machine
  /// without AVX. For the tests that hold it to the portable path.
  package static func addScaledWide(
    _ source: UnsafeRawPointer, into target: UnsafeMutablePointer<Float>, count: Int, by pattern: SIMD8<Float>
  ) -> Bool {
    guard foley_dsp_has_avx() else { return false }
    addScaledAVX(source, into: target, count: count, by: pattern)
    return true
  }
}
