package import FoleyCore
package import Foundation

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
    case .volume(_, _, let tween), .stop(_, let tween), .mix(_, let tween):
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

// A command's line names it by one key, its payload an object (or a string for `unsupported` and
// `end`, `true` for `mark`): {"frame":F,"stop":{"voice":7,"tween":{"duration":0.2,"easing":"easeIn"}}}.
extension CaptureCommand: Codable {
  private enum Key: String, CodingKey {
    case sound, play, volume, gain, place, shape, stop, pause, resume, mix, session, unsupported, mark, end
  }

  private struct VoiceChange: Codable {
    var voice: UInt64
    var to: Double?
    var pan: Double?
    var groupVolume: Double?
    var gain: Double?
    var glide: Int?
    var tween: CapturedTween?
    var kind: String?
    var target: Double?
    var frames: Int?
    var easing: String?
    var start: UInt64?
  }

  private struct MixMove: Codable {
    var settings: CapturedMix
    var tween: CapturedTween
  }

  private struct SessionChange: Codable {
    var inactive: [String]
    var resumesPausedVoices: Bool
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Key.self)
    guard container.allKeys.count == 1, let key = container.allKeys.first else {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: decoder.codingPath,
          debugDescription: "a line names one command (\(container.allKeys.map(\.stringValue)))"))
    }
    func change() throws -> VoiceChange { try container.decode(VoiceChange.self, forKey: key) }
    func missing(_ name: String) -> DecodingError {
      .dataCorrupted(
        DecodingError.Context(codingPath: [key], debugDescription: "\(key.stringValue): no \"\(name)\""))
    }
    switch key {
    case .sound: self = .sound(try container.decode(CapturedSound.self, forKey: key))
    case .play: self = .play(try container.decode(CapturedPlay.self, forKey: key))
    case .volume:
      let change = try change()
      guard let to = change.to, let tween = change.tween else { throw missing("to") }
      self = .volume(voice: change.voice, to: to, tween: tween)
    case .gain:
      let change = try change()
      guard let pan = change.pan, let groupVolume = change.groupVolume else { throw missing("pan") }
      self = .gain(voice: change.voice, pan: pan, groupVolume: groupVolume)
    case .place:
      let change = try change()
      guard let gain = change.gain, let pan = change.pan, let glide = change.glide else {
        throw missing("gain")
      }
      self = .place(voice: change.voice, gain: gain, pan: pan, glide: glide)
    case .shape:
      let change = try change()
      guard let kind = change.kind, let target = change.target, let frames = change.frames,
        let easing = change.easing, let start = change.start
      else { throw missing("kind") }
      self = .shape(
        voice: change.voice, kind: kind, target: target, frames: frames, easing: easing, start: start)
    case .stop:
      let change = try change()
      guard let tween = change.tween else { throw missing("tween") }
      self = .stop(voice: change.voice, tween: tween)
    case .pause: self = .pause(voice: try change().voice)
    case .resume: self = .resume(voice: try change().voice)
    case .mix:
      let move = try container.decode(MixMove.self, forKey: key)
      self = .mix(move.settings, tween: move.tween)
    case .session:
      let change = try container.decode(SessionChange.self, forKey: key)
      self = .session(inactive: change.inactive, resumesPausedVoices: change.resumesPausedVoices)
    case .unsupported: self = .unsupported(try container.decode(String.self, forKey: key))
    case .mark: self = .mark
    case .end: self = .end(try container.decode(String.self, forKey: key))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Key.self)
    switch self {
    case .sound(let sound): try container.encode(sound, forKey: .sound)
    case .play(let play): try container.encode(play, forKey: .play)
    case .volume(let voice, let to, let tween):
      try container.encode(VoiceChange(voice: voice, to: to, tween: tween), forKey: .volume)
    case .gain(let voice, let pan, let groupVolume):
      try container.encode(VoiceChange(voice: voice, pan: pan, groupVolume: groupVolume), forKey: .gain)
    case .place(let voice, let gain, let pan, let glide):
      try container.encode(VoiceChange(voice: voice, pan: pan, gain: gain, glide: glide), forKey: .place)
    case .shape(let voice, let kind, let target, let frames, let easing, let start):
      try container.encode(
        VoiceChange(voice: voice, kind: kind, target: target, frames: frames, easing: easing, start: start),
        forKey: .shape)
    case .stop(let voice, let tween):
      try container.encode(VoiceChange(voice: voice, tween: tween), forKey: .stop)
    case .pause(let voice): try container.encode(VoiceChange(voice: voice), forKey: .pause)
    case .resume(let voice): try container.encode(VoiceChange(voice: voice), forKey: .resume)
    case .mix(let settings, let tween):
      try container.encode(MixMove(settings: settings, tween: tween), forKey: .mix)
    case .session(let inactive, let resumes):
      try container.encode(SessionChange(inactive: inactive, resumesPausedVoices: resumes), forKey: .session)
    case .unsupported(let kind): try container.encode(kind, forKey: .unsupported)
    case .mark: try container.encode(true, forKey: .mark)
    case .end(let reason): try container.encode(reason, forKey: .end)
    }
  }
}

extension CaptureRecord {
  /// The record's line, without its newline: written by hand for the commands a game gives many
  /// times a frame (a play, a voice's change), through `encoder` for the rest. The same JSON
  /// either way (sorted keys; a number that is not finite is written as 0).
  package func line(using encoder: JSONEncoder) -> Data? {
    func number(_ value: Double) -> String {
      guard value.isFinite else { return "0" }
      // Whole numbers as JSONEncoder writes them: 1, not 1.0.
      return value == value.rounded() && abs(value) < 1e15 ? "\(Int64(value))" : "\(value)"
    }
    func tween(_ tween: CapturedTween) -> String {
      "{\"duration\":\(number(tween.duration)),\"easing\":\"\(tween.easing)\""
        + (tween.start.map { ",\"start\":\($0)" } ?? "") + "}"
    }
    let body: String
    switch command {
    case .play(let play):
      var fields = ["\"groupVolume\":\(number(play.groupVolume))"]
      if let level = play.level {
        fields.append(
          "\"level\":{\"easing\":\"\(level.easing)\",\"frames\":\(level.frames),\"from\":\(number(level.from))"
            + (level.start.map { ",\"start\":\($0)" } ?? "") + "}")
      }
      fields.append("\"loops\":\(play.loops)")
      fields.append("\"normalization\":\(number(play.normalization))")
      fields.append("\"pan\":\(number(play.pan))")
      if let gain = play.placementGain { fields.append("\"placementGain\":\(number(gain))") }
      if let pan = play.placementPan { fields.append("\"placementPan\":\(number(pan))") }
      fields.append("\"rate\":\(number(play.rate))")
      fields.append("\"sound\":\(play.sound)")
      if let start = play.start { fields.append("\"start\":\(start)") }
      fields.append("\"voice\":\(play.voice)")
      fields.append("\"volume\":\(number(play.volume))")
      body = "\"play\":{" + fields.joined(separator: ",") + "}"
    case .volume(let voice, let to, let given):
      body = "\"volume\":{\"to\":\(number(to)),\"tween\":\(tween(given)),\"voice\":\(voice)}"
    case .gain(let voice, let pan, let groupVolume):
      body = "\"gain\":{\"groupVolume\":\(number(groupVolume)),\"pan\":\(number(pan)),\"voice\":\(voice)}"
    case .place(let voice, let gain, let pan, let glide):
      body =
        "\"place\":{\"gain\":\(number(gain)),\"glide\":\(glide),\"pan\":\(number(pan)),\"voice\":\(voice)}"
    case .shape(let voice, let kind, let target, let frames, let easing, let start):
      body =
        "\"shape\":{\"easing\":\"\(easing)\",\"frames\":\(frames),\"kind\":\"\(kind)\",\"start\":\(start),"
        + "\"target\":\(number(target)),\"voice\":\(voice)}"
    case .stop(let voice, let given): body = "\"stop\":{\"tween\":\(tween(given)),\"voice\":\(voice)}"
    case .pause(let voice): body = "\"pause\":{\"voice\":\(voice)}"
    case .resume(let voice): body = "\"resume\":{\"voice\":\(voice)}"
    case .mark: body = "\"mark\":true"
    case .sound, .mix, .session, .unsupported, .end:
      return try? encoder.encode(self)
    }
    return Data("{\"frame\":\(frame),\(body)}".utf8)
  }
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
