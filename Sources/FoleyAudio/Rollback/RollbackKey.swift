/// The game's own name for one sound of its simulation, stable across re-simulations: the event,
/// the entity and the frame that caused it, as GGPO-style games key their effects. Two requests
/// with the same key are the same sound; a re-simulation that asks for it again keeps it.
///
/// ```swift
/// let key = RollbackKey(event: "punch", entity: player, frame: frame)
/// timeline.play(punch, key: key, frame: frame)
/// let custom = RollbackKey(MyEffectID(fighter: 1, move: .uppercut, frame: frame))
/// ```
public struct RollbackKey: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
  /// The usual keys held as they are (hashed and compared without a box: a request through a
  /// timeline makes one every time); any other value of the game's, boxed.
  private enum Value: Hashable, @unchecked Sendable {
    case event(String, entity: Int, frame: Int)
    case name(String)
    case integer(Int)
    case other(AnyHashable)
  }

  private let value: Value

  /// A key made of any Hashable, Sendable value of the game's (a struct of its own, a tuple's
  /// fields in one, an integer id).
  public init(_ value: some Hashable & Sendable) {
    switch value {
    case let name as String: self.value = .name(name)
    case let integer as Int: self.value = .integer(integer)
    case let key as RollbackKey: self = key
    default: self.value = .other(AnyHashable(value))
    }
  }

  /// The usual key: what happened, to whom, on which simulation frame.
  public init(event: String, entity: Int, frame: Int) {
    value = .event(event, entity: entity, frame: frame)
  }

  public init(stringLiteral value: String) { self.value = .name(value) }

  public var description: String {
    switch value {
    case .event(let event, let entity, let frame): "\(event)/\(entity)@\(frame)"
    case .name(let name): name
    case .integer(let integer): "\(integer)"
    case .other(let other): "\(other)"
    }
  }

  /// A seed made of the key's description (64-bit FNV-1a): the same for the same key in every
  /// run, for choices a key must make the same way (a sound map's random draws).
  package var seed: UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in description.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x0000_0100_0000_01b3
    }
    return hash
  }
}

/// Why a rollback timeline refused a request.
public enum RollbackError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A simulation rate outside 1…1,000 frames per second.
  case invalidRate(Int)
  /// A rollback to a frame the netcode has confirmed (or that fell out of the timeline's window):
  /// what sounded there is final.
  case confirmed(frame: Int, confirmedThrough: Int)

  public var description: String {
    switch self {
    case .invalidRate(let rate): "a rollback timeline runs at 1…1000 frames per second, not \(rate)"
    case .confirmed(let frame, let through):
      "cannot roll back to frame \(frame): frames through \(through) are confirmed"
    }
  }
}
