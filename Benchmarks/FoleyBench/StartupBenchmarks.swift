import Foley
import FoleyAudioTesting
import Foundation
import Logging

/// From nothing to sound: the wall time from before the engine opens, through decoding a sound
/// and playing it, to the first mix buffer that carries it. Measured once, in a fresh process
/// (SDL not yet initialised), as a game starts; `Scripts/bench.sh` runs it once a round, beside
/// the C reference (`raw_mixer firstsound`: `SDL_Init`, `Mix_OpenAudioDevice`, `Mix_LoadWAV`,
/// `Mix_PlayChannel`, until SDL_mixer's post-mix hook has run with it).
@MainActor
enum StartupBenchmarks {
  /// The whole wait, and its parts: the engine opening, the sound decoding, and the play until
  /// its first buffer (queue, arming, the wait for the next buffer), in milliseconds.
  static func firstSound(
    _ sound: Data, logger: Logger
  ) throws -> (total: Double, open: Double, decode: Double, play: Double) {
    let start = Clocks.wallNanoseconds
    let engine = try AudioEngine(session: AudioSession(), logger: logger)
    defer { engine.close() }
    let opened = Clocks.wallNanoseconds
    let decoded = try engine.sound(data: sound)
    let asked = Clocks.wallNanoseconds
    let voice = engine.play(decoded)
    var mixed: UInt64?
    while mixed == nil && !voice.isFinished {
      Clocks.sleep(seconds: 0.0001)
      mixed = engine.firstMixTime(of: voice)
    }
    guard let mixed else { preconditionFailure("the first sound finished before it was seen mixed") }
    func milliseconds(_ from: UInt64, _ to: UInt64) -> Double { Double(to - from) / 1e6 }
    return (
      milliseconds(start, mixed), milliseconds(start, opened), milliseconds(opened, asked),
      milliseconds(asked, mixed)
    )
  }

  static func figures(_ long: Data, quick: Bool, logger: Logger) throws -> [String: Any] {
    let measured = try firstSound(long, logger: logger)
    return [
      "first_sound_ms": measured.total, "first_sound_open_ms": measured.open,
      "first_sound_decode_ms": measured.decode, "first_sound_play_ms": measured.play,
    ]
  }
}
