import FoleyAudio
import Foundation

/// A game parameter as the map's `parameters` section defines it.
package struct ParameterDefinition: Equatable {
  package var range: ClosedRange<Double>
  package var defaultValue: Double
}

/// The map's game parameters, mix snapshots and modulators:
///
/// ```json
/// "parameters": {"speed": {"range": [0, 1], "default": 0}},
/// "snapshots": {"muffled": {"mix": {"buses": {"music": {"volumeDb": -12,
///                "effects": [{"type": "lowPass", "frequency": 800}]}}},
///               "parameters": {"speed": 0}, "mode": "override", "priority": 0}},
/// "events": {
///   "engine": {"play": "tone.wav", "volumeDb": {"parameter": "speed", "curve": [[0, -30], [1, 0]]}},
///   "wobble": {"play": "tone.wav",
///              "modulators": [{"lfo": {"wave": "sine", "rateHz": 4, "depthDb": 6}, "target": "volume"}]}}
/// ```
extension SoundMapParser {
  mutating func parameters(_ value: Any, at path: String) -> [String: ParameterDefinition] {
    guard let object = value as? [String: Any] else {
      errors.append("\(path): must be an object of parameter names")
      return [:]
    }
    var found: [String: ParameterDefinition] = [:]
    for name in object.keys.sorted() {
      let here = "\(path)[\"\(name)\"]"
      guard !name.isEmpty, let entry = object[name] as? [String: Any] else {
        errors.append("\(here): must be an object with \"range\" and \"default\"")
        continue
      }
      unknownKeys(in: entry, allowed: ["range", "default"], at: here)
      guard let range = entry["range"] as? [Any], range.count == 2,
        let low = number(range[0], at: "\(here).range[0]", in: -1e9...1e9),
        let high = number(range[1], at: "\(here).range[1]", in: -1e9...1e9)
      else {
        if !((entry["range"] as? [Any])?.count == 2) { errors.append("\(here).range: must be [min, max]") }
        continue
      }
      guard low < high else {
        errors.append("\(here).range: [\(Self.format(low)), \(Self.format(high))] must rise")
        continue
      }
      let start =
        entry["default"] == nil ? low : number(entry["default"], at: "\(here).default", in: low...high)
      guard let start else { continue }
      found[name] = ParameterDefinition(range: low...high, defaultValue: start)
    }
    return found
  }

  mutating func snapshots(_ value: Any, at path: String) -> [String: MixSnapshot] {
    guard let object = value as? [String: Any] else {
      errors.append("\(path): must be an object of snapshot names")
      return [:]
    }
    var found: [String: MixSnapshot] = [:]
    for name in object.keys.sorted() {
      let here = "\(path)[\"\(name)\"]"
      guard !name.isEmpty, let entry = object[name] as? [String: Any] else {
        errors.append("\(here): must be an object with \"mix\" and/or \"parameters\"")
        continue
      }
      unknownKeys(in: entry, allowed: ["mix", "parameters", "mode", "priority", "intensity"], at: here)
      var snapshot = MixSnapshot(name)
      if let mode = entry["mode"] {
        guard let text = mode as? String, let chosen = MixSnapshot.Mode(rawValue: text) else {
          errors.append("\(here).mode: must be \"override\" or \"blend\"")
          continue
        }
        snapshot.mode = chosen
      }
      if let priority = entry["priority"] {
        guard let value = Self.number(priority), value.rounded() == value, abs(value) < 1e9 else {
          errors.append("\(here).priority: must be a whole number")
          continue
        }
        snapshot.priority = Int(value)
      }
      if let values = entry["parameters"] {
        guard let values = values as? [String: Any] else {
          errors.append("\(here).parameters: must be an object of parameter values")
          continue
        }
        for parameter in values.keys.sorted() {
          let at = "\(here).parameters[\"\(parameter)\"]"
          guard let number = number(values[parameter], at: at, in: -1e9...1e9) else { continue }
          snapshot.parameters[parameter] = number
          parameterReferences.append((parameter, at, number))
        }
      }
      if let mix = entry["mix"] { snapshot.buses = snapshotMix(mix, at: "\(here).mix") }
      if let intensity = entry["intensity"] {
        // The snapshot follows a parameter: its intensity is the curve's value there.
        guard let object = intensity as? [String: Any] else {
          errors.append("\(here).intensity: must be {\"parameter\", \"curve\"} (intensities 0…1)")
          continue
        }
        guard
          let driver = curve(onParameter: object, at: "\(here).intensity", values: 0...1, unit: "intensity")
        else { continue }
        snapshot.driver = MixSnapshot.Driver(parameter: driver.name, curve: driver.curve)
      }
      found[name] = snapshot
    }
    return found
  }

  /// A snapshot's `mix`: the part of the map's `mix` it changes (each bus's `volumeDb`, and its
  /// low- and high-pass filters).
  private mutating func snapshotMix(_ value: Any, at path: String) -> [SoundCategory: MixSnapshot.BusChange] {
    guard let object = value as? [String: Any] else {
      errors.append("\(path): must be an object with \"buses\"")
      return [:]
    }
    unknownKeys(in: object, allowed: ["buses"], at: path)
    guard let buses = object["buses"] as? [String: Any] else {
      errors.append("\(path).buses: must be an object of category names")
      return [:]
    }
    var changes: [SoundCategory: MixSnapshot.BusChange] = [:]
    for name in buses.keys.sorted() {
      let here = "\(path).buses[\"\(name)\"]"
      guard !name.isEmpty, name != "master", name != "reverb", let bus = buses[name] as? [String: Any] else {
        errors.append("\(here): must be a category's bus, as an object")
        continue
      }
      busReferences.append((name, here))
      unknownKeys(in: bus, allowed: ["volumeDb", "effects"], at: here)
      var change = MixSnapshot.BusChange()
      change.volumeDecibels = number(bus["volumeDb"], at: "\(here).volumeDb", in: -96...24) ?? 0
      if let effects = bus["effects"] {
        guard let list = effects as? [Any] else {
          errors.append("\(here).effects: must be a list of effects")
          continue
        }
        for (index, item) in list.enumerated() {
          let at = "\(here).effects[\(index)]"
          guard let effect = item as? [String: Any], let type = effect["type"] as? String else {
            errors.append("\(at): must be an object with a \"type\"")
            continue
          }
          guard type == "lowPass" || type == "highPass" else {
            let hint =
              Self.nearest(to: type, among: ["lowPass", "highPass"]).map { " (did you mean \($0)?)" } ?? ""
            errors.append(
              "\(at).type: a snapshot's effects are \"lowPass\" and \"highPass\", not \"\(type)\"\(hint)")
            continue
          }
          unknownKeys(in: effect, allowed: ["type", "frequency"], at: at)
          guard let frequency = number(effect["frequency"], at: "\(at).frequency", in: 10...20_000) else {
            if effect["frequency"] == nil { errors.append("\(at).frequency: missing") }
            continue
          }
          if type == "lowPass" { change.lowPass = frequency } else { change.highPass = frequency }
        }
      }
      changes[SoundCategory(name)] = change
    }
    return changes
  }

  mutating func parameterCurve(_ object: [String: Any], at path: String) -> Modulator? {
    curve(onParameter: object, at: path, values: -96...24, unit: "dB").map {
      .parameter($0.name, curve: $0.curve)
    }
  }

  /// `{"parameter", "curve", "interpolation"}`: a curve on a parameter whose values (in `unit`)
  /// lie in `values`.
  mutating func curve(
    onParameter object: [String: Any], at path: String, values: ClosedRange<Double>, unit: String
  ) -> (name: String, curve: ParameterCurve)? {
    unknownKeys(in: object, allowed: ["parameter", "curve", "interpolation"], at: path)
    guard let name = object["parameter"] as? String, !name.isEmpty else {
      errors.append("\(path).parameter: must be a parameter's name")
      return nil
    }
    parameterReferences.append((name, "\(path).parameter", nil))
    return curve(object, at: path, inputs: -1e9...1e9, values: values, input: "value", unit: unit).map {
      (name, $0)
    }
  }

  /// `{"curve": [[x, y], …], "interpolation"}`: a curve from `input`s within `inputs` to values
  /// (in `unit`) within `values`; the object's other keys are the caller's to check.
  mutating func curve(
    _ object: [String: Any], at path: String, inputs: ClosedRange<Double>, values: ClosedRange<Double>,
    input: String, unit: String
  ) -> ParameterCurve? {
    var interpolation = ParameterCurve.Interpolation.linear
    if let written = object["interpolation"] {
      guard let text = written as? String, let chosen = ParameterCurve.Interpolation(rawValue: text) else {
        errors.append("\(path).interpolation: must be \"linear\" or \"smooth\"")
        return nil
      }
      interpolation = chosen
    }
    guard let points = object["curve"] as? [Any] else {
      errors.append("\(path).curve: must be a list of [\(input), \(unit)] points")
      return nil
    }
    var pairs: [(Double, Double)] = []
    for (index, point) in points.enumerated() {
      guard let pair = point as? [Any], pair.count == 2,
        let x = number(pair[0], at: "\(path).curve[\(index)][0]", in: inputs),
        let y = number(pair[1], at: "\(path).curve[\(index)][1]", in: values)
      else {
        if (point as? [Any])?.count != 2 {
          errors.append("\(path).curve[\(index)]: must be [\(input), \(unit)]")
        }
        return nil
      }
      pairs.append((x, y))
    }
    do {
      return try ParameterCurve(pairs, interpolation: interpolation)
    } catch {
      errors.append("\(path).curve: \(error)")
      return nil
    }
  }

  /// Every parameter a curve or a snapshot names must be one the map defines: an unknown name is
  /// refused, with the nearest defined one; a snapshot's value must be within its range.
  mutating func checkParameterReferences() {
    let defined = definition.parameters
    for (name, path, value) in parameterReferences {
      guard let parameter = defined[name] else {
        let hint = Self.nearest(to: name, among: Set(defined.keys)).map { " (did you mean \($0)?)" } ?? ""
        errors.append(
          "\(path): no parameter \"\(name)\" in the map's \"parameters\"\(hint)")
        continue
      }
      if let value, !parameter.range.contains(value) {
        errors.append(
          "\(path): \(Self.format(value)) is outside \"\(name)\"'s range "
            + "\(Self.format(parameter.range.lowerBound))...\(Self.format(parameter.range.upperBound))")
      }
    }
  }
}
