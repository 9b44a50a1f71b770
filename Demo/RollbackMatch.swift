import Foley
import Foundation

/// A scripted two-player exchange at 60 Hz through a simulated rollback netcode: player 0's inputs
/// are known at once, player 1's arrive 1–8 frames late and are predicted meanwhile (the last one
/// received, held), so about a fifth of the frames are simulated on a wrong guess and re-simulated
/// when the real input comes. Its sounds go through a ``RollbackTimeline``; the truth is the same
/// match with every input known on its frame.
struct RollbackMatch {
  /// A fighter's input on a frame.
  enum Move: UInt8, CaseIterable {
    case idle, punch, kick, block, jump
  }

  /// What the simulation carries from frame to frame (what a rollback restores).
  struct State: Equatable {
    var previous: [Move] = [.idle, .idle]
    /// Per player: the frame its attack lands on and whether it is a kick.
    var attack: [(frame: Int, kick: Bool)?] = [nil, nil]

    static func == (lhs: State, rhs: State) -> Bool {
      lhs.previous == rhs.previous
        && zip(lhs.attack, rhs.attack).allSatisfy { $0?.frame == $1?.frame && $0?.kick == $1?.kick }
    }
  }

  /// One sound the simulation asks for.
  struct Cue {
    var key: RollbackKey
    var sound: String
    var frame: Int
    var volume: Double
    var pan: Double
  }

  /// One rollback, as the render prints it.
  struct Rollback {
    var index: Int
    var atFrame: Int
    var toFrame: Int
    var reconciliation: RollbackTimeline.Reconciliation
  }

  let frames: Int
  /// Both players' inputs, frame by frame.
  let inputs: [[Move]]
  /// The frame on which player 1's input for each frame reaches player 0.
  let arrival: [Int]

  init(seed: UInt64, frames: Int) {
    self.frames = frames
    var random = SeededRandomGenerator(seed: seed)
    var inputs: [[Move]] = [[], []]
    for player in 0..<2 {
      var held = Move.idle
      var left = 0
      for _ in 0..<frames {
        if left == 0 {
          held = Move.allCases[Int(random.next() % UInt64(Move.allCases.count))]
          left = 10 + Int(random.next() % 26)
        }
        // The last half second both stand still: the round is over, and every guess comes true.
        inputs[player].append(inputs[player].count < frames - 30 ? held : .idle)
        left -= 1
      }
    }
    self.inputs = inputs
    var arrival: [Int] = []
    for frame in 0..<frames {
      let delay = 1 + Int(random.next() % 8)
      arrival.append(max(arrival.last ?? 0, frame + delay))
    }
    self.arrival = arrival
  }

  /// The sounds frame `frame` asks for with these inputs, and the state after it.
  static func simulate(_ frame: Int, moves: [Move], state: inout State) -> [Cue] {
    var cues: [Cue] = []
    for player in 0..<2 {
      let move = moves[player]
      let pan = player == 0 ? -0.4 : 0.4
      if move != state.previous[player] {
        switch move {
        case .punch, .kick:
          cues.append(
            Cue(
              key: RollbackKey(event: "swing", entity: player, frame: frame),
              sound: move == .punch ? "swing" : "sweep",
              frame: frame, volume: 0.3, pan: pan))
          state.attack[player] = (frame + (move == .punch ? 6 : 9), move == .kick)
        case .jump:
          cues.append(
            Cue(
              key: RollbackKey(event: "jump", entity: player, frame: frame), sound: "jump", frame: frame,
              volume: 0.25, pan: pan))
        case .idle, .block: break
        }
      }
      if let attack = state.attack[player], attack.frame == frame {
        let blocked = moves[1 - player] == .block
        cues.append(
          Cue(
            key: RollbackKey(event: blocked ? "block" : "hit", entity: player, frame: frame),
            sound: blocked ? "block" : (attack.kick ? "thud" : "hit"), frame: frame, volume: 0.35, pan: -pan))
        state.attack[player] = nil
      }
      state.previous[player] = move
    }
    return cues
  }

  /// The netcode's side of a match: what has arrived, what was guessed, the states to restore.
  struct Netcode {
    var state = State()
    var saved: [State] = []
    /// Player 1's input each frame was simulated with.
    var used: [Move?]
    var received: [Bool]
    var lastReceived = Move.idle
    var confirmed = -1
    var predicted = 0
    var wrong = 0
    /// The next remote frame to arrive.
    var next = 0

    init(frames: Int) {
      used = Array(repeating: nil, count: frames)
      received = Array(repeating: false, count: frames)
    }
  }

  /// Simulates frame `frame` (after any rollback the inputs arriving on it call for), handing
  /// every sound asked for to `play`, re-simulations included. `rollback(from)` is called before
  /// a re-simulation from `from` and `resimulated(from)` after it; the netcode's confirmed frame
  /// is in `netcode.confirmed` afterwards. With `truth`, every input is known on its frame and
  /// nothing rolls back.
  func simulate(
    frame: Int, truth: Bool, netcode: inout Netcode, play: (Cue) -> Void, rollback: (Int) throws -> Void,
    resimulated: (Int) -> Void
  ) rethrows {
    if !truth {
      // The remote inputs that arrive now; the earliest one the simulation guessed wrong.
      var earliestWrong: Int?
      while netcode.next < frames, arrival[netcode.next] <= frame {
        let next = netcode.next
        netcode.received[next] = true
        netcode.lastReceived = inputs[1][next]
        if next < frame, let guess = netcode.used[next], guess != inputs[1][next], earliestWrong == nil {
          earliestWrong = next
        }
        netcode.next += 1
      }
      if let from = earliestWrong {
        try rollback(from)
        netcode.state = netcode.saved[from]
        netcode.saved.removeSubrange(from...)
        for again in from..<frame {
          netcode.saved.append(netcode.state)
          let remote = netcode.received[again] ? inputs[1][again] : netcode.lastReceived
          netcode.used[again] = remote
          for cue in Self.simulate(again, moves: [inputs[0][again], remote], state: &netcode.state) {
            play(cue)
          }
        }
        resimulated(from)
      }
    }
    netcode.saved.append(netcode.state)
    let remote: Move
    if truth || netcode.received[frame] {
      remote = inputs[1][frame]
    } else {
      remote = netcode.lastReceived
      netcode.predicted += 1
      if remote != inputs[1][frame] { netcode.wrong += 1 }
    }
    netcode.used[frame] = remote
    for cue in Self.simulate(frame, moves: [inputs[0][frame], remote], state: &netcode.state) { play(cue) }
    while netcode.confirmed + 1 <= frame, truth || netcode.received[netcode.confirmed + 1] {
      netcode.confirmed += 1
    }
  }

  /// The match's sounds, made here (no assets): short, percussive, each its own colour.
  static func sounds(rate: Int) -> [String: Data] {
    func make(_ seconds: Double, _ sample: (Double, Double) -> Double) -> Data {
      let count = Int(seconds * Double(rate))
      var noise = SeededRandomGenerator(seed: UInt64(count))
      let samples = (0..<count).map { index -> Float in
        let time = Double(index) / Double(rate)
        let white = Double(noise.next() >> 11) / Double(1 << 53) * 2 - 1
        // 1 ms in, so no sound of the match starts with a step of its own.
        return Float(sample(time, white) * min(1, time * 1_000))
      }
      return samples.withUnsafeBytes {
        WAVFile.data(
          format: RecordingFormat(sampleRate: rate, channels: 1, sampleFormat: .float32), samples: $0)
      }
    }
    return [
      "swing": make(0.15) { time, white in white * exp(-time * 30) * 0.8 },
      "sweep": make(0.25) { time, white in
        white * exp(-time * 14) * 0.6 + sin(2 * .pi * 180 * time) * exp(-time * 20) * 0.3
      },
      "hit": make(0.3) { time, white in
        sin(2 * .pi * 90 * time) * exp(-time * 12) + white * exp(-time * 60) * 0.5
      },
      "thud": make(0.4) { time, _ in sin(2 * .pi * 55 * time * (1 - time)) * exp(-time * 8) },
      "block": make(0.35) { time, _ in
        (sin(2 * .pi * 880 * time) + sin(2 * .pi * 1_310 * time)) * 0.4 * exp(-time * 10)
      },
      "jump": make(0.2) { time, _ in sin(2 * .pi * (300 + 900 * time) * time) * exp(-time * 9) * 0.7 },
    ]
  }
}
