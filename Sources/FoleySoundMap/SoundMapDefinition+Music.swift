import FoleyAudio
package import FoleyMusic
import Foundation

/// The map's `music` section: the game's pieces of music (a file, or stems of one length), their
/// tempo maps, and the states the game moves between, each with the musical moment it changes on.
///
/// ```json
/// "music": {
///   "tracks": {
///     "explore": { "file": "Music/explore.ogg", "loop": -1,
///                  "tempo": { "bpm": 96, "meter": "4/4", "offset": 0.5, "cues": { "calm": 20.5 } } },
///     "combat": { "stems": ["Music/combat-drums.ogg", "Music/combat-strings.ogg"], "loop": -1,
///                 "tempo": { "bpm": 140, "changes": [{ "bar": 17, "bpm": 140, "meter": "3/4" }] },
///                 "intensity": "danger", "intensityFade": 2 }
///   },
///   "states": {
///     "explore": { "track": "explore", "at": "bar", "fade": 2 },
///     "combat": { "track": "combat", "at": "bar", "entry": "calm" }
///   }
/// }
/// ```
package struct MusicDefinition {
  package struct Piece {
    /// One file, or the stems (the first is the one whose tempo map and loops lead).
    package var files: [String]
    package var loop: Int = 0
    package var tempo: TempoMap?
    /// The game parameter whose value (0…1) brings the stems in one after another.
    package var intensity: String?
    var intensityFade: Double = 1
  }

  package struct State {
    package var track: String
    package var moment: MusicMoment = .nextBar
    package var fade: Double = 0
    package var entry: String?
  }

  package var tracks: [String: Piece] = [:]
  package var states: [String: State] = [:]
}

extension SoundMapParser {
  static let musicTrackKeys: Set<String> = ["file", "stems", "loop", "tempo", "intensity", "intensityFade"]

  mutating func music(_ value: Any, at path: String) -> MusicDefinition? {
    guard let object = value as? [String: Any] else {
      errors.append("\(path): must be an object with \"tracks\" and \"states\"")
      return nil
    }
    unknownKeys(in: object, allowed: ["tracks", "states"], at: path)
    var music = MusicDefinition()
    if let tracks = object["tracks"] {
      if let tracks = tracks as? [String: Any], tracks.count <= 1_024 {
        for name in tracks.keys.sorted() {
          if let piece = piece(tracks[name]!, at: "\(path).tracks[\"\(name)\"]") {
            music.tracks[name] = piece
          }
        }
      } else {
        errors.append("\(path).tracks: must be an object of up to 1024 track names")
      }
    }
    if let states = object["states"] {
      if let states = states as? [String: Any], states.count <= 1_024 {
        for name in states.keys.sorted() {
          let statePath = "\(path).states[\"\(name)\"]"
          guard let state = state(states[name]!, at: statePath) else { continue }
          if music.tracks[state.track] == nil {
            let hint =
              Self.nearest(to: state.track, among: Set(music.tracks.keys)).map { " (did you mean \($0)?)" }
              ?? ""
            errors.append("\(statePath).track: no track \"\(state.track)\" in music.tracks\(hint)")
          } else if let entry = state.entry, music.tracks[state.track]?.tempo?.cues[entry] == nil {
            errors.append("\(statePath).entry: track \"\(state.track)\" has no cue \"\(entry)\"")
          }
          music.states[name] = state
        }
      } else {
        errors.append("\(path).states: must be an object of up to 1024 state names")
      }
    }
    return music
  }

  private mutating func piece(_ value: Any, at path: String) -> MusicDefinition.Piece? {
    guard let object = value as? [String: Any] else {
      errors.append("\(path): must be an object")
      return nil
    }
    unknownKeys(in: object, allowed: Self.musicTrackKeys, at: path)
    var files: [String] = []
    switch (object["file"], object["stems"]) {
    case (let file as String, nil) where !file.isEmpty:
      files = [file]
    case (nil, let stems as [Any]) where (1...16).contains(stems.count):
      for (index, stem) in stems.enumerated() {
        guard let file = stem as? String, !file.isEmpty else {
          errors.append("\(path).stems[\(index)]: must be a file name")
          return nil
        }
        files.append(file)
      }
    default:
      errors.append("\(path): needs \"file\" (a file name) or \"stems\" (1 to 16 file names), not both")
      return nil
    }
    var piece = MusicDefinition.Piece(files: files.map(AssetRoots.canonicalName))
    if let loop = number(object["loop"], at: "\(path).loop", in: -1...1_000_000) {
      if loop.rounded() == loop {
        piece.loop = Int(loop)
      } else {
        errors.append("\(path).loop: must be a whole number (-1: for ever)")
      }
    }
    if let tempo = object["tempo"] { piece.tempo = self.tempo(tempo, at: "\(path).tempo") }
    if let intensity = object["intensity"] {
      if let name = intensity as? String, !name.isEmpty {
        piece.intensity = name
      } else {
        errors.append("\(path).intensity: must be the name of a game parameter")
      }
    }
    if let fade = number(object["intensityFade"], at: "\(path).intensityFade", in: 0...60) {
      piece.intensityFade = fade
    }
    return piece
  }

  private mutating func state(_ value: Any, at path: String) -> MusicDefinition.State? {
    guard let object = value as? [String: Any] else {
      errors.append("\(path): must be an object with \"track\"")
      return nil
    }
    unknownKeys(in: object, allowed: ["track", "at", "fade", "entry"], at: path)
    guard let track = object["track"] as? String, !track.isEmpty else {
      errors.append("\(path).track: missing, or not a track's name")
      return nil
    }
    var state = MusicDefinition.State(track: track)
    if let at = object["at"] {
      switch at as? String {
      case "now": state.moment = .now
      case "grid": state.moment = .nextGrid
      case "beat": state.moment = .nextBeat
      case "bar": state.moment = .nextBar
      case "end": state.moment = .end
      case let text? where text.hasPrefix("cue:") && text.count > 4:
        state.moment = .cue(String(text.dropFirst(4)))
      default: errors.append("\(path).at: must be now, grid, beat, bar, end or cue:NAME")
      }
    }
    if let fade = number(object["fade"], at: "\(path).fade", in: 0...60) { state.fade = fade }
    if let entry = object["entry"] {
      if let name = entry as? String, !name.isEmpty {
        state.entry = name
      } else {
        errors.append("\(path).entry: must be a cue's name")
      }
    }
    return state
  }

  /// `{ "bpm": 120, "meter": "4/4", "offset": 0, "changes": [{ "bar", "bpm", "meter" }], "cues": { name: seconds },
  /// "grid": 4 }`
  private mutating func tempo(_ value: Any, at path: String) -> TempoMap? {
    guard let object = value as? [String: Any] else {
      errors.append("\(path): must be an object with \"bpm\"")
      return nil
    }
    unknownKeys(in: object, allowed: ["bpm", "meter", "offset", "changes", "cues", "grid"], at: path)
    let before = errors.count
    guard let bpm = number(object["bpm"], at: "\(path).bpm", in: TempoMap.bpmRange) else {
      if object["bpm"] == nil { errors.append("\(path).bpm: missing (beats per minute)") }
      return nil
    }
    let meter = self.meter(object["meter"], at: "\(path).meter") ?? .init(4, 4)
    let offset = number(object["offset"], at: "\(path).offset", in: 0...86_400) ?? 0
    var grid = 4
    if let value = object["grid"] {
      if let steps = Self.number(value), steps.rounded() == steps,
        Double(TempoMap.gridRange.lowerBound)...Double(TempoMap.gridRange.upperBound) ~= steps
      {
        grid = Int(steps)
      } else {
        errors.append(
          "\(path).grid: must be a whole number of steps to the beat, \(TempoMap.gridRange.lowerBound)…\(TempoMap.gridRange.upperBound)"
        )
      }
    }
    var changes: [TempoMap.Change] = []
    if let list = object["changes"] {
      if let list = list as? [Any], list.count < TempoMap.maximumEntries {
        for (index, item) in list.enumerated() {
          let itemPath = "\(path).changes[\(index)]"
          guard let change = item as? [String: Any] else {
            errors.append("\(itemPath): must be an object with \"bar\", \"bpm\" and \"meter\"")
            continue
          }
          unknownKeys(in: change, allowed: ["bar", "bpm", "meter"], at: itemPath)
          guard let bar = number(change["bar"], at: "\(itemPath).bar", in: 2...999_999), bar.rounded() == bar
          else {
            if change["bar"] == nil || (Self.number(change["bar"]!).map { $0.rounded() != $0 } ?? false) {
              errors.append("\(itemPath).bar: must be a whole bar number from 2")
            }
            continue
          }
          let changeBPM = number(change["bpm"], at: "\(itemPath).bpm", in: TempoMap.bpmRange) ?? bpm
          let changeMeter = self.meter(change["meter"], at: "\(itemPath).meter") ?? meter
          changes.append(.init(bar: Int(bar), bpm: changeBPM, meter: changeMeter))
        }
      } else {
        errors.append("\(path).changes: must be a list of fewer than \(TempoMap.maximumEntries) changes")
      }
    }
    var cues: [String: Double] = [:]
    if let object = object["cues"] {
      if let object = object as? [String: Any], object.count <= TempoMap.maximumEntries {
        for name in object.keys.sorted() {
          if let seconds = number(object[name], at: "\(path).cues[\"\(name)\"]", in: 0...86_400) {
            cues[name] = seconds
          }
        }
      } else {
        errors.append("\(path).cues: must be an object of cue names and seconds")
      }
    }
    guard errors.count == before else { return nil }
    do {
      return try TempoMap(bpm: bpm, meter: meter, offset: offset, changes: changes, cues: cues, grid: grid)
    } catch {
      errors.append("\(path): \(error)")
      return nil
    }
  }

  private mutating func meter(_ value: Any?, at path: String) -> TempoMap.Meter? {
    guard let value else { return nil }
    guard let text = value as? String, let meter = TempoMap.Meter(text) else {
      errors.append("\(path): must be beats/note, as \"4/4\" or \"6/8\"")
      return nil
    }
    return meter
  }
}
