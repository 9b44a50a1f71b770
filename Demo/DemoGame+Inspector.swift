import Foley
import Foundation

/// The inspector panel (I): the engine's snapshot drawn with the demo's canvas — a meter and
/// loudness per bus, the master's spectrum, the voices, and the sound map's last posts. The same
/// figures the browser inspector (`--inspector`) shows.
extension DemoGame {
  /// Takes a snapshot at most every fourth frame (15 a second at 60 Hz) and draws the latest.
  /// With the inspector open, the way each heard chime and ball comes to the player, drawn over
  /// the field as dots: straight (white, dimmer the more the walls take) or through a door (amber,
  /// from the player to the door to the source).
  func drawSoundPaths(on canvas: Canvas, snapshot: AudioSnapshot) {
    let byID = Dictionary(snapshot.voices.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    var sources: [Node] = balls.map(\.node)
    if let sought = chimes.first(where: { $0.action(forKey: "ring") != nil }) { sources.append(sought) }
    for source in sources {
      let hum = source.children.first { $0 is AudioNode } as? AudioNode
      guard let voice = hum?.voice ?? engine.newestVoice(of: source), let seen = byID[voice.id],
        seen.state == .playing, let acoustics = seen.acoustics
      else { continue }
      let end = source.position
      if acoustics.path.hasPrefix("portal "), let door = Int(acoustics.path.dropFirst(7)),
        level.doors.indices.contains(door)
      {
        let middle = Point(
          x: (level.doors[door].from.x + level.doors[door].to.x) / 2,
          y: (level.doors[door].from.y + level.doors[door].to.y) / 2)
        let amber = Color(red: 1, green: 0.7, blue: 0.2, alpha: 0.8)
        dots(from: player.position, to: middle, color: amber, on: canvas)
        dots(from: middle, to: end, color: amber, on: canvas)
      } else {
        let strength = max(0.25, 1 + acoustics.occlusionDecibels / 30)
        dots(
          from: player.position, to: end, color: Color(red: 1, green: 1, blue: 1, alpha: strength), on: canvas
        )
      }
    }
  }

  /// A dotted line between two scene points.
  private func dots(from a: Point, to b: Point, color: Color, on canvas: Canvas) {
    let length = Self.distance(a, b)
    let count = Int(length / 8)
    guard count > 0 else { return }
    for step in 0...count {
      let t = Double(step) / Double(count)
      let x = a.x + (b.x - a.x) * t
      let y = a.y + (b.y - a.y) * t
      canvas.fillRect(x: Int32(x) - 1, y: canvas.height - Int32(y) - 1, width: 2, height: 2, color: color)
    }
  }

  func drawInspector(on canvas: Canvas) {
    if inspectorSnapshot == nil || report.frames % 4 == 0 {
      inspectorSnapshot = engine.inspector.snapshot()
    }
    guard let snapshot = inspectorSnapshot else { return }
    drawSoundPaths(on: canvas, snapshot: snapshot)
    let white = Color(red: 0.95, green: 0.95, blue: 0.95)
    let dim = Color(red: 0.6, green: 0.65, blue: 0.75)
    let left: Int32 = canvas.width - 330
    var y: Int32 = 96
    canvas.fillRect(
      x: left - 8, y: y - 6, width: 334, height: Self.statusTop - 6 - (y - 6),
      color: Color(red: 0.05, green: 0.06, blue: 0.09, alpha: 0.88))
    canvas.drawText("INSPECTOR  \(snapshot.voices.count) VOICES", x: left, y: y, scale: 1, color: white)
    y += 14
    // A bar per channel from -60 to 0 dBFS, and the bus's momentary loudness.
    for bus in snapshot.buses where bus.isActive || bus.name == "master" {
      canvas.drawText(bus.name.uppercased(), x: left, y: y, scale: 1, color: bus.isMuted ? dim : white)
      for (channel, peak) in bus.peakDecibels.prefix(2).enumerated() {
        let width = Int32(max(0, min(1, (peak + 60) / 60)) * 150)
        let top = y + Int32(channel) * 4
        canvas.fillRect(
          x: left + 80, y: top, width: 150, height: 3, color: Color(red: 0.15, green: 0.16, blue: 0.2))
        let color =
          peak > -3 ? Color(red: 1, green: 0.3, blue: 0.3) : Color(red: 0.3, green: 0.85, blue: 0.45)
        canvas.fillRect(x: left + 80, y: top, width: width, height: 3, color: color)
      }
      let loudness = bus.momentaryLoudness.map { String(format: "%.0f LUFS", max($0, -99)) } ?? "-"
      canvas.drawText(loudness, x: left + 240, y: y, scale: 1, color: dim)
      y += 12
    }
    // The master's spectrum: 64 bands, 20 Hz to 20 kHz, -90 to 0 dB.
    y += 4
    let height: Int32 = 56
    canvas.fillRect(
      x: left, y: y, width: 320, height: height, color: Color(red: 0.1, green: 0.11, blue: 0.15))
    if let spectrum = snapshot.spectrum {
      for (index, level) in spectrum.levels.enumerated() {
        let bar = Int32(max(0, min(1, (level + 90) / 90)) * Double(height))
        let hue = Double(index) / Double(spectrum.levels.count)
        canvas.fillRect(
          x: left + Int32(index) * 5, y: y + height - bar, width: 4, height: bar,
          color: Color(red: 0.3 + 0.6 * hue, green: 0.8 - 0.4 * hue, blue: 1 - 0.6 * hue))
      }
    }
    y += height + 8
    // The voices heard first, then the others, as many as fit.
    let shown = snapshot.voices.sorted {
      ($0.state != .playing ? 1 : 0, $0.id) < ($1.state != .playing ? 1 : 0, $1.id)
    }
    for voice in shown.prefix(6) {
      // Through the level's walls: what they take and the way it comes (straight, or a door).
      let heard = voice.acoustics.map { acoustics in
        String(format: " %4.0f ", acoustics.occlusionDecibels)
          + (acoustics.path == "direct"
            ? "LINE" : acoustics.path.replacingOccurrences(of: "portal ", with: "DOOR "))
      }
      let line =
        String(
          format: "%4d %-12@ %-7@ %5.1f", Int(voice.id) % 10_000, String(voice.sound.prefix(12)) as NSString,
          voice.state.rawValue.uppercased() as NSString, max(voice.gainDecibels, -99)) + (heard ?? "")
      canvas.drawText(line, x: left, y: y, scale: 1, color: voice.state == .playing ? white : dim)
      y += 11
    }
    y += 6
    for posted in (soundMap?.recentEvents ?? []).suffix(3).reversed() {
      let played =
        posted.outcome == .played
        ? posted.sounds.map(\.file).joined(separator: ", ") : posted.outcome.rawValue
      canvas.drawText("\(posted.name) -> \(played)".uppercased(), x: left, y: y, scale: 1, color: dim)
      y += 11
    }
  }
}
