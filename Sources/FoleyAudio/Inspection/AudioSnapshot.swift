import Foundation

/// The engine at one moment, for an inspector: every voice, every bus's meters and effects, the
/// master limiter, and a spectrum. ``AudioInspector/snapshot(window:spectrumOf:)`` takes one.
///
/// It is the one picture of the engine: it holds the counters (``statistics``) and the voice
/// census (``census``) too. Those two are also read on their own (``AudioEngine/statistics``,
/// ``AudioEngine/voiceCensus()``) because they cost a few atomics and a queue hop, where a
/// snapshot walks every voice and bus and tapped meters: a HUD reads them each frame, a tool or
/// the browser inspector takes snapshots. The inspector's report (FoleyInspector) is this
/// snapshot plus what lives above the core: the music and the sound map's posts.
///
/// Everything in it is a plain value (it encodes to JSON as it is: the browser inspector serves
/// it). Levels are in dB; silence reads ``AudioSnapshot/floorDecibels`` (-200) rather than minus
/// infinity, so JSON never carries a non-number.
///
/// ```swift
/// let snapshot = engine.inspector.snapshot()
/// for bus in snapshot.buses {
///   print(bus.name, bus.peakDecibels, bus.momentaryLoudness ?? .nan)
/// }
/// for voice in snapshot.voices where voice.state == .virtual { print(voice.sound, "is virtual") }
/// ```
public struct AudioSnapshot: Sendable, Codable, Hashable {
  /// The lowest level reported, standing for silence.
  public static let floorDecibels = -200.0

  /// A linear level in dB, silence (and anything below) at ``floorDecibels``.
  package static func decibels(_ linear: Double) -> Double {
    linear > 0 ? max(floorDecibels, 20 * log10(linear)) : floorDecibels
  }

  /// The mix frame the meters reach (frames mixed since the engine opened).
  public var frame: UInt64
  /// ``frame`` in seconds.
  public var time: Double
  /// The device's sample rate and channel count.
  public var sampleRate: Int
  public var channels: Int
  /// The frames the meters cover: the last `window` seconds asked for, up to ``frame``.
  public var meterFrames: Range<UInt64>
  /// Every voice the engine keeps: on a channel, virtual, or waiting for a device.
  public var voices: [VoiceSnapshot]
  /// The master first, then the reverb's return, then each category's bus in the order the
  /// categories first played.
  public var buses: [BusSnapshot]
  /// The master limiter.
  public var limiter: LimiterSnapshot
  /// A spectrum of one bus (the master unless another was asked for), nil before it has a full
  /// window of samples.
  public var spectrum: Spectrum?
  /// Blocks of samples the inspector missed because it was asked for a snapshot too rarely (the
  /// meters then cover less than their window).
  public var droppedBlocks: Int
  /// The engine's counters and census.
  public var statistics: AudioStatistics
  public var census: VoiceCensus
  /// The game parameters, each with the value last asked for, by name.
  public var parameters: [String: Double]
  /// Every mix snapshot defined, in the order they combine (priority, then definition).
  public var snapshots: [MixSnapshotState]
}

/// One mix snapshot in an ``AudioSnapshot``: how it combines, and the intensity last asked for
/// (0: released).
public struct MixSnapshotState: Sendable, Codable, Hashable {
  public var name: String
  public var mode: String
  public var priority: Int
  public var intensity: Double
  /// The buses it changes.
  public var buses: [String]
}

/// One voice in an ``AudioSnapshot``.
public struct VoiceSnapshot: Sendable, Codable, Hashable {
  /// What a voice is doing.
  public enum State: String, Sendable, Codable, Hashable {
    /// On a channel and heard.
    case playing
    /// Paused by the game.
    case paused
    /// Held by the session (the game lost focus, say).
    case held
    /// Nobody could hear it: no channel, keeping time.
    case virtual
    /// Stopped or stolen, ramping out.
    case releasing
    /// Waiting for an audio device to come back.
    case waiting
  }

  /// The voice's ``Voice/id``.
  public var id: UInt64
  /// Its sound's name.
  public var sound: String
  /// Its category (its bus).
  public var bus: String
  public var state: State
  /// The voice's own volume (``Voice/volume``) and pan (``Voice/pan``, plus its place for a
  /// positional voice).
  public var volume: Double
  public var pan: Double
  /// What reaches its bus: sound, voice, group, distance, session and bus gains together, the
  /// louder side, in dB.
  public var gainDecibels: Double
  /// Its playback rate (1: as recorded).
  public var rate: Double
  /// The pitch factor its motion towards or away from its listener gives it, as the mix was last
  /// told (1: none; it is heard at `rate × doppler`).
  public var doppler: Double
  /// Where it is in its sound, in seconds (nil for a stream: its player knows).
  public var position: Double?
  /// Whole passes still to play after this one (-1: it loops for ever).
  public var passesLeft: Int
  /// Seconds of mix time since it started sounding (nil before its first frame).
  public var age: Double?
  /// Whether it follows a node's place (a positional voice).
  public var isPositional: Bool
  /// How the scene's walls, doors and rooms shape it (nil: it is not heard through any).
  public var acoustics: VoiceAcoustics?
  /// Which of the engine's space's listeners hears it (0…3; nil: the space does not place it).
  public var listener: Int?
}

/// How a positional voice is heard through its scene's walls and doors, in a ``VoiceSnapshot``.
public struct VoiceAcoustics: Sendable, Codable, Hashable {
  /// What the walls on the straight line take, in dB (0: none between).
  public var occlusionDecibels: Double
  /// The low-pass the walls and doors give it, in hertz (20,000: open).
  public var cutoff: Double
  /// The loudest way it comes: `"direct"` (the straight line) or `"portal N"` (through the
  /// scene's Nth door, counted in the order they were added).
  public var path: String
}

/// One bus in an ``AudioSnapshot``: its meters (over the snapshot's window, after its effects;
/// the master's after the limiter), its settings and its effect chain.
public struct BusSnapshot: Sendable, Codable, Hashable {
  /// The category's name, `"master"` or `"reverb"`.
  public var name: String
  /// The bus it sums into (nil: the master, or this is the master).
  public var parent: String?
  /// Its volume, mute and solo as the game set them (``AudioBus``; the master's volume is
  /// ``AudioEngine/masterVolume``, and the master is never soloed).
  public var volume: Double
  public var isMuted: Bool
  public var isSoloed: Bool
  /// Peak and RMS level of each channel over the window, in dBFS.
  public var peakDecibels: [Double]
  public var rmsDecibels: [Double]
  /// Momentary (400 ms) and short-term (3 s) loudness in LUFS (BS.1770-4, K-weighted); nil
  /// until the bus has run that long while inspected.
  public var momentaryLoudness: Double?
  public var shortTermLoudness: Double?
  /// Whether anything was summed into it, or its effects rang, during the window.
  public var isActive: Bool
  /// Its effects, in order.
  public var effects: [EffectSnapshot]
}

/// One effect on a bus.
public struct EffectSnapshot: Sendable, Codable, Hashable {
  /// What it is: `"filter"`, `"reverb"`, `"delay"` or `"compressor"`.
  public var kind: String
  /// Its parameters now, by name (a filter's `"frequency"`, a compressor's `"gainReduction"`…).
  public var parameters: [String: Double]
}

/// The master limiter in an ``AudioSnapshot``.
public struct LimiterSnapshot: Sendable, Codable, Hashable {
  /// Gain reduction in the last buffer, and the deepest since the engine opened (or the meter
  /// was reset), in dB (0: untouched).
  public var gainReductionDecibels: Double
  public var maximumGainReductionDecibels: Double
}

/// A magnitude spectrum of one bus: its channels summed, a Hann-windowed FFT (kissfft) of its
/// latest ``Spectrum/windowFrames`` frames, in log-spaced bands.
public struct Spectrum: Sendable, Codable, Hashable {
  /// The bus it is of.
  public var bus: String
  /// Frames in the FFT window.
  public var windowFrames: Int
  /// Each band's centre frequency in hertz, rising.
  public var frequencies: [Double]
  /// Each band's level in dB, where a full-scale sine in one band reads 0 dB.
  public var levels: [Double]
}
