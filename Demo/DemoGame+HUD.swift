import Foley
import Foundation

// What the demo shows around the field, never over it: the bar above it (the round, the session,
// the voices, the music, the wind and the limiter, the recording meter) and the side panel to its
// right (the sound radar, the keys or the inspector, the spoken line, the captions). The device,
// the listener and the buses' meters are in the inspector (I).
extension DemoGame {
  /// The side panel's left edge and width, in window pixels.
  static let panelLeft: Int32 = 808
  static let panelWidth: Int32 = 324
  /// Characters of the panel's lines at the font's scale 2.
  static let panelColumns = 22
  /// Where the panel's status lines (a recording's meter, a notice) begin; the inspector ends
  /// above them.
  static let statusTop: Int32 = 396

  /// The HUD's lines, at the font's scale 2 (14 px tall): at most this many characters each.
  static let hudColumns = 66

  /// The limiter's gain reduction, rounded as shown (never "-0.0").
  var limiterReduction: Double {
    let reduction = engine.masterMeter.gainReductionDecibels
    return abs(reduction) < 0.05 ? 0 : reduction
  }

  func drawHUD(on canvas: Canvas) {
    let white = Color(red: 0.95, green: 0.95, blue: 0.95)
    let dim = Color(red: 0.7, green: 0.75, blue: 0.85)
    let gold = Color(red: 1, green: 0.85, blue: 0.3)
    canvas.fillRect(
      x: 0, y: 0, width: canvas.width, height: 84,
      color: Color(red: 0.02, green: 0.02, blue: 0.05, alpha: 0.9))
    func line(_ text: String, _ row: Int32, _ color: Color) {
      canvas.drawText(String(text.prefix(Self.hudColumns)), x: 10, y: 6 + row * 19, color: color)
    }
    line(roundLine, 0, gold)
    let state = session.state
    let census = engine.voiceCensus()
    let sessionText = state.isActive ? modeWords.joined(separator: " ") : "PAUSED: " + shortPauseReason
    canvas.drawText(
      sessionText, x: 10, y: 25,
      color: !state.isActive
        ? Color(red: 1, green: 0.5, blue: 0.4)
        : engine.isMuted ? Color(red: 1, green: 0.75, blue: 0.3) : Color(red: 0.4, green: 1, blue: 0.5))
    let voices =
      "VOICES \(census.audible) + \(census.virtual) VIRTUAL"
      + (census.pausedBySession > 0 ? ", \(census.pausedBySession) HELD" : "")
    canvas.drawText(
      String(voices.prefix(Self.hudColumns - sessionText.count - 3)),
      x: 10 + Canvas.textWidth(sessionText + "   "), y: 25, color: white)
    let music = engine.music
    var musicText = "MUSIC -"
    if let now = music.nowPlaying, let time = music.currentTime {
      let minutes = Int(time) / 60
      musicText =
        "MUSIC \(now.title.uppercased())  \(minutes):" + String(format: "%04.1f", time - Double(minutes * 60))
        + musicalLine + (music.isPlaying ? "" : "  (HELD)")
    }
    line(musicText, 2, dim)
    line(
      "WIND \(ambienceOn ? "ON" : "OFF")  "
        + String(format: "LIMITER %.1f DB  ", limiterReduction)
        + (playerWasInCave ? "IN THE CAVE  " : "") + (engine.isSilent ? "SILENT  " : "") + policyNote, 3, dim)
    canvas.fillRect(
      x: Self.panelLeft - 8, y: 84, width: canvas.width - Self.panelLeft + 8, height: canvas.height - 84,
      color: Color(red: 0.06, green: 0.065, blue: 0.09))
    // The panel's status lines, above the spoken line: the recording's meter, or a notice.
    if let recorder {
      let level = recorder.averagePower(forChannel: 0)
      let width = Int32((max(-60, level) + 60) / 60 * 200)
      let top = Self.statusTop
      canvas.fillRect(
        x: Self.panelLeft, y: top, width: 204, height: 16, color: Color(red: 0.2, green: 0.2, blue: 0.25))
      canvas.fillRect(
        x: Self.panelLeft + 2, y: top + 2, width: width, height: 12,
        color: Color(red: 1, green: 0.3, blue: 0.3))
      let silent = recorder.currentTime > 0.5 && recorder.peakPower(forChannel: 0) <= -160
      canvas.drawText(
        String(format: "REC %.1f S %.0f DB", recorder.currentTime, level), x: Self.panelLeft, y: top + 22,
        color: white)
      if silent {
        canvas.drawText("NO SIGNAL: NO MICROPHONE?", x: Self.panelLeft, y: top + 42, scale: 1, color: white)
      }
    } else if let notice, notice.until > report.frames {
      let lines = Self.wrapped(notice.text, columns: Self.panelColumns).prefix(2)
      for (index, line) in lines.enumerated() {
        canvas.drawText(
          line, x: Self.panelLeft, y: Self.statusTop + Int32(index) * 19,
          color: Color(red: 1, green: 0.6, blue: 0.5))
      }
    }
    if let subtitle {
      // The part of the line being said (a long line is shown a part at a time), with the word
      // being said in white, in the panel above the captions.
      let part = Self.subtitlePart(
        of: subtitle.line, at: subtitle.word?.lowerBound, columns: Self.panelColumns)
      let shown = subtitle.line[part]
      let word = subtitle.word.flatMap { $0.clamped(to: part) == $0 ? $0 : nil }
      let width = Canvas.textWidth(String(shown))
      var x = Self.panelLeft
      let y = canvas.height - 150
      canvas.fillRect(
        x: x - 6, y: y - 4, width: width + 12, height: 22, color: Color(red: 0, green: 0, blue: 0, alpha: 0.6)
      )
      if let word {
        x += canvas.drawText(String(subtitle.line[part.lowerBound..<word.lowerBound]), x: x, y: y, color: dim)
        x += canvas.drawText(String(subtitle.line[word]), x: x, y: y, color: white)
        canvas.drawText(String(subtitle.line[word.upperBound..<part.upperBound]), x: x, y: y, color: dim)
      } else {
        canvas.drawText(String(shown), x: x, y: y, color: dim)
      }
    }
    drawRoundBanner(on: canvas)
    captionBox?.draw(on: canvas)
    if showsInspector {
      drawInspector(on: canvas)
    } else {
      if showsPointers { drawRadar(on: canvas) }
      if showsHelp {
        for (index, line) in Self.helpLines.enumerated() {
          canvas.drawText(line, x: Self.panelLeft, y: 192 + Int32(index) * 19, color: dim)
        }
      }
    }
  }

  /// How the game is heard and seen, as the HUD says it: `SOUND ON` or `MUTED`, then each
  /// setting away from its default (mono, the balance, the range, dark).
  var modeWords: [String] {
    var words = [engine.isMuted ? "MUTED" : "SOUND ON"]
    if engine.isMono { words.append("MONO") }
    let balance = engine.balance
    if balance != 0 { words.append(String(format: "BAL %@%.1f", balance < 0 ? "L" : "R", abs(balance))) }
    let range = engine.dynamicRange
    if range != .full { words.append("RANGE " + range.rawValue.uppercased()) }
    if isDark { words.append(showsPointers ? "DARK+RADAR" : "DARK") }
    return words
  }

  /// The title's line on how to play, as the modes have it.
  var howToPlay: String {
    if engine.isMuted { return "MUTED: FOLLOW THE CAPTIONS AND THE RADAR." }
    if isDark && !showsPointers { return "DARK: BY EAR ALONE. HEADPHONES HELP." }
    if engine.isMono { return "MONO: FOLLOW HOW LOUD THEY RING." }
    return "HEADPHONES HELP."
  }

  /// The keys, in the side panel (each at most `panelColumns` characters).
  static let helpLines = [
    "ARROWS  MOVE", "RETURN  START, NEXT", "SPACE   RHYTHM", "R, P    RECORD, PLAY", "M WIND  N MUSIC",
    "T TALK  O OUTPUT", "I INSPECTOR  H HELP", "TAB     PAUSE", "CLICK   ADD A BALL", "ESC     QUIT",
  ]

  /// `text` in lines of at most `columns` characters, broken between words.
  static func wrapped(_ text: String, columns: Int) -> [String] {
    var lines: [String] = []
    var start = text.startIndex
    while start < text.endIndex {
      let part = subtitlePart(of: String(text[start...]), at: nil, columns: columns)
      let rest = String(text[start...])
      lines.append(String(rest[part]))
      start = text.index(start, offsetBy: rest.distance(from: rest.startIndex, to: part.upperBound))
      while start < text.endIndex, text[start] == " " { start = text.index(after: start) }
    }
    return lines
  }

  /// Why the sound is paused, in a few words for the HUD's line.
  var shortPauseReason: String { pauseWords.short }

  /// The part of `line` to show as a subtitle: whole words, at most `columns` characters, the one
  /// holding `index` (the word being said), or the first.
  static func subtitlePart(
    of line: String, at index: String.Index?, columns: Int = hudColumns - 2
  ) -> Range<String.Index> {
    var start = line.startIndex
    while start < line.endIndex {
      var end = line.endIndex
      if line.distance(from: start, to: end) > columns {
        end = line.index(start, offsetBy: columns)
        // Back to the last space, so a word is never cut (unless it is longer than a line).
        if let space = line[start..<end].lastIndex(of: " "), space > start { end = space }
      }
      if index.map({ $0 < end }) ?? true || end == line.endIndex { return start..<end }
      start = end
      while start < line.endIndex, line[start] == " " { start = line.index(after: start) }
    }
    return start..<start
  }

  /// The sound radar: a ring at the top of the side panel with a blip towards each loud captioned
  /// sound, brighter and bigger the louder it is heard.
  func drawRadar(on canvas: Canvas) {
    let sources = engine.captions.radar(limit: 6)
    report.radarPeak = max(report.radarPeak, sources.count)
    let centre = (x: Self.panelLeft + Self.panelWidth / 2, y: Int32(140))
    let radius = 36.0
    for step in 0..<24 {
      let angle = Double(step) * .pi / 12
      canvas.fillRect(
        x: centre.x + Int32(radius * cos(angle)) - 1, y: centre.y - Int32(radius * sin(angle)) - 1, width: 2,
        height: 2, color: Color(red: 0.5, green: 0.6, blue: 0.7, alpha: 0.8))
    }
    canvas.fillRect(
      x: centre.x - 2, y: centre.y - 2, width: 4, height: 4, color: Color(red: 0.3, green: 0.9, blue: 0.4))
    for source in sources {
      // -60 dBFS and quieter at the edge of seeing, 0 dBFS at full size.
      let strength = max(0.2, min(1, (source.loudness + 60) / 60))
      let size = Int32(4 + 6 * strength)
      let degrees = source.direction?.degrees ?? (source.side < 0 ? 180 : 0)
      let angle = degrees * .pi / 180
      let color =
        source.caption.category == .critical
        ? Color(red: 1, green: 0.75, blue: 0.2, alpha: strength)
        : Color(red: 1, green: 1, blue: 1, alpha: strength)
      canvas.fillRect(
        x: centre.x + Int32(radius * cos(angle)) - size / 2,
        y: centre.y - Int32(radius * sin(angle)) - size / 2,
        width: size, height: size, color: color)
    }
  }
}
