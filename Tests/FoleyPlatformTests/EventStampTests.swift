import FoleyPlatform
import Testing

/// SDL's event stamps on the host clock when SDL starts its ticks again (quit by its last user,
/// then opened anew): the origin found before no longer agrees with the ticks and is found again.
@Suite("Event stamps across a restart of SDL")
struct EventStampTests {
  @Test("an origin agrees with ticks read where it puts them, even slowly; one from before a restart, not")
  func originChecked() {
    let origin: UInt64 = 5_000_000_000  // ticks began 5 s into the host clock
    let now: UInt64 = 365_000_000_000
    // 360 s of ticks, read in a microsecond, or across a 20 ms preemption.
    #expect(SDLTicks.agrees(origin: origin, ticks: 360_000, between: now, and: now + 1_000))
    #expect(SDLTicks.agrees(origin: origin, ticks: 360_010, between: now, and: now + 20_000_000))
    // SDL quit and started again 359.45 s ago: its ticks are 550 ms, the old origin says 360 s.
    #expect(!SDLTicks.agrees(origin: origin, ticks: 550, between: now, and: now + 1_000))
    // Off by two milliseconds is off.
    #expect(!SDLTicks.agrees(origin: origin, ticks: 360_003, between: now, and: now + 1_000))
  }
}
