import Foley
import Foundation

/// A field of embers: 150 crackling emitters scattered over the ground, each an `AudioNode`
/// looping its crackle where it lies. Only the six loudest (the nearest the player) are mixed;
/// the rest are virtual voices that keep time without a channel and come back, on their sample,
/// as the player walks up to them. The HUD counts both.
extension DemoGame {
  static let emberCount = 150
  static let emberBudget = 6
  static let emberCategory: SoundCategory = "embers"

  /// A second of crackle: sparse pops, each a short decaying burst, at a quiet level.
  static func crackle(seed: UInt64, rate: Int) -> Data {
    var state = seed &* 6_364_136_223_846_793_005 &+ 1
    func next() -> Double {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Double(state >> 11) / Double(1 << 53)
    }
    var samples = [Float](repeating: 0, count: rate)
    var at = Int(next() * 2_000)
    while at < samples.count {
      let length = 200 + Int(next() * 600)
      let level = 0.15 + 0.35 * next()
      for offset in 0..<length where at + offset < samples.count {
        let decay = exp(-Double(offset) / Double(length) * 5)
        samples[at + offset] += Float(level * decay * (next() * 2 - 1))
      }
      at += 1_500 + Int(next() * 9_000)
    }
    return samples.withUnsafeBytes {
      WAVFile.data(
        format: RecordingFormat(sampleRate: rate, channels: 1, sampleFormat: .float32), samples: $0)
    }
  }

  /// Scatters the embers (the same places every run) and gives their bus its budget.
  func scatterEmbers() {
    var settings = SoundSettings()
    settings.category = Self.emberCategory
    settings.volume = 0.5
    let variants = (0..<4).compactMap { seed in
      try? Sound(
        data: Self.crackle(seed: UInt64(seed + 1), rate: engine.deviceFormat.sampleRate),
        name: "ember-\(seed).wav", engine: engine, settings: settings)
    }
    guard !variants.isEmpty else { return }
    do {
      try engine.bus(Self.emberCategory).setMaximumAudibleVoices(Self.emberBudget)
    } catch {
      report.errors.append("\(error)")
    }
    var random = SeededRandomGenerator(seed: 150)
    for index in 0..<Self.emberCount {
      let ember = AudioNode(sound: variants[index % variants.count])
      ember.name = "ember"
      ember.position = Point(
        x: Double.random(in: 20...(scene.size.width - 20), using: &random),
        y: Double.random(in: 100...(fieldTop - 10), using: &random))
      ember.zPosition = -0.5
      let glow = SpriteNode(color: Color(red: 1, green: 0.45, blue: 0.1), size: Size(width: 4, height: 4))
      ember.addChild(glow)
      scene.addChild(ember)
    }
  }
}
