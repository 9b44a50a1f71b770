import FoleyAudio
import Foundation

/// An event's modulators in the map: `volumeDb` written as a parameter's curve, and a
/// `modulators` list of LFOs, curves on parameters, envelopes and followers, each on the volume:
///
/// ```json
/// "modulators": [
///   {"lfo": {"wave": "sine", "rateHz": 4, "depthDb": 6}, "target": "volume"},
///   {"envelope": {"attack": 0.3, "hold": 0, "decay": 0.5, "sustainDb": -6, "release": 1.5}},
///   {"follower": {"bus": "speech", "curve": [[-40, 0], [-10, -12]], "attack": 0.02, "release": 0.4}}
/// ]
/// ```
extension SoundMapParser {
  /// An event's modulators: `volumeDb` written as a parameter's curve, and its `modulators` list.
  mutating func modulators(_ object: [String: Any], at path: String) -> [Modulator] {
    var found: [Modulator] = []
    if let curve = object["volumeDb"] as? [String: Any] {
      if let made = parameterCurve(curve, at: "\(path).volumeDb") { found.append(made) }
    }
    if let list = object["modulators"] {
      guard let list = list as? [Any] else {
        errors.append("\(path).modulators: must be a list of modulators")
        return found
      }
      for (index, item) in list.enumerated() {
        let here = "\(path).modulators[\(index)]"
        guard let entry = item as? [String: Any] else {
          errors.append("\(here): must be an object with \(Self.modulatorKinds), and a \"target\"")
          continue
        }
        if let target = entry["target"], target as? String != "volume" {
          errors.append("\(here).target: must be \"volume\" (the one property modulators move)")
          continue
        }
        if let lfo = entry["lfo"] {
          unknownKeys(in: entry, allowed: ["lfo", "target"], at: here)
          if let made = self.lfo(lfo, at: "\(here).lfo") { found.append(made) }
        } else if entry["parameter"] != nil {
          var curve = entry
          curve["target"] = nil
          if let made = parameterCurve(curve, at: here) { found.append(made) }
        } else if let envelope = entry["envelope"] {
          unknownKeys(in: entry, allowed: ["envelope", "target"], at: here)
          if let made = self.envelope(envelope, at: "\(here).envelope") { found.append(made) }
        } else if let follower = entry["follower"] {
          unknownKeys(in: entry, allowed: ["follower", "target"], at: here)
          if let made = self.follower(follower, at: "\(here).follower") { found.append(made) }
        } else {
          errors.append("\(here): needs \(Self.modulatorKinds)")
        }
      }
    }
    if found.count > 4 {
      errors.append("\(path): at most 4 modulators on an event (it has \(found.count))")
    }
    return found
  }

  private mutating func lfo(_ value: Any, at path: String) -> Modulator? {
    guard let object = value as? [String: Any] else {
      errors.append("\(path): must be an object with \"wave\", \"rateHz\" and \"depthDb\"")
      return nil
    }
    unknownKeys(in: object, allowed: ["wave", "rateHz", "depthDb"], at: path)
    var wave = LFO.Wave.sine
    if let written = object["wave"] {
      let names = Set(LFO.Wave.allCases.map(\.rawValue))
      guard let text = written as? String, let chosen = LFO.Wave(rawValue: text) else {
        let hint = (written as? String).flatMap { Self.nearest(to: $0, among: names) }.map {
          " (did you mean \($0)?)"
        }
        errors.append("\(path).wave: must be one of \(names.sorted().joined(separator: ", "))\(hint ?? "")")
        return nil
      }
      wave = chosen
    }
    guard let rate = number(object["rateHz"], at: "\(path).rateHz", in: 0.01...50) else {
      if object["rateHz"] == nil { errors.append("\(path).rateHz: missing") }
      return nil
    }
    guard let depth = number(object["depthDb"], at: "\(path).depthDb", in: 0...60) else {
      if object["depthDb"] == nil { errors.append("\(path).depthDb: missing") }
      return nil
    }
    return .lfo(wave, rateHz: rate, depthDecibels: depth)
  }

  static let modulatorKinds = "\"lfo\", \"parameter\", \"envelope\" or \"follower\""

  /// `{"attack", "hold", "decay", "sustainDb", "release"}`: seconds (0…60) and decibels (-60…0),
  /// each 0 when left out.
  private mutating func envelope(_ value: Any, at path: String) -> Modulator? {
    guard let object = value as? [String: Any] else {
      errors.append(
        "\(path): must be an object with \"attack\", \"hold\", \"decay\", \"sustainDb\", \"release\"")
      return nil
    }
    unknownKeys(in: object, allowed: ["attack", "hold", "decay", "sustainDb", "release"], at: path)
    var seconds: [String: Double] = [:]
    for key in ["attack", "hold", "decay", "release"] where object[key] != nil {
      guard let number = number(object[key], at: "\(path).\(key)", in: 0...60) else { return nil }
      seconds[key] = number
    }
    var sustain = 0.0
    if object["sustainDb"] != nil {
      guard let number = number(object["sustainDb"], at: "\(path).sustainDb", in: -60...0) else { return nil }
      sustain = number
    }
    return .envelope(
      attack: seconds["attack"] ?? 0, hold: seconds["hold"] ?? 0, decay: seconds["decay"] ?? 0,
      sustainDecibels: sustain, release: seconds["release"] ?? 0)
  }

  /// `{"bus", "curve": [[dBFS, dB], …], "interpolation", "attack", "release"}`: a bus's level
  /// through a curve, smoothed over seconds (0.001…10).
  private mutating func follower(_ value: Any, at path: String) -> Modulator? {
    guard let object = value as? [String: Any] else {
      errors.append("\(path): must be an object with \"bus\" and \"curve\"")
      return nil
    }
    unknownKeys(in: object, allowed: ["bus", "curve", "interpolation", "attack", "release"], at: path)
    guard let bus = object["bus"] as? String, !bus.isEmpty else {
      errors.append(
        "\(path).bus: must be a bus name (effects, music, ambience, speech, or one mix.buses declares)")
      return nil
    }
    busReferences.append((bus, "\(path).bus"))
    guard
      let curve = curve(object, at: path, inputs: -100...0, values: -96...24, input: "dBFS", unit: "dB")
    else { return nil }
    var attack = 0.01
    var release = 0.25
    if object["attack"] != nil {
      guard let number = number(object["attack"], at: "\(path).attack", in: 0.001...10) else { return nil }
      attack = number
    }
    if object["release"] != nil {
      guard let number = number(object["release"], at: "\(path).release", in: 0.001...10) else { return nil }
      release = number
    }
    return .follower(of: SoundCategory(bus), curve: curve, attack: attack, release: release)
  }
}
