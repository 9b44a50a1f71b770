import Foley
import Foundation

// What the demo shows over the scene: the session, the voices, the device, the listener, the
// music, the recording meter, the spoken line and the keys.
extension DemoGame {

  func drawHUD(on canvas: Canvas) {
    let white = Color(red: 0.95, green: 0.95, blue: 0.95)
    let dim = Color(red: 0.6, green: 0.65, blue: 0.75)
    canvas.fillRect(
      x: 0, y: 0, width: canvas.width, height: 86, color: Color(red: 0, green: 0, blue: 0, alpha: 0.55))
    let state = session.state
    let sessionText =
      state.isActive
      ? "AUDIO ACTIVE"
      : "AUDIO INACTIVE: " + state.inactiveReasons.map(\.description).sorted().joined(separator: ", ")
    canvas.drawText(
      sessionText, x: 10, y: 8,
      color: state.isActive ? Color(red: 0.4, green: 1, blue: 0.5) : Color(red: 1, green: 0.5, blue: 0.4))
    let statistics = engine.statistics
    let census = engine.voiceCensus()
    canvas.drawText(
      "VOICES \(census.audible) PLAYING, \(census.virtual) VIRTUAL, \(census.pausedBySession) HELD  "
        + "SUPPRESSED \(statistics.suppressed)  STOLEN \(statistics.stolen)"
        + (engine.isSilent ? "  (SILENT)" : ""),
      x: 10, y: 26, color: white)
    canvas.drawText(
      "\(engine.deviceFormat.driver) \(engine.outputDeviceName?.uppercased() ?? "DEFAULT") \(engine.deviceFormat.sampleRate) HZ  WIND \(ambienceOn ? "ON" : "OFF")  "
        + String(format: "LIMITER %.1f DB  ", engine.masterMeter.gainReductionDecibels) + policyNote,
      x: 10, y: 42, scale: 1, color: dim)
    // Sound is heard from the player: thuds and the wind come from where they are around it.
    let heard = player.positionInScene
    var line = "LISTENER: PLAYER AT \(Int(heard.x)),\(Int(heard.y))"
    let music = engine.music
    if let now = music.nowPlaying, let time = music.currentTime {
      let minutes = Int(time) / 60
      line +=
        "   MUSIC: \(now.title.uppercased())  \(minutes):"
        + String(format: "%04.1f", time - Double(minutes * 60))
        + musicalLine + (music.isPlaying ? "" : "  (HELD)")
    }
    canvas.drawText(line, x: 10, y: 56, scale: 1, color: dim)
    canvas.drawText(busMeterLine, x: 10, y: 70, scale: 1, color: dim)
    if let recorder {
      let level = recorder.averagePower(forChannel: 0)
      let width = Int32((max(-60, level) + 60) / 60 * 200)
      canvas.fillRect(x: 10, y: 94, width: 204, height: 16, color: Color(red: 0.2, green: 0.2, blue: 0.25))
      canvas.fillRect(x: 12, y: 96, width: width, height: 12, color: Color(red: 1, green: 0.3, blue: 0.3))
      let silent = recorder.currentTime > 0.5 && recorder.peakPower(forChannel: 0) <= -160
      canvas.drawText(
        String(format: "REC %.1f S  %.0f DBFS", recorder.currentTime, level)
          + (silent ? "  NO SIGNAL: NO MICROPHONE?" : ""),
        x: 224, y: 95, color: white)
    }
    if let notice, notice.until > report.frames {
      canvas.fillRect(
        x: 0, y: 90, width: canvas.width, height: 18, color: Color(red: 0.3, green: 0, blue: 0, alpha: 0.7))
      canvas.drawText(notice.text, x: 10, y: 95, scale: 1, color: Color(red: 1, green: 0.6, blue: 0.5))
    }
    if let subtitle {
      // The line, with the word being said in white.
      let text = subtitle.line.uppercased()
      let words = subtitle.word.map {
        (subtitle.line[..<$0.lowerBound], subtitle.line[$0], subtitle.line[$0.upperBound...])
      }
      let width = Int32(text.count) * 12
      var x = max(10, (canvas.width - width) / 2)
      let y = canvas.height - 100
      canvas.fillRect(
        x: x - 6, y: y - 4, width: width + 12, height: 22, color: Color(red: 0, green: 0, blue: 0, alpha: 0.6)
      )
      if let (before, word, after) = words {
        x += canvas.drawText(String(before), x: x, y: y, color: dim)
        x += canvas.drawText(String(word), x: x, y: y, color: white)
        canvas.drawText(String(after), x: x, y: y, color: dim)
      } else {
        canvas.drawText(text, x: x, y: y, color: dim)
      }
    }
    if showsInspector { drawInspector(on: canvas) }
    if showsHelp {
      let lines = [
        "ARROWS MOVE  SPACE RHYTHM  R RECORD  P PLAY TAKE  CLICK BALL",
        "M WIND  N MUSIC  T TALK  O OUTPUT  I INSPECTOR  H HELP  ESC QUIT",
        "SWITCH AWAY FROM THE WINDOW: SOUND PAUSES AND COMES BACK",
      ]
      for (index, line) in lines.enumerated() {
        canvas.drawText(line, x: 10, y: canvas.height - 60 + Int32(index) * 18, color: dim)
      }
    }
  }
}
