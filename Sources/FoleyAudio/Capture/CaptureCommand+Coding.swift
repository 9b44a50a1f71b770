package import Foundation

// A command's line names it by one key, its payload an object (or a string for `unsupported` and
// `end`, `true` for `mark`): {"frame":F,"stop":{"voice":7,"tween":{"duration":0.2,"easing":"easeIn"}}}.
extension CaptureCommand: Codable {
  private enum Key: String, CodingKey {
    case sound, play, volume, pan, gain, place, shape, stop, pause, resume, mix, session, unsupported, mark,
      end
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
    case .pan:
      let change = try change()
      guard let to = change.to, let tween = change.tween else { throw missing("to") }
      self = .pan(voice: change.voice, to: to, tween: tween)
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
    case .pan(let voice, let to, let tween):
      try container.encode(VoiceChange(voice: voice, to: to, tween: tween), forKey: .pan)
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
      if play.joinsLate == true { fields.append("\"joinsLate\":true") }
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
    case .pan(let voice, let to, let given):
      body = "\"pan\":{\"to\":\(number(to)),\"tween\":\(tween(given)),\"voice\":\(voice)}"
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
