import Foley
import Foundation

/// The inspector panel (I): the engine's snapshot drawn with the demo's canvas — a meter and
/// loudness per bus, the master's spectrum, the voices, and the sound map's last posts. The same
/// figures the browser inspector (`--inspector`) shows.
extension DemoGame {
  /// Takes a snapshot at most every fourth frame (15 a second at 60 Hz) and draws the latest.
  func drawInspector(on canvas: Canvas) {
    if inspectorSnapshot == nil || report.frames % 4 == 0 {
      inspectorSnapshot = engine.inspector.snapshot()
    }
    guard let snapshot = inspectorSnapshot else { return }
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
      let line = String(
        format: "%4d %-14@ %-8@ %6.1f DB", Int(voice.id) % 10_000, String(voice.sound.prefix(14)) as NSString,
        voice.state.rawValue.uppercased() as NSString, max(voice.gainDecibels, -99))
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
