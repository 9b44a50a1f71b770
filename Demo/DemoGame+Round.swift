import Foley
import Foundation

/// The game: five chimes are hidden in the field, each ringing where it lies every couple of
/// seconds. They are found by ear (the ring gets louder and moves across as the player nears it;
/// a chime only glows from close by), while the balls knock points off. A round lasts 90 seconds
/// of play; focus loss pauses it, and with it the clock. The music follows the hunt, the sound map
/// plays every ring and fanfare, speech announces each find, and the take recorded with R is
/// played back as the winner's taunt.
struct DemoRound: Codable {
  /// The round's number (from 1): round 1 is laid out by hand, later ones by a seeded shuffle.
  var number = 1
  var found = 0
  var score = 0
  /// Balls that hit the player (each costs 25 points).
  var hits = 0
  var timeLeft = DemoRound.seconds
  /// "won" or "time up" once the round is over.
  var outcome: String?

  /// Chimes to find, and seconds of play to find them in.
  static let chimes = 5
  static let seconds = 90.0
  static let chimePoints = 100
  static let hitPenalty = 25
  /// Points for each whole second left when the last chime is found.
  static let secondPoints = 2
}

extension DemoGame {
  /// How close the player must come to pick a chime up, and from how far it starts to glow.
  static let pickUpDistance = 26.0
  static let glowDistance = 150.0
  /// Seconds between a chime's rings.
  static let ringInterval = 1.6

  /// Where round `number`'s chimes lie: the first round's by hand (the first on the built-in
  /// tour's path), the later ones spread at random, away from the HUD, the help and the player.
  func chimePlaces(round number: Int) -> [Point] {
    if number == 1 {
      return [
        Point(x: 585, y: 180), Point(x: 110, y: 430), Point(x: 690, y: 460), Point(x: 280, y: 300),
        Point(x: 470, y: 480),
      ]
    }
    var random = SeededRandomGenerator(seed: UInt64(number) &* 7_919)
    var places: [Point] = []
    while places.count < DemoRound.chimes {
      let place = Point(
        x: Double.random(in: 40...(scene.size.width - 40), using: &random),
        y: Double.random(in: 110...500, using: &random))
      let clear = places.allSatisfy { Self.distance($0, place) > 120 }
      if clear, Self.distance(place, player.position) > 160 { places.append(place) }
    }
    return places
  }

  static func distance(_ a: Point, _ b: Point) -> Double {
    ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
  }

  /// Lays out a new round's chimes, each ringing through the sound map (`chime.call`, positional)
  /// at its own phase.
  func startRound(_ number: Int) {
    for chime in chimes { chime.removeFromParent() }
    chimes = []
    round = DemoRound(number: number)
    for (index, place) in chimePlaces(round: number).enumerated() {
      let chime = SpriteNode(color: Self.faintChime, size: Size(width: 14, height: 14))
      chime.name = "chime"
      chime.position = place
      chime.zRotation = .pi / 4
      chime.zPosition = -0.4
      scene.addChild(chime)
      chime.run(
        .sequence([
          .wait(forDuration: Double(index) * Self.ringInterval / Double(DemoRound.chimes)),
          .repeatForever(
            .sequence([
              .run { [weak self, weak chime] in
                guard let self, let chime else { return }
                self.scene.events.post("chime.call", from: chime)
              },
              .wait(forDuration: Self.ringInterval),
            ])),
        ]),
        withKey: "ring")
      chimes.append(chime)
    }
  }

  static let faintChime = Color(red: 0.22, green: 0.26, blue: 0.36)
  static let brightChime = Color(red: 0.55, green: 0.95, blue: 1)

  /// Each frame of play: the clock, the chimes' glow, and a chime the player reached.
  func updateRound(_ deltaTime: Double) {
    guard round.outcome == nil else { return }
    round.timeLeft = max(0, round.timeLeft - deltaTime)
    for chime in chimes where chime.parent != nil {
      let distance = Self.distance(chime.position, player.position)
      let glow = max(0, min(1, 1 - (distance - Self.pickUpDistance) / Self.glowDistance))
      chime.color = Self.mix(Self.faintChime, Self.brightChime, glow)
      if distance < Self.pickUpDistance { find(chime) }
    }
    if round.outcome == nil, round.timeLeft <= 0 { endRound(won: false) }
  }

  static func mix(_ a: Color, _ b: Color, _ amount: Double) -> Color {
    Color(
      red: a.red + (b.red - a.red) * amount, green: a.green + (b.green - a.green) * amount,
      blue: a.blue + (b.blue - a.blue) * amount)
  }

  private func find(_ chime: SpriteNode) {
    chime.removeAction(forKey: "ring")
    chime.removeFromParent()
    round.found += 1
    round.score += DemoRound.chimePoints
    scene.events.post("chime.found", from: player)
    let left = DemoRound.chimes - round.found
    if left == 0 {
      endRound(won: true)
      return
    }
    announce(left == 1 ? "Chime found. One to go." : "Chime found. \(Self.spelled(left)) to go.")
    // Three found: the tense piece, from the next bar.
    if round.found == 3, musicIndex == 0 { changeMusic() }
  }

  /// A ball hit the player: points off (never below zero).
  func playerWasHit() {
    guard round.outcome == nil else { return }
    round.hits += 1
    round.score = max(0, round.score - DemoRound.hitPenalty)
  }

  private func endRound(won: Bool) {
    for chime in chimes { chime.removeAction(forKey: "ring") }
    let seconds = Int(DemoRound.seconds - round.timeLeft)
    if won {
      round.score += Int(round.timeLeft) * DemoRound.secondPoints
      round.outcome = "won"
      scene.events.post("round.won", from: player)
      announce("All five chimes found in \(seconds) seconds. Score \(round.score).")
    } else {
      round.outcome = "time up"
      scene.events.post("round.over", from: player)
      announce("Time is up. \(chimesFoundSentence) Score \(round.score).")
    }
    report.rounds.append(round)
    if musicIndex == 1 { changeMusic() }
    // The take recorded with R, as the taunt, once the announcement has begun.
    if lastRecording != nil {
      scene.run(.sequence([.wait(forDuration: 2.5), .run { [weak self] in self?.playLastRecording() }]))
    }
  }

  /// "Two of five chimes found." (or "No chime found yet.").
  var chimesFoundSentence: String {
    round.found == 0
      ? "No chime found yet." : "\(Self.spelled(round.found).capitalized) of five chimes found."
  }

  static func spelled(_ number: Int) -> String {
    ["no", "one", "two", "three", "four", "five"][max(0, min(5, number))]
  }

  /// Return: a new round (after one ends, or at any time).
  func newRound() {
    startRound(round.number + 1)
    announce("Round \(round.number). Find the five chimes.")
  }

  /// The round as the HUD's first line.
  var roundLine: String {
    "CHIMES \(round.found)/\(DemoRound.chimes)   SCORE \(round.score)   TIME \(Int(round.timeLeft.rounded(.up)))"
      + (round.hits > 0 ? "   HITS \(round.hits)" : "")
  }

  /// The round's end, over the middle of the field.
  func drawRoundBanner(on canvas: Canvas) {
    let lines: [String]
    if let outcome = round.outcome {
      lines = [
        outcome == "won" ? "ALL CHIMES FOUND!" : "TIME'S UP: \(round.found)/\(DemoRound.chimes) CHIMES",
        "SCORE \(round.score)", "RETURN: PLAY AGAIN",
      ]
    } else if !session.isActive {
      lines = ["PAUSED", "THE GAME WAITS FOR THE SOUND"]
    } else {
      return
    }
    let height = Int32(lines.count) * 30 + 20
    let top = canvas.height / 2 - height / 2 - 40
    canvas.fillRect(
      x: 0, y: top, width: canvas.width, height: height, color: Color(red: 0, green: 0, blue: 0, alpha: 0.7))
    for (index, line) in lines.enumerated() {
      let scale: Int32 = index == 0 ? 3 : 2
      let width = Canvas.textWidth(line, scale: scale)
      canvas.drawText(
        line, x: (canvas.width - width) / 2, y: top + 12 + Int32(index) * 30, scale: scale,
        color: index == 0 ? Color(red: 1, green: 0.85, blue: 0.3) : Color(red: 0.95, green: 0.95, blue: 0.95))
    }
  }
}
