import FoleyAudio
import FoleyMusic
import FoleyScene
import Foundation

// The map's music: `music.state` moves to a state on its musical moment, `music.intensity`
// brings a piece's stems in with a game parameter.
extension SoundMap {
  /// The state the map's music is in (the last `music.state` that moved it); nil before one.
  public var musicState: String? { runtime.musicState }

  /// The music states the map names, for `music.state`.
  public var musicStates: [String] { definition.music?.states.keys.sorted() ?? [] }

  /// The game parameters that bring the music's stems in (`music.intensity`), each with its value
  /// now (0…1; 0 before the game sets it).
  public var intensityParameters: [String: Double] {
    let names = definition.music?.tracks.values.compactMap(\.intensity) ?? []
    return Dictionary(
      names.map { ($0, runtime.parameters[$0] ?? 0) }, uniquingKeysWith: { first, _ in first })
  }

  /// The game parameters the map's switches read, each with the values its cases name: what an
  /// audition may pass (`surface`: `grass`, `stone`, …).
  public var switchParameters: [String: [String]] { switchesFound }

  /// The buses the map's events, snapshots and effects may name: the engine's four and those its
  /// `mix.buses` declares.
  package var declaredBuses: Set<String> { definition.declaredBuses }

  /// Handles `music.state` (parameter `state`) and `music.intensity` (the piece's intensity
  /// parameter, 0…1); false for any other event.
  func handleMusic(_ event: GameEvent) -> Bool {
    switch event.name {
    case "music.state":
      guard let name = event.parameters["state"]?.description else {
        engine.core.logger.warning("sound map: music.state without a \"state\" parameter")
        return true
      }
      enterMusicState(name)
      return true
    case "music.intensity":
      for (key, value) in event.parameters {
        if let number = value.number, number.isFinite { runtime.parameters[key] = min(max(number, 0), 1) }
      }
      applyIntensity(fade: nil)
      return true
    default:
      return false
    }
  }

  /// Moves the music to state `name` on its rule's moment (nothing if it is already there).
  func enterMusicState(_ name: String) {
    guard let music = definition.music, let state = music.states[name], let piece = music.tracks[state.track]
    else {
      engine.core.logger.warning("sound map: no music state \"\(name)\"")
      return
    }
    guard runtime.musicState != name || !engine.music.isPlaying else { return }
    let tracks = piece.files.compactMap { file -> Track? in
      guard let url = musicFiles[file] else { return nil }
      var track = Track(url: url, loopCount: piece.loop)
      track.tempo = piece.tempo
      return track
    }
    guard tracks.count == piece.files.count, let first = tracks.first else { return }
    let player = engine.music
    do {
      if tracks.count == 1 {
        try player.transition(
          to: first, at: state.moment, tween: Tween(duration: state.fade), entry: state.entry)
      } else {
        try player.play(
          stems: tracks, levels: levels(for: piece), tween: Tween(duration: state.fade), at: state.moment)
      }
    } catch {
      // What plays has no such moment (no tempo map, say): the change happens at once.
      engine.core.logger.info("sound map: music state \"\(name)\": \(error); changing now")
      if tracks.count == 1 {
        player.play(first, tween: Tween(duration: state.fade))
      } else {
        try? player.play(stems: tracks, levels: levels(for: piece), tween: Tween(duration: state.fade))
      }
    }
    runtime.musicState = name
  }

  /// Each stem's level for the piece's intensity parameter: the first always, the others one
  /// after another as the value goes from 0 to 1.
  private func levels(for piece: MusicDefinition.Piece) -> [Double] {
    let count = piece.files.count
    guard count > 1, let parameter = piece.intensity else { return Array(repeating: 1, count: count) }
    let value = runtime.parameters[parameter] ?? 0
    return (0..<count).map { index in
      index == 0 ? 1 : min(1, max(0, value * Double(count - 1) - Double(index - 1)))
    }
  }

  private func applyIntensity(fade: Double?) {
    guard let state = runtime.musicState, let music = definition.music,
      let piece = music.states[state].flatMap({ music.tracks[$0.track] }), piece.files.count > 1
    else { return }
    for (index, level) in levels(for: piece).enumerated() {
      engine.music.setLevel(level, ofStem: index, tween: Tween(duration: fade ?? piece.intensityFade))
    }
  }

  /// Finds the music section's files in the map's folder, and the errors of those that are not.
  func locateMusic(
    _ music: MusicDefinition?, in roots: AssetRoots
  ) -> (found: [String: URL], errors: [String]) {
    var errors: [String] = []
    var found: [String: URL] = [:]
    for (name, piece) in (music?.tracks ?? [:]).sorted(by: { $0.key < $1.key }) {
      for file in piece.files where found[file] == nil {
        do throws(SoundError) {
          found[file] = try roots.locate(file)
        } catch {
          errors.append(
            "music.tracks[\"\(name)\"]: file \"\(file)\" \(error.code == .invalidName ? "is not inside" : "not found in") \(folder.path)"
          )
        }
      }
    }
    return (found, errors)
  }
}
