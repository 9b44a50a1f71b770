import FoleyAudio
import Testing

/// A voice's scheduled start crosses from the thread that schedules it to the audio queue in
/// one atomic word: what is set is taken once, a newer schedule replaces an older one, and no
/// schedule outlives the voice that carried it.
@Suite("Scheduled starts handed to the audio queue")
struct ScheduledStartHandoffTests {
  /// Something a schedule's closure holds, to see when the schedule is let go.
  final class Witness: Sendable {}

  static func schedule(frame: UInt64, holding witness: Witness) -> ScheduledStart {
    ScheduledStart(frame: frame, willStart: { _ in _ = witness })
  }

  @Test("a schedule is taken once; a newer one replaces it and the older is let go")
  func takenOnceAndReplaced() {
    let handoff = ScheduledStartHandoff()
    #expect(handoff.take() == nil)
    weak var older: Witness?
    weak var newer: Witness?
    do {
      let first = Witness()
      let second = Witness()
      older = first
      newer = second
      handoff.set(Self.schedule(frame: 100, holding: first))
      handoff.set(Self.schedule(frame: 200, holding: second))
    }
    #expect(older == nil, "the replaced schedule is still held")
    #expect(handoff.take()?.frame == 200)
    #expect(newer == nil, "the taken schedule is still held by the handoff")
    #expect(handoff.take() == nil)
    // Cleared, as a recycled voice clears it.
    handoff.set(ScheduledStart(frame: 300))
    handoff.set(nil)
    #expect(handoff.take() == nil)
  }

  @Test("a schedule never taken is let go with the voice that carried it")
  func letGoWithItsVoice() {
    weak var held: Witness?
    do {
      let witness = Witness()
      held = witness
      let handoff = ScheduledStartHandoff()
      handoff.set(Self.schedule(frame: 1, holding: witness))
      _ = consume handoff
    }
    #expect(held == nil)
  }
}
