import Foley
import Foundation

/// The hunt: a level's chimes are hidden in the dark field, and the one being sought rings where
/// it lies. It is found by ear — the ring gets louder as the player nears it, moves across as the
/// player passes it, is muffled behind a wall and comes through a door — and only glows from
/// close by. Each ball hums as it flies (its own pitch, with doppler), so a player who listens
/// hears it coming. Three levels, growing: more chimes, more and faster balls, walls, a room
/// that rings, a door that swings, a chime that drifts.
struct DemoRound: Codable {
  /// The level's number (from 1) and name.
  var number = 1
  var name = DemoLevel.openField.name
  var chimes = DemoLevel.openField.chimes.count
  var found = 0
  var score = 0
  /// Balls that hit the player (each costs `hitPenalty`, never below zero, and ends the streak).
  var hits = 0
  /// Chimes found in a row without being hit, now and at best.
  var streak = 0
  var bestStreak = 0
  var seconds = DemoLevel.openField.seconds
  var timeLeft = DemoLevel.openField.seconds
  /// "won" or "time up" once the level is over.
  var outcome: String?
  /// The best score for this level before this round, and whether this round beat it.
  var previousBest: Int?
  var isNewBest = false

  init() {}

  init(level: DemoLevel) {
    number = level.number
    name = level.name
    chimes = level.chimes.count
    seconds = level.seconds
    timeLeft = level.seconds
  }

  static let chimePoints = 100
  /// Points for each chime of a streak after the first (25, 50, …).
  static let streakPoints = 25
  static let hitPenalty = 10
  /// Points for each whole second left when the last chime is found.
  static let secondPoints = 2
}

extension DemoGame {
  /// How close the player must come to pick a chime up, and from how far it starts to glow
  /// (never in `--dark`).
  static let pickUpDistance = 30.0
  static let glowDistance = 70.0
  /// Seconds between the sought chime's rings.
  static let ringInterval = 0.9

  static func distance(_ a: Point, _ b: Point) -> Double {
    ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
  }

  /// Lays out level `number`: its walls, doors and rooms (the engine's acoustic geometry, and
  /// what stops the player and the balls), its balls, and its chimes, the first of which rings.
  func startLevel(_ number: Int) {
    let level = DemoLevel.numbered(number)
    self.level = level
    levelSegments = level.segments
    for chime in chimes { chime.removeFromParent() }
    for node in levelNodes { node.removeFromParent() }
    chimes = []
    levelNodes = []
    for ball in balls { ball.node.removeFromParent() }
    balls = []
    round = DemoRound(level: level)
    round.previousBest = bestScores?.best(forLevel: level.number)
    player.position = level.playerStart
    buildGeometry(of: level)
    for (index, ball) in level.balls.enumerated() {
      addBall(
        at: ball.position, index: index,
        velocity: Vector(dx: cos(ball.heading) * ball.speed, dy: sin(ball.heading) * ball.speed))
    }
    for place in level.chimePlaces(seed: chimeSeed, fieldWidth: fieldWidth, fieldTop: fieldTop) {
      let chime = SpriteNode(color: Self.brightChime, size: Size(width: 14, height: 14))
      chime.name = "chime"
      chime.position = place
      chime.zRotation = .pi / 4
      chime.zPosition = -0.4
      chime.alpha = 0
      scene.addChild(chime)
      chimes.append(chime)
    }
    foundChimes = []
    ringNext()
  }

  /// The walls (drawn as the engine hears them: a wall node each, a sprite over it), the doors
  /// (portals across the gaps; one swings shut and open), and the rooms with their reverb.
  private func buildGeometry(of level: DemoLevel) {
    let wallColor = Color(red: 0.32, green: 0.34, blue: 0.42)
    for line in level.walls {
      let wall = Wall(points: line, material: .wall)
      wall.name = "wall"
      scene.addChild(wall)
      levelNodes.append(wall)
      for (a, b) in zip(line, line.dropFirst()) {
        let sprite = SpriteNode(
          color: wallColor, size: Size(width: max(6, abs(b.x - a.x)), height: max(6, abs(b.y - a.y))))
        sprite.name = "wall"
        sprite.position = Point(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2)
        sprite.zPosition = -0.5
        scene.addChild(sprite)
        levelNodes.append(sprite)
      }
    }
    for door in level.doors {
      let portal = Portal(from: door.from, to: door.to, material: .wood)
      portal.name = "door"
      scene.addChild(portal)
      levelNodes.append(portal)
      let sprite = SpriteNode(
        color: Color(red: 0.55, green: 0.4, blue: 0.25, alpha: 0.35),
        size: Size(width: max(4, abs(door.to.x - door.from.x)), height: max(4, abs(door.to.y - door.from.y))))
      sprite.name = "door"
      sprite.position = Point(x: (door.from.x + door.to.x) / 2, y: (door.from.y + door.to.y) / 2)
      sprite.zPosition = -0.5
      scene.addChild(sprite)
      levelNodes.append(sprite)
      if let swings = door.swings {
        // Shut for a while, then open: heard as the chime beyond it dulls and clears.
        let swing = Action.sequence([
          .wait(forDuration: swings), .changeOpenness(to: 0, duration: 0.6),
          .wait(forDuration: swings / 2), .changeOpenness(to: 1, duration: 0.6),
        ])
        portal.run(.repeatForever(swing))
        sprite.run(
          .repeatForever(
            .sequence([
              .wait(forDuration: swings), .fadeAlpha(to: 1, duration: 0.6), .wait(forDuration: swings / 2),
              .fadeAlpha(to: 0.35, duration: 0.6),
            ])))
      }
    }
    for hall in level.halls {
      let room = Room(polygon: hall.polygon, reverbSend: hall.reverbSend)
      room.name = hall.name
      scene.addChild(room)
      levelNodes.append(room)
      let floor = SpriteNode(
        color: Color(red: 0.1, green: 0.09, blue: 0.15), size: Size(width: hall.width, height: hall.height))
      floor.name = "floor"
      floor.position = Point(x: hall.x + hall.width / 2, y: hall.y + hall.height / 2)
      floor.zPosition = -1
      scene.addChild(floor)
      levelNodes.append(floor)
    }
    applyDarkness()
  }

  /// The chime being sought: the first not yet found. It rings every `ringInterval` through the
  /// sound map (`chime.call`, positional); the drifting one moves while it rings.
  private func ringNext() {
    guard let index = chimes.indices.first(where: { !foundChimes.contains($0) }) else { return }
    let chime = chimes[index]
    chime.run(
      .repeatForever(
        .sequence([
          .run { [weak self, weak chime] in
            guard let self, let chime else { return }
            self.scene.events.post("chime.call", from: chime)
          },
          .wait(forDuration: Self.ringInterval),
        ])),
      withKey: "ring")
    if level.driftingChime == index {
      let start = chime.position
      chime.run(
        .repeatForever(
          .sequence([
            .move(to: Point(x: start.x + 160, y: start.y), duration: 6),
            .move(to: start, duration: 6),
          ])),
        withKey: "drift")
    }
  }

  static let brightChime = Color(red: 0.55, green: 0.95, blue: 1)

  /// Each frame of play: the clock, the sought chime's glow, and a chime the player reached.
  func updateRound(_ deltaTime: Double) {
    guard round.outcome == nil, !showsTitle else { return }
    round.timeLeft = max(0, round.timeLeft - deltaTime)
    for (index, chime) in chimes.enumerated() where !foundChimes.contains(index) {
      let distance = Self.distance(chime.position, player.position)
      chime.alpha =
        isDark
        ? 0 : max(0, min(1, 1 - (distance - Self.pickUpDistance) / (Self.glowDistance - Self.pickUpDistance)))
      if distance < Self.pickUpDistance, chime.action(forKey: "ring") != nil { find(index) }
    }
    if round.outcome == nil, round.timeLeft <= 0 { endRound(won: false) }
  }

  private func find(_ index: Int) {
    let chime = chimes[index]
    chime.removeAction(forKey: "ring")
    chime.removeAction(forKey: "drift")
    chime.alpha = 1  // a found chime stays in sight, in the dark too
    foundChimes.insert(index)
    round.found += 1
    round.streak += 1
    round.bestStreak = max(round.bestStreak, round.streak)
    round.score += DemoRound.chimePoints + DemoRound.streakPoints * (round.streak - 1)
    scene.events.post("chime.found", from: player)
    let left = round.chimes - round.found
    if left == 0 {
      endRound(won: true)
      return
    }
    announce(left == 1 ? "Chime found. One to go." : "Chime found. \(Self.spelled(left)) to go.")
    ringNext()
    // Past half: the tense piece, from the next bar.
    if round.found * 2 >= round.chimes, musicIndex == 0 { changeMusic() }
  }

  /// Seconds a ball is harmless for: from a level's start (every ball's hum is heard for that
  /// long before it can cost anything), and after a hit (a ball pressed against the player is one
  /// hit, not one a frame).
  static let hitGrace = 1.5

  /// A ball hit the player: points off (never below zero), the streak ends. Returns whether it
  /// counted (not during the grace after the level's start or the last hit).
  @discardableResult
  func playerWasHit(by ball: Int) -> Bool {
    guard round.outcome == nil, !showsTitle else { return false }
    let played = round.seconds - round.timeLeft
    guard played >= Self.hitGrace, gameTime - lastHit >= Self.hitGrace else { return false }
    lastHit = gameTime
    round.hits += 1
    round.streak = 0
    round.score = max(0, round.score - DemoRound.hitPenalty)
    report.hits.append(
      DemoReport.Hit(at: (gameTime * 1_000).rounded() / 1_000, level: round.number, ball: ball))
    return true
  }

  private func endRound(won: Bool) {
    for chime in chimes {
      chime.removeAction(forKey: "ring")
      chime.removeAction(forKey: "drift")
    }
    let seconds = Int(round.seconds - round.timeLeft)
    if won {
      round.score += Int(round.timeLeft) * DemoRound.secondPoints
      round.outcome = "won"
      scene.events.post("round.won", from: player)
    } else {
      round.outcome = "time up"
      scene.events.post("round.over", from: player)
    }
    if bestScores != nil {
      round.isNewBest = round.score > (round.previousBest ?? 0)
      if round.isNewBest { saveBest(round.score, level: round.number) }
    }
    var line =
      won
      ? "Level \(round.number) cleared in \(seconds) seconds. Score \(round.score)."
      : "Time is up. \(chimesFoundSentence) Score \(round.score)."
    if round.isNewBest { line += " A new best." }
    line +=
      round.number < DemoLevel.all.count
      ? " Press Return for level \(round.number + 1)." : " Press Return to play again."
    announce(line)
    report.rounds.append(round)
    if musicIndex == 1 { changeMusic() }
    // The take recorded with R, as the taunt, once the announcement has begun.
    if won, lastRecording != nil {
      scene.run(.sequence([.wait(forDuration: 2.5), .run { [weak self] in self?.playLastRecording() }]))
    }
  }

  /// "Two of five chimes found." (or "No chime found yet.").
  var chimesFoundSentence: String {
    round.found == 0
      ? "No chime found yet."
      : "\(Self.spelled(round.found).capitalized) of \(Self.spelled(round.chimes)) chimes found."
  }

  static func spelled(_ number: Int) -> String {
    let words = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
    return (0..<words.count).contains(number) ? words[number] : String(number)
  }

  /// From the title, level `number` (its key at the title).
  func chooseLevel(_ number: Int) {
    showsTitle = false
    releaseTitleMix()
    startLevel(number)
    announce("Level \(round.number), \(round.name). Find \(Self.spelled(round.chimes)) chimes by ear.")
  }

  /// Return: from the title, the starting level (`--level`, 1 by default); after a level, the
  /// next (after the last, level 1 again); during a level, it starts again.
  func pressReturn() {
    if showsTitle {
      chooseLevel(startingLevel)
      return
    } else if round.outcome == "won" {
      startLevel(round.number % DemoLevel.all.count + 1)
    } else {
      startLevel(round.number)
    }
    announce("Level \(round.number), \(round.name). Find \(Self.spelled(round.chimes)) chimes by ear.")
  }

  /// The round as the HUD's first line.
  var roundLine: String {
    "LEVEL \(round.number)  CHIMES \(round.found)/\(round.chimes)  SCORE \(round.score)  TIME \(Int(round.timeLeft.rounded(.up)))"
      + (round.streak > 1 ? "  STREAK \(round.streak)" : "") + (round.hits > 0 ? "  HITS \(round.hits)" : "")
  }

  /// The title, a level's end, or the pause, over the middle of the field.
  func drawRoundBanner(on canvas: Canvas) {
    let lines: [String]
    if showsTitle {
      lines =
        [
          "CHIMES IN THE DARK", "FIND THE CHIMES BY EAR. DODGE THE HUMMING BALLS.",
          howToPlay,
          "RETURN: LEVEL \(startingLevel)  OR 1-\(DemoLevel.all.count): THAT LEVEL",
        ]
        + (bestScores.map { scores in
          DemoLevel.all.map { "LEVEL \($0.number) BEST \(scores.best(forLevel: $0.number) ?? 0)" }
        } ?? [])
    } else if let outcome = round.outcome {
      lines = [
        outcome == "won"
          ? "LEVEL \(round.number) CLEARED!" : "TIME'S UP: \(round.found)/\(round.chimes) CHIMES",
        "SCORE \(round.score)"
          + (round.isNewBest ? "  NEW BEST!" : round.previousBest.map { "  BEST \($0)" } ?? ""),
        "HITS \(round.hits)  BEST STREAK \(round.bestStreak)" + (chimeSeed.map { "  SEED \($0)" } ?? ""),
        outcome == "won" && round.number < DemoLevel.all.count
          ? "RETURN: LEVEL \(round.number + 1)" : "RETURN: PLAY AGAIN",
      ]
    } else if !session.isActive {
      lines = ["PAUSED", pauseReason]
    } else if isPaused {
      lines = ["PAUSED", "TAB TO GO ON"]
    } else {
      return
    }
    let width = Int32(fieldWidth)
    let height = Int32(lines.count) * 30 + 20
    let top = canvas.height / 2 - height / 2 - 20
    canvas.fillRect(
      x: 0, y: top, width: width, height: height, color: Color(red: 0, green: 0, blue: 0, alpha: 0.75))
    for (index, line) in lines.enumerated() {
      let scale: Int32 = index == 0 ? 3 : 2
      let shown = String(line.prefix(Int(width) / Int(7 * scale)))
      let lineWidth = Canvas.textWidth(shown, scale: scale)
      canvas.drawText(
        shown, x: (width - lineWidth) / 2, y: top + 12 + Int32(index) * 30, scale: scale,
        color: index == 0 ? Color(red: 1, green: 0.85, blue: 0.3) : Color(red: 0.95, green: 0.95, blue: 0.95))
    }
  }

  /// Why the game is paused, in a player's words.
  var pauseReason: String { pauseWords.long }

  /// Why the sound is paused: the banner's sentence and the HUD's few words.
  var pauseWords: (long: String, short: String) {
    let reasons = session.state.inactiveReasons
    if reasons.contains(.deviceLost) {
      return ("THE SOUND DEVICE WENT AWAY: WAITING FOR IT", "NO SOUND DEVICE")
    }
    if reasons.contains(.minimized) { return ("THE WINDOW IS MINIMISED", "WINDOW MINIMISED") }
    if reasons.contains(.background) { return ("THE GAME IS IN THE BACKGROUND", "IN THE BACKGROUND") }
    if reasons.contains(.focusLost) { return ("CLICK THE WINDOW TO GO ON", "WINDOW NOT IN FOCUS") }
    return ("THE SOUND IS OFF FOR NOW", "INTERRUPTED")
  }
}

extension DemoGame {
  /// In `--dark`, everything of the field but the player and the chimes found is left undrawn:
  /// the walls, the doors, the floors, the balls, the wind's vent, the embers.
  func applyDarkness() {
    guard isDark else { return }
    for node in scene.children where node !== player && node.name != "chime" {
      node.isHidden = true
    }
  }

  /// Keeps a new best score; a file that cannot be written is said on screen and in the report.
  func saveBest(_ score: Int, level: Int) {
    guard let bestScores else { return }
    bestScores.record(score, level: level)
    if let problem = bestScores.problem, !report.errors.contains(problem) {
      report.errors.append(problem)
      notice = (problem, report.frames + 300)
    }
  }
}
