public import FoleyCore

/// How a value moves to a new one: over a duration, along an easing curve, from a start on the
/// engine's clock. Every continuous setter that takes a `tween:` takes this one value.
///
/// The mixing thread moves the value every sample along the curve (evaluated every 32 frames and
/// interpolated between: no steps between buffers, no zipper noise), from wherever the value
/// stands when the tween starts. A later tween of the same value
/// takes over from where the earlier one got to.
///
/// A number of seconds is a linear tween starting now: `tween: 0.5` is
/// `tween: Tween(duration: 0.5)`.
///
/// ```swift
/// let hum = engine.play(humSound, loops: -1)
/// hum.setVolume(0.5, tween: 2)                // two seconds, linear
/// hum.setVolume(0.25, tween: Tween(duration: 0.5, easing: .easeOut))
/// // On a frame of the engine's clock, sample-exact (a beat from the music clock, say):
/// hum.setVolume(1, tween: Tween(duration: 2, easing: .smoothstep, start: .frame(engine.audioFrame + engine.frames(forSeconds: 1))))
/// ```
public struct Tween: Sendable, Hashable, CustomStringConvertible, ExpressibleByFloatLiteral,
  ExpressibleByIntegerLiteral
{
  /// When a tween starts.
  public enum Start: Sendable, Hashable {
    /// As soon as the mix takes it (the next buffer).
    case now
    /// On this frame of the engine's clock (``AudioEngine/audioFrame``); a frame already mixed
    /// starts it at once.
    case frame(AudioFrame)
  }

  /// Seconds from the start to the new value (0 to 3,600; 0 moves at once, with the engine's
  /// de-click ramp; NaN and infinity are refused as 0).
  public var duration: Double
  public var easing: Easing
  public var start: Start

  public init(duration: Double, easing: Easing = .linear, start: Start = .now) {
    self.duration = duration
    self.easing = easing
    self.start = start
  }

  /// A linear tween of `seconds`, starting now.
  public init(floatLiteral seconds: Double) { self.init(duration: seconds) }

  /// A linear tween of `seconds`, starting now.
  public init(integerLiteral seconds: Int) { self.init(duration: Double(seconds)) }

  /// At once (with the engine's de-click ramp): what a plain assignment does.
  public static let immediate = Tween(duration: 0)

  /// The first frame as the mix's level commands and parameter tracks take it: `UInt64.max` for
  /// now, a frame before the clock's start as 0 (already mixed: it starts at once).
  package var startFrame: UInt64 {
    switch start {
    case .now: .max
    case .frame(let frame): UInt64(max(0, frame.index))
    }
  }

  /// The duration as the engine uses it: within 0...3,600 s, a non-finite one refused as 0.
  package var usableDuration: Double { duration.clamped(to: 0...3_600, or: 0, member: "Tween.duration") }

  public var description: String {
    let when: String
    switch start {
    case .now: when = ""
    case .frame(let frame): when = " from frame \(frame.index)"
    }
    return "Tween(\(usableDuration) s, \(easing)\(when))"
  }
}
