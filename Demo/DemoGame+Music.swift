import Foley
import Foundation

/// The demo's music, in time: both pieces are 120 bpm in 4/4. N moves from one to the other on the
/// next bar line; a ball that hits the player sounds a stinger on the next beat; the calm piece's
/// pulse stem comes in with the chimes found and the number of balls; Space's three notes start
/// on the next beat; the HUD shows bar and beat. The pieces, their tempo and their states are the sound map's `music`
/// section (Assets/sounds.json): the game posts `music.state` and `music.intensity`. Without a
/// map that has them, the same pieces are played from code.
extension DemoGame {
  /// Calm Waters (with its pulse stem) and Tension, with their tempo maps.
  static func makeMusicPieces() -> [[Track]] {
    // Both are 120 bpm in 4/4 from their first sample (see Scripts/make-assets.sh).
    let tempo = try? TempoMap(bpm: 120, meter: .init(4, 4))
    func track(_ name: String) -> Track {
      var track = Track(named: name, loopCount: -1)
      track.tempo = tempo
      return track
    }
    return [[track("Music/calm.ogg"), track("Music/calm-pulse.flac")], [track("Music/tense.ogg")]]
  }

  /// The pulse stem's level: the hunt's progress (a fifth per chime found) or the balls in play
  /// (in from the second ball, whole at eight), whichever is higher.
  var intensity: Double {
    max(min(1, max(0, Double(balls.count - 1) / 7)), Double(round.found) / Double(max(1, round.chimes)))
  }

  /// Background music: streamed, looping, changed by N; its events go to the report (the
  /// attached scene delivers them each frame).
  func startMusic() {
    let music = engine.music
    music.volume = 0.6
    music.observe { [weak self] event in
      guard let self else { return }
      switch event {
      case .trackChanged(let now): self.report.music.tracks.append(now.title)
      case .looped: self.report.music.loops += 1
      case .failed(let track, let error): self.report.errors.append("music \(track.name): \(error)")
      case .beat(let beat): if beat.isDownbeat { self.report.music.bars += 1 }
      case .momentMoved: self.report.music.momentsMoved += 1
      case .finished, .cue: break
      }
    }
    music.prepare(musicPieces.flatMap { $0 })
    if usesMapMusic {
      postIntensity()
      scene.events.post("music.state", parameters: ["state": .string(Self.mapStates[musicIndex])])
    } else {
      play(piece: musicIndex, at: .now)
    }
    do {
      stinger = try engine.sound(named: "chime.ogg")
    } catch {
      report.errors.append("stinger: \(error)")
    }
  }

  private func play(piece index: Int, at moment: MusicMoment) {
    let piece = musicPieces[index]
    do {
      if piece.count > 1 {
        try engine.music.play(stems: piece, levels: [1, intensity], tween: 2, at: moment)
      } else {
        try engine.music.transition(to: piece[0], at: moment, tween: 2)
      }
    } catch {
      // The music has not begun yet (its check runs): change now.
      if piece.count > 1 {
        try? engine.music.play(stems: piece, levels: [1, intensity], tween: 2)
      } else {
        engine.music.play(piece[0], tween: 2)
      }
    }
  }

  /// The map's music states for the two pieces.
  static let mapStates = ["calm", "tense"]

  /// Whether the sound map has the demo's music states.
  var usesMapMusic: Bool { Set(Self.mapStates).isSubset(of: soundMap?.musicStates ?? []) }

  /// N: the other piece, from the next bar line, crossfading over two seconds.
  func changeMusic() {
    musicIndex = (musicIndex + 1) % musicPieces.count
    if usesMapMusic {
      scene.events.post("music.state", parameters: ["state": .string(Self.mapStates[musicIndex])])
    } else {
      play(piece: musicIndex, at: .nextBar)
    }
  }

  /// A ball hit the player: the stinger, on the next beat (one at a time).
  func stingOnHit() {
    guard let stinger, stingerVoice?.isPlaying != true else { return }
    stingerVoice = try? engine.music.playStinger(stinger, at: .nextBeat, volume: 0.45)
    if stingerVoice != nil { report.music.stingers += 1 }
  }

  /// The pulse stem follows the balls in play.
  func updateIntensity() {
    if usesMapMusic {
      if postedIntensity != intensity { postIntensity() }
    } else if engine.music.stemCount == 2, abs(engine.music.levels[1] - intensity) > 0.001 {
      engine.music.setLevel(intensity, ofStem: 1, tween: 1)
    }
  }

  private func postIntensity() {
    postedIntensity = intensity
    scene.events.post("music.intensity", parameters: ["balls": .number(intensity)])
  }

  /// Space: three notes (the sound map's business: a continuous sequence), starting on the next
  /// beat of the music (within a frame: the map plays when it is posted), or at once without it.
  func playRhythm() {
    guard let next = engine.music.frame(of: .nextBeat) else {
      scene.events.post("rhythm", from: player)
      return
    }
    // The frame is mixed about a buffer before it is heard; the post waits until then.
    let wait = Double(next - engine.audioFrame) / Double(engine.deviceFormat.sampleRate)
    scene.run(
      .sequence([
        .wait(forDuration: max(0, wait)),
        .run { [weak self] in
          guard let self else { return }
          self.scene.events.post("rhythm", from: self.player)
        },
      ]))
  }

  /// "BAR 5:3" while the music keeps time.
  var musicalLine: String {
    engine.music.musicalTime.map { "  BAR \($0.bar):\($0.beat)" } ?? ""
  }
}
