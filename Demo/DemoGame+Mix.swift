import Foley
import Foundation

/// The game drives the mix through the sound map's grammar: the `title` snapshot while the title
/// shows, `pause` while the player pauses the round, and `danger` (a parameter and a snapshot at the same intensity) rising as the nearest
/// ball closes in on the player: the music backs off and the hums, which follow the parameter,
/// come up. A map without them (`--sound-map`) plays without them.
extension DemoGame {
  /// How close (points) a ball is at full danger, and how far it is at none.
  static let dangerRange = 40.0...240.0

  /// Applies the title's mix (at once: it is the first thing heard).
  func applyTitleMix() {
    apply("title", intensity: 1, over: 0)
  }

  /// Releases the title's mix over a second as the first level begins.
  func releaseTitleMix() {
    guard engine.snapshots["title"] != nil else { return }
    do {
      try engine.releaseSnapshot("title", tween: Tween(duration: 1, easing: .easeOut))
    } catch {
      report.errors.append("mix: \(error)")
    }
  }

  /// Pauses the round, or goes on with it: the `pause` snapshot comes in over 0.3 s (the music
  /// muffled and down, the hums and the wind further down) and leaves over 0.5 s. Only a round
  /// in play pauses.
  func togglePause() {
    guard isPaused || (!showsTitle && round.outcome == nil) else { return }
    isPaused.toggle()
    guard engine.snapshots["pause"] != nil else { return }
    if isPaused {
      apply("pause", intensity: 1, over: 0.3)
    } else {
      do {
        try engine.releaseSnapshot("pause", tween: Tween(duration: 0.5, easing: .easeOut))
      } catch {
        report.errors.append("mix: \(error)")
      }
    }
  }

  /// The danger now: 0 with no ball within ``dangerRange``'s far end, 1 with one at its near end.
  var danger: Double {
    var nearest = Double.infinity
    for (ball, _) in balls {
      let offset = ball.position - player.position
      nearest = min(nearest, (offset.dx * offset.dx + offset.dy * offset.dy).squareRoot())
    }
    let range = Self.dangerRange
    return min(1, max(0, (range.upperBound - nearest) / (range.upperBound - range.lowerBound)))
  }

  /// Each frame: the parameter and the snapshot follow the danger, tweened over a quarter of a
  /// second, when it has moved by more than a step.
  func updateDanger() {
    let now = showsTitle || round.outcome != nil ? 0 : danger
    guard abs(now - lastDanger) > 0.02 || (now == 0 && lastDanger != 0) else { return }
    lastDanger = now
    guard engine.parameter("danger") != nil else { return }
    report.mix.dangerPeak = max(report.mix.dangerPeak, now)
    do {
      try engine.setParameter("danger", to: now, tween: Tween(duration: 0.25))
    } catch {
      report.errors.append("mix: \(error)")
      return
    }
    apply("danger", intensity: now, over: 0.25)
  }

  private func apply(_ snapshot: String, intensity: Double, over seconds: Double) {
    guard engine.snapshots[snapshot] != nil else { return }
    do {
      try engine.applySnapshot(snapshot, intensity: intensity, tween: Tween(duration: seconds))
      if intensity > 0, !report.mix.applied.contains(snapshot) { report.mix.applied.append(snapshot) }
    } catch {
      report.errors.append("mix: \(error)")
    }
  }

  /// What the hums follow: 4 dB louder at full danger (and as they always were with none, so a
  /// player who finds balls by ear hears them as before).
  static let humModulators: [Modulator] = {
    guard let curve = try? ParameterCurve([(0, 0), (1, 4)], interpolation: .smooth) else { return [] }
    return [.parameter("danger", curve: curve)]
  }()
}
