import FoleyAudio
import Foundation

/// The map's blend containers: layers heard together, each one's level following a game
/// parameter through its own curve.
extension SoundMapParser {
  /// `{"parameter": NAME, "layers": [ITEM + "curve": [[value, dB], …], …]}`.
  mutating func blend(_ value: Any?, at path: String) -> SoundItem.Kind? {
    guard let object = value as? [String: Any] else {
      errors.append("\(path): must be an object with \"parameter\" and \"layers\"")
      return nil
    }
    unknownKeys(in: object, allowed: ["parameter", "layers"], at: path)
    guard let parameter = object["parameter"] as? String, !parameter.isEmpty else {
      errors.append("\(path).parameter: must be a parameter's name")
      return nil
    }
    parameterReferences.append((parameter, "\(path).parameter", nil))
    guard let layers = object["layers"] as? [Any], !layers.isEmpty else {
      errors.append("\(path).layers: must be a non-empty list of items, each with a \"curve\"")
      return nil
    }
    var items: [SoundItem] = []
    var curves: [ParameterCurve] = []
    for (index, layer) in layers.enumerated() {
      let here = "\(path).layers[\(index)]"
      guard var entry = layer as? [String: Any] else {
        errors.append("\(here): must be an object: an item with a \"curve\"")
        continue
      }
      var shape: [String: Any] = ["parameter": parameter]
      if let curve = entry["curve"] { shape["curve"] = curve }
      if let interpolation = entry["interpolation"] { shape["interpolation"] = interpolation }
      entry["curve"] = nil
      entry["interpolation"] = nil
      guard shape["curve"] != nil else {
        errors.append("\(here).curve: missing (the layer's level in dB along the parameter)")
        continue
      }
      let count = parameterReferences.count
      let curve = parameterCurve(shape, at: here)
      parameterReferences.removeSubrange(count...)  // the blend's parameter is checked once
      if let item = item(entry, at: here), case .parameter(_, let made)? = curve {
        items.append(item)
        curves.append(made)
      }
    }
    return items.count == layers.count ? .blend(parameter: parameter, layers: items, curves: curves) : nil
  }
}
