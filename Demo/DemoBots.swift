import Foley
import Foundation

/// A player the game can be left to: it presses and releases the arrow keys like a person at the
/// keyboard, and knows only what a person would — what it hears, or what the captions say. It
/// never reads the scene. It is the proof that the sound (or, muted, the captions) carries the
/// game: if it cannot win, the sound is what needs fixing.
@MainActor
protocol DemoBot: AnyObject {
  /// Called before each step of the game: press or release keys (through `game.handle`).
  func act(on game: DemoGame, step: Double)
  /// The stereo output mixed for that step, interleaved float (what a player hears).
  func hear(_ samples: UnsafeBufferPointer<Float>, sampleRate: Int)
}

/// Holds arrow keys for set times, as a player taps them.
@MainActor
final class KeyHands {
  private var held: [Key: Double] = [:]
  var isMoving: Bool { !held.isEmpty }

  /// Holds `key` for `seconds` (cut short by the next step that releases it).
  func hold(_ key: Key, for seconds: Double, on game: DemoGame) {
    guard seconds > 0 else { return }
    if held[key] == nil { game.handle(.keyDown(key, isRepeat: false)) }
    held[key] = seconds
  }

  func tick(_ step: Double, on game: DemoGame) {
    for (key, left) in held {
      if left <= step / 2 {
        game.handle(.keyUp(key))
        held[key] = nil
      } else {
        held[key] = left - step
      }
    }
  }

  func releaseAll(on game: DemoGame) {
    for key in held.keys { game.handle(.keyUp(key)) }
    held = [:]
  }
}

/// Plays by ear: it listens to the mixed stereo output at the chime's four partials (narrow
/// band-passes: the ring is an F-sharp chord, a key the music never plays in), finds the rings'
/// beat and keeps time with it as a listener does, and reads two things from each ring — which
/// side it is on (the balance between the ears) and whether it got louder since the last one. It
/// walks sideways until the ring is centred, then up or down, turning back and taking shorter
/// steps when a ring comes back quieter, and moves only between rings, so that each ring is heard
/// from where it stands.
@MainActor
final class EarBot: DemoBot {
  /// The partials it listens for: the chime's C5, E5, G5 and C6 raised six semitones by the sound
  /// map (F#5, A#5, C#6, F#6), notes the music (C major, A minor) never sounds and the balls'
  /// hums stay clear of.
  static let partials = [740.0, 932.3, 1_108.7, 1_480.0]
  /// Points a second the player walks (the game's speed; a player learns it by walking).
  static let walkSpeed = 280.0
  /// How far to the side a sound must be to come from one ear only (learned by listening).
  static let panWidth = 350.0

  private var left: [BandPass] = []
  private var right: [BandPass] = []
  /// Every block's energy in the bands (left, right) since the start, and each block's end time.
  private var blocks: [(left: Double, right: Double)] = []
  private var blockSeconds = 1.0 / 60
  /// When the last ring began (nil: the beat is not found yet), and rings missed since.
  private var lastRing: Double?
  private var missed = 0
  /// The rings' interval as heard (the game's clock steps in frames, so it is not a round figure).
  private var interval = DemoGame.ringInterval
  private var heard: (level: Double, balance: Double)?
  private var lastLevel: Double?
  private var verticalSign = 1.0
  private var verticalStep = 120.0
  /// The loudest ring of the chime sought, and how loud a ring is from a step or two away.
  private var loudest = -Double.infinity
  static let nearLevel = -23.0
  private let hands = KeyHands()
  private(set) var rings = 0

  func hear(_ samples: UnsafeBufferPointer<Float>, sampleRate: Int) {
    if left.isEmpty {
      // Each partial through two narrow band-passes in a row: a semitone away is 20 dB down.
      left = Self.partials.flatMap { hertz in
        Array(repeating: BandPass(centre: hertz, q: 30, sampleRate: Double(sampleRate)), count: 2)
      }
      right = left
    }
    var energyLeft = 0.0
    var energyRight = 0.0
    var index = 0
    while index + 1 < samples.count {
      let (x, y) = (Double(samples[index]), Double(samples[index + 1]))
      var band = 0
      while band < left.count {
        let l = left[band + 1].process(left[band].process(x))
        let r = right[band + 1].process(right[band].process(y))
        energyLeft += l * l
        energyRight += r * r
        band += 2
      }
      index += 2
    }
    let frames = samples.count / 2
    guard frames > 0 else { return }
    blockSeconds = Double(frames) / Double(sampleRate)
    blocks.append((energyLeft / Double(frames), energyRight / Double(frames)))
    listen()
  }

  /// The blocks a ring is measured over (a tenth of a second) and looked for in.
  private var ringBlocks: Int { max(1, Int((0.1 / blockSeconds).rounded())) }

  /// Finds the rings in the blocks heard: the first by a sharp rise, the next where the beat
  /// says (a ring's interval after the last, give or take 60 ms), so a word or a fanfare in the
  /// same notes at another moment is not taken for one.
  private func listen() {
    let count = blocks.count
    let window = ringBlocks
    guard count > window + 3 else { return }
    let total = { (index: Int) in self.blocks[index].left + self.blocks[index].right }
    let now = Double(count) * blockSeconds
    if let last = lastRing {
      // Wait until the whole window after the expected ring has been heard.
      let expected = last + interval
      let slack = 0.06
      guard now >= expected + slack + Double(window) * blockSeconds else { return }
      let first = max(3, Int(((expected - slack) / blockSeconds).rounded(.down)))
      let last = min(count - window, Int(((expected + slack) / blockSeconds).rounded(.up)))
      guard first <= last else { return }
      let best = (first...last).max { rise(at: $0, total) < rise(at: $1, total) }!
      if rise(at: best, total) > 3 {
        take(at: best)
      } else {
        missed += 1
        lastRing = expected
        if missed >= 3 { lastRing = nil }
      }
      return
    }
    // No beat yet: a block well above the three before it.
    let candidate = count - window
    if rise(at: candidate, total) > 8, total(candidate) > 1e-10 { take(at: candidate) }
  }

  /// How much louder the block at `index` is than the three before it.
  private func rise(at index: Int, _ total: (Int) -> Double) -> Double {
    let before = (total(index - 3) + total(index - 2) + total(index - 1)) / 3
    return total(index) / max(before, 1e-14)
  }

  /// Measures the ring that began at block `index`: its energy over a tenth of a second, less
  /// what was in the bands before it (a hum's overtone, the music's tail).
  private func take(at index: Int) {
    let window = ringBlocks
    var sumLeft = 0.0
    var sumRight = 0.0
    for block in blocks[index..<(index + window)] {
      sumLeft += block.left
      sumRight += block.right
    }
    let beforeLeft = (blocks[index - 3].left + blocks[index - 2].left + blocks[index - 1].left) / 3
    let beforeRight = (blocks[index - 3].right + blocks[index - 2].right + blocks[index - 1].right) / 3
    let ringLeft = max(1e-14, sumLeft - Double(window) * beforeLeft)
    let ringRight = max(1e-14, sumRight - Double(window) * beforeRight)
    let (l, r) = (ringLeft.squareRoot(), ringRight.squareRoot())
    // The balance law of a stereo sound: the far ear is turned down, the near one stays.
    let balance = r >= l ? 1 - l / r : r / l - 1
    heard = (10 * log10(ringLeft + ringRight), balance)
    let time = Double(index) * blockSeconds
    if let last = lastRing, missed == 0, abs(time - last - interval) < 0.1 {
      interval += (time - last - interval) * 0.5
    }
    lastRing = time
    missed = 0
    rings += 1
  }

  func act(on game: DemoGame, step: Double) {
    hands.tick(step, on: game)
    if game.round.outcome == "won" {
      hands.releaseAll(on: game)
      return
    }
    guard let ring = heard else { return }
    heard = nil
    guard !hands.isMoving else { return }
    // A ring heard from arm's length, then one far quieter: that chime was found, and the next
    // one rings from somewhere else.
    if loudest > Self.nearLevel, ring.level < loudest - 10 {
      lastLevel = nil
      loudest = -.infinity
      verticalStep = 120
    }
    loudest = max(loudest, ring.level)
    let offset = ring.balance * Self.panWidth
    if abs(ring.balance) > 0.05 {
      // Sideways first: most of the way towards where the balance says it is.
      let distance = min(200, abs(offset) * 0.8)
      hands.hold(offset > 0 ? .right : .left, for: distance / Self.walkSpeed, on: game)
      lastLevel = nil
      return
    }
    // Up or down: on while the ring grows louder, back with a shorter step when it does not.
    if let last = lastLevel, ring.level < last + 0.5 {
      verticalSign = -verticalSign
      verticalStep = max(24, verticalStep / 2)
    }
    lastLevel = ring.level
    hands.hold(verticalSign > 0 ? .up : .down, for: verticalStep / Self.walkSpeed, on: game)
  }
}

/// Plays by the captions alone (for `--muted`): it follows the newest "Chime rings" caption's
/// direction and distance, as a deaf player reads them, and walks there.
@MainActor
final class CaptionBot: DemoBot {
  private var latest: CaptionEvent?
  private var observation: Observation?
  private let hands = KeyHands()
  private var acted = 0.0

  init(captions: CaptionCenter) {
    observation = captions.observe { [weak self] event in
      guard event.text == "Chime rings", event.phase != .ended else { return }
      self?.latest = event
    }
  }

  func hear(_ samples: UnsafeBufferPointer<Float>, sampleRate: Int) {}

  func act(on game: DemoGame, step: Double) {
    hands.tick(step, on: game)
    acted += step
    guard game.round.outcome != "won", let caption = latest, !hands.isMoving, acted >= 0.3 else { return }
    guard let direction = caption.direction, let distance = caption.distance else { return }
    acted = 0
    latest = nil
    // Straight for most of the way, in the caption's direction (degrees, 0 to the right, 90 up).
    let angle = direction.degrees * .pi / 180
    let walk = min(distance, 180) * 0.9
    let dx = cos(angle) * walk
    let dy = sin(angle) * walk
    if abs(dx) > 4 { hands.hold(dx > 0 ? .right : .left, for: abs(dx) / EarBot.walkSpeed, on: game) }
    if abs(dy) > 4 { hands.hold(dy > 0 ? .up : .down, for: abs(dy) / EarBot.walkSpeed, on: game) }
  }
}

/// A second-order band-pass (RBJ's cookbook, constant 0 dB peak gain).
struct BandPass {
  private var b0 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0
  private var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0
  private(set) var isReady = false

  init() {}

  init(centre: Double, q: Double, sampleRate: Double) {
    let omega = 2 * Double.pi * centre / sampleRate
    let alpha = sin(omega) / (2 * q)
    let a0 = 1 + alpha
    b0 = alpha / a0
    b2 = -alpha / a0
    a1 = -2 * cos(omega) / a0
    a2 = (1 - alpha) / a0
    isReady = true
  }

  mutating func process(_ x: Double) -> Double {
    let y = b0 * x + b2 * x2 - a1 * y1 - a2 * y2
    x2 = x1
    x1 = x
    y2 = y1
    y1 = y
    return y
  }
}
