/// What the inspector shows of each effect: its kind and its parameters now.
extension AudioEffect {
  package var inspection: EffectSnapshot {
    switch self {
    case let filter as FilterEffect:
      var parameters = ["frequency": filter.frequencyHertz, "q": filter.q]
      let name: String
      switch filter.kind {
      case .lowPass: name = "lowPass"
      case .highPass: name = "highPass"
      case .bandPass: name = "bandPass"
      case .notch: name = "notch"
      case .lowShelf(let gain): (name, parameters["gainDB"]) = ("lowShelf", gain)
      case .highShelf(let gain): (name, parameters["gainDB"]) = ("highShelf", gain)
      case .peaking(let gain): (name, parameters["gainDB"]) = ("peaking", gain)
      }
      return EffectSnapshot(kind: "filter:" + name, parameters: parameters)
    case let reverb as ReverbEffect:
      let preset = reverb.preset
      return EffectSnapshot(
        kind: "reverb",
        parameters: [
          "roomSize": preset.roomSize, "damping": preset.damping, "preDelay": preset.preDelay,
          "wet": preset.wet, "dry": reverb.dry,
        ])
    case let delay as DelayEffect:
      return EffectSnapshot(
        kind: "delay",
        parameters: [
          "time": delay.time, "feedback": delay.feedback, "wet": delay.wet, "dry": delay.dry,
          "damping": delay.damping,
        ])
    case let compressor as CompressorEffect:
      return EffectSnapshot(
        kind: "compressor",
        parameters: [
          "threshold": compressor.threshold, "ratio": compressor.ratio, "attack": compressor.attack,
          "release": compressor.release, "range": compressor.range, "makeUpGain": compressor.makeUpGain,
          "gainReduction": compressor.gainReduction,
        ])
    default:
      return EffectSnapshot(kind: "effect", parameters: [:])
    }
  }
}
