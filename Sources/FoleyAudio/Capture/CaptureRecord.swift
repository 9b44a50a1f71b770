package import FoleyCore

/// The first line of a capture file: what the engine was when the capture started, so that a
/// replay opens the same mix.
///
/// A capture is JSON Lines: this header, then one ``CaptureRecord`` per line, in the order the
/// engine's audio queue applied them. Version 1 is documented in the Capturing article.
public struct CaptureHeader: Sendable, Hashable, Codable {
  /// Always "foley-capture".
  public var format: String
  /// The format's version: 1.
  public var version: Int
  /// The mix's rate in Hz.
  public var sampleRate: Int
  /// Output channels (2).
  public var channels: Int
  /// Frames per mixed buffer: a replay mixes buffers of the same length, so every command falls
  /// on the same buffer boundary it fell on live.
  public var bufferFrames: Int
  /// The engine's frame the capture's frame 0 is (its first frame mixed after the capture began).
  public var startFrame: UInt64
  /// The mix settings that shape every buffer: the limiter, de-click time, channel budget.
  public var engine: CapturedEngineSettings
  /// The buses and the master as the capture found them.
  public var mix: CapturedMix
  /// Voices already sounding when the capture began (a replay does not have them).
  public var voicesAtStart: Int

  /// The version this build writes and reads.
  public static let currentVersion = 1
}

/// The engine settings a replay needs to mix as the live engine did.
public struct CapturedEngineSettings: Sendable, Hashable, Codable {
  public var maximumChannels: Int
  public var maximumAudibleVoices: Int?
  public var virtualizesInaudibleVoices: Bool
  public var declickDuration: Double
  public var closeFadeDuration: Double
  /// The limiter's ceiling (dBFS), look-ahead and release (seconds); nil when it was off.
  public var limiterCeilingDecibels: Double?
  public var limiterLookAhead: Double?
  public var limiterRelease: Double?
}

/// One line of a capture: a command, and the frame of the mix it took effect on, counted from
/// the capture's start.
///
/// ```json
/// {"frame":1024,"play":{"voice":7,"sound":1,"volume":0.5,"pan":0,"groupVolume":1,"loops":0,"rate":1}}
/// ```
public struct CaptureRecord: Sendable, Hashable, Codable {
  /// The first frame the command shaped (a buffer's first frame: commands reach the mix between
  /// buffers).
  public var frame: UInt64
  public var command: CaptureCommand

  public init(frame: UInt64, command: CaptureCommand) {
    self.frame = frame
    self.command = command
  }

  private enum Key: String, CodingKey { case frame }

  /// Every frame the record names: its own, and a scheduled start's or a tween's.
  var frames: [UInt64] {
    switch command {
    case .play(let play): [frame] + [play.start, play.level?.start].compactMap { $0 }
    case .volume(_, _, let tween), .pan(_, _, let tween), .stop(_, let tween), .mix(_, let tween):
      [frame] + [tween.start].compactMap { $0 }
    case .shape(_, _, _, _, _, let start): [frame, start]
    case .sound, .gain, .place, .pause, .resume, .session, .unsupported, .mark, .end: [frame]
    }
  }

  public init(from decoder: any Decoder) throws {
    frame = try decoder.container(keyedBy: Key.self).decode(UInt64.self, forKey: .frame)
    command = try CaptureCommand(from: decoder)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Key.self)
    try container.encode(frame, forKey: .frame)
    try command.encode(to: encoder)
  }
}

/// What a capture records. Frames inside a command (a scheduled start, a tween's start) are
/// counted from the capture's start, as ``CaptureRecord/frame`` is.
public enum CaptureCommand: Sendable, Hashable {
  /// A sound's identity, written before the first play of it: the number plays name it by.
  case sound(CapturedSound)
  /// A voice started (or began its wait for a scheduled frame) on this frame.
  case play(CapturedPlay)
  /// A voice's volume moved to `to` along `tween`.
  case volume(voice: UInt64, to: Double, tween: CapturedTween)
  /// A voice's play pan moved to `to` along `tween`.
  case pan(voice: UInt64, to: Double, tween: CapturedTween)
  /// A voice's play pan and its node's group volume, as its gain was recomputed.
  case gain(voice: UInt64, pan: Double, groupVolume: Double)
  /// A positional voice moved to a placement (its gain and pan from the listener), gliding
  /// there over `glide` frames.
  case place(voice: UInt64, gain: Double, pan: Double, glide: Int)
  /// One of a voice's shaping requests: its playback `rate`, the scene's `doppler` factor, its
  /// low-pass `cutoff` (log2 of hertz) or its reverb `send`, to `target` over `frames` frames
  /// along `easing`, from frame `start`.
  case shape(voice: UInt64, kind: String, target: Double, frames: Int, easing: String, start: UInt64)
  /// A voice stopped, fading along `tween`.
  case stop(voice: UInt64, tween: CapturedTween)
  case pause(voice: UInt64)
  case resume(voice: UInt64)
  /// The buses' and the master's settings, moved to along `tween`.
  case mix(CapturedMix, tween: CapturedTween)
  /// The audio session's state changed: the reasons that hold it inactive ("focusLost",
  /// "minimized", "background", "interruption", "deviceLost" or the host's own; none: active),
  /// and whether what it paused resumes (false only when an interruption ended without resuming).
  case session(inactive: [String], resumesPausedVoices: Bool)
  /// A command this version of the format does not record, by kind ("voice rate", "placement",
  /// "bus effects", …): a replay names it instead of guessing. Written at most once per kind
  /// between two marks.
  case unsupported(String)
  /// Written once a second of mixed audio: the capture was alive on this frame, so a capture cut
  /// short (a crash, `kill -9`) replays up to its last mark.
  case mark
  /// The capture ended: "stopped", "size limit" or "engine closed".
  case end(String)
}

/// A sound a capture names: what a replay loads and checks.
public struct CapturedSound: Sendable, Hashable, Codable {
  /// The number plays name it by, within this capture.
  public var id: Int
  /// Its asset name (what ``AudioEngine/sound(named:)`` is given to find it again).
  public var name: String
  /// For a sound map's pitched copy of the named sound, the semitones it was moved by (nil: the
  /// named sound's own samples).
  public var semitones: Double?
  /// Its length in frames, decoded for the mix.
  public var frames: Int
  /// The 64-bit FNV-1a hash of its decoded samples, in hexadecimal: a replay refuses a sound
  /// whose samples differ (a changed file, another decoder).
  public var contentHash: String
  public var volume: Double
  public var pan: Double
  public var priority: Int
  public var category: String
  public var maximumInstances: Int?
  /// "stealOldest", "stealLowestPriority" or "reject".
  public var policy: String
  public var isCritical: Bool
}

/// A play as the audio queue admitted it.
public struct CapturedPlay: Sendable, Hashable, Codable {
  public var voice: UInt64
  public var sound: Int
  public var volume: Double
  public var pan: Double
  public var groupVolume: Double
  public var loops: Int
  public var rate: Double
  /// The frame it was scheduled to start on (nil: at once).
  public var start: UInt64?
  /// True when a start the mix had already passed joins the sound at the sample it would have
  /// reached (a rollback timeline's late start); nil: a late start plays from the beginning.
  public var joinsLate: Bool?
  /// A volume tween it starts along (a fade-in, or a change asked for while it waited).
  public var level: CapturedLevel?
  /// The gain that brings it to its bus's loudness target (1: none).
  public var normalization: Double
  /// Where its placement put it when it was asked for (positional plays).
  public var placementGain: Double?
  public var placementPan: Double?
}

/// A volume tween a play starts along.
public struct CapturedLevel: Sendable, Hashable, Codable {
  public var from: Double
  public var frames: Int
  public var easing: String
  /// The tween's first frame (nil: the voice's own start).
  public var start: UInt64?
}

/// A tween as a capture writes it.
public struct CapturedTween: Sendable, Hashable, Codable {
  public var duration: Double
  public var easing: String
  /// Its first frame (nil: at once).
  public var start: UInt64?
}

/// The buses and the master: volumes, mutes, solos, ducks and the master's channel mix.
public struct CapturedMix: Sendable, Hashable, Codable {
  public var volumes: [String: Double]
  public var muted: [String]
  public var soloed: [String]
  public var critical: [String]
  public var ducks: [String: CapturedDuck]
  public var masterVolume: Double
  public var isMasterMuted: Bool
  public var isMono: Bool
  public var balance: Double
  public var dynamicRange: DynamicRange
}

/// A duck under way: the buses it turns down and the gain it turns them to.
public struct CapturedDuck: Sendable, Hashable, Codable {
  public var buses: [String]
  public var gain: Double
}

extension Easing {
  /// The easing's name in a capture: its name, and its power after a colon when not 2
  /// ("easeIn:3").
  package var captureName: String {
    switch shape {
    case .linear: "linear"
    case .smoothstep: "smoothstep"
    case .easeIn, .easeOut, .easeInEaseOut: power == 2 ? "\(shape)" : "\(shape):\(power)"
    }
  }

  /// The easing a capture names, or nil.
  package init?(captureName: String) {
    let parts = captureName.split(separator: ":", maxSplits: 1)
    guard let base = parts.first.map(String.init), let named = Easing(named: base) else { return nil }
    guard parts.count == 2 else {
      self = named
      return
    }
    guard let power = Int(parts[1]), (1...8).contains(power), named.shape != .linear,
      named.shape != .smoothstep
    else { return nil }
    self.init(named.shape, power: power)
  }
}
