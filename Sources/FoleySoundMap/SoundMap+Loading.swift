import FoleyAudio
import Foundation

// Loading a map's text: parsing it, decoding the files it names (those unchanged on disk are kept),
// and putting the result in use.
extension SoundMap {
  func load(
    _ data: Data
  ) throws(SoundMapError) -> (SoundMapDefinition, [String: Sound], [String: FileSignature]) {
    var parser = SoundMapParser()
    guard let loaded = parser.parse(data) else { throw SoundMapError(errors: parser.errors) }
    // The structure's errors and the files' together: every problem at once.
    var errors = parser.errors
    var decoded: [String: Sound] = [:]
    var signatures: [String: FileSignature] = [:]
    let roots = AssetRoots([folder])
    for (name, path) in loaded.files {
      do throws(SoundError) {
        let file = try roots.locate(name)
        let signature = FileSignature(of: file)
        if let known = sounds[name], let signature, self.signatures[name] == signature {
          decoded[name] = known  // unchanged: not decoded again
          signatures[name] = signature
          continue
        }
        let bytes = try BoundedFile.read(file, limit: engine.library.maximumFileSize, asset: name)
        decoded[name] = try engine.library.sound(for: bytes, name: name)
        signatures[name] = signature
      } catch {
        switch error.code {
        case .unreadable where error.message.hasPrefix("no such file"):
          errors.append("\(path): file \"\(name)\" not found in \(folder.path)")
        case .invalidName: errors.append("\(path): \"\(name)\" is not a file inside \(folder.path)")
        default: errors.append("\(path): \(error)")
        }
      }
    }
    errors += locateMusic(loaded.music, in: roots).errors
    guard errors.isEmpty else { throw SoundMapError(errors: errors) }
    return (loaded, decoded, signatures)
  }

  func apply(
    _ loaded: SoundMapDefinition, sounds decoded: [String: Sound], signatures: [String: FileSignature]
  ) {
    definition = loaded
    sounds = decoded
    self.signatures = signatures
    runtime.items.removeAll()  // the containers are new; voices playing go on
    // The events some stop entry names keep their voices for it.
    for entry in loaded.events.values {
      guard case .stop(let target, _) = entry.effect, definition.events[target] != nil else { continue }
      definition.events[target]!.isStopTarget = true
    }
    variants.retain(only: Array(decoded.values))
    // Pitch variants are rendered now, in the background, for every step a file may be played at.
    for (name, range) in pitchRanges(loaded) {
      guard let sound = decoded[name] else { continue }
      let low = Int((range.lowerBound * PitchVariants.stepsPerSemitone).rounded())
      let high = Int((range.upperBound * PitchVariants.stepsPerSemitone).rounded())
      if low != 0 || high != 0 { variants.render(sound, steps: Array(low...high)) }
    }
    if let mix = loaded.mix { applyMix(mix) }
    applyParameters(loaded)
    musicFiles = locateMusic(loaded.music, in: AssetRoots([folder])).found
    if watchesFile { updateWatch() }
  }

  /// Puts the map's `mix` on the engine: the reverb's preset, and each named bus's volume, send
  /// and effects (new effects each time; buses the map does not name are left as they are).
  private func applyMix(_ mix: MixDefinition) {
    if let preset = mix.reverb { engine.reverb.apply(preset) }
    for (category, bus) in mix.buses.sorted(by: { $0.key.name < $1.key.name }) {
      if let decibels = bus.volumeDecibels { engine.bus(category).volume = pow(10, decibels / 20) }
      do {
        if let send = bus.reverbSend { try engine.bus(category).setReverbSend(send) }
        if let parent = bus.parent { try engine.bus(category).route(to: parent) }
        if let lufs = bus.loudness { try engine.bus(category).setLoudnessTarget(lufs) }
        try engine.bus(category).setEffects(bus.effects.map { $0.make() })
      } catch {
        lastErrors.append("mix.buses[\"\(category)\"]: \(error)")
        engine.core.logger.warning("sound map mix: bus \(category): \(error)")
      }
    }
  }

  /// Defines the map's game parameters and snapshots on the engine (a reload defines them again:
  /// a parameter keeps its value, a snapshot its intensity).
  private func applyParameters(_ loaded: SoundMapDefinition) {
    for (name, parameter) in loaded.parameters.sorted(by: { $0.key < $1.key }) {
      do {
        try engine.defineParameter(name, range: parameter.range, default: parameter.defaultValue)
      } catch {
        lastErrors.append("parameters[\"\(name)\"]: \(error)")
        engine.core.logger.warning("sound map: parameter \(name): \(error)")
      }
    }
    for (name, snapshot) in loaded.snapshots.sorted(by: { $0.key < $1.key }) {
      do {
        try engine.defineSnapshot(snapshot)
      } catch {
        lastErrors.append("snapshots[\"\(name)\"]: \(error)")
        engine.core.logger.warning("sound map: snapshot \(name): \(error)")
      }
    }
  }

  var watchedFiles: [URL] {
    let roots = AssetRoots([folder])
    return (url.map { [$0] } ?? []) + sounds.keys.sorted().compactMap { try? roots.locate($0) }
  }

  /// The pitches each file may be played at, over every path through the items.
  private func pitchRanges(_ definition: SoundMapDefinition) -> [String: ClosedRange<Double>] {
    var ranges: [String: ClosedRange<Double>] = [:]
    func walk(_ item: SoundItem, _ offset: ClosedRange<Double>) {
      // (Two lines, not one range literal: a formatter that breaks before `...` changes its meaning.)
      let low = offset.lowerBound + item.pitchSemitones.lowerBound
      let high = offset.upperBound + item.pitchSemitones.upperBound
      let here = low...high
      switch item.kind {
      case .file(let name):
        let known = ranges[name] ?? here
        ranges[name] = min(known.lowerBound, here.lowerBound)...max(known.upperBound, here.upperBound)
      case .random(let items, _, _), .sequence(let items, _, _), .layer(let items), .blend(_, let items, _):
        items.forEach { walk($0, here) }
      case .switchOn(_, let cases, _): cases.values.forEach { walk($0, here) }
      }
    }
    for entry in definition.events.values { if case .play(let item) = entry.effect { walk(item, 0...0) } }
    return ranges
  }
}
