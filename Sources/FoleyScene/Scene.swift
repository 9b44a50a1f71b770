public import FoleyCore
public import Foundation

/// The root of a node tree and its clock. SpriteKit's `SKScene`, but time is handed in rather than
/// read from a display link, so a game, a test and a headless script all step it the same way.
///
/// ```swift
/// let scene = Scene(size: Size(width: 640, height: 480), seed: 1)
/// let coin = SpriteNode(color: .white, size: Size(width: 8, height: 8))
/// scene.addChild(coin)
/// coin.run(.sequence([.wait(forDuration: 0.5, withRange: 0.2), .fadeOut(withDuration: 0.25)]))
/// for _ in 0..<60 { scene.update(deltaTime: 1.0 / 60.0) }
/// ```
///
/// The update order is deterministic: a node's actions in the order they were started, then its
/// children in order, depth first.
///
/// Subclass it as you would `SKScene`: each ``update(deltaTime:)`` calls ``update(_:)`` with the
/// scene's time before the actions run, then ``didEvaluateActions()`` and ``didFinishUpdate()``;
/// a ``SceneView`` presenting it calls ``didMove(to:)`` and ``willMove(from:)``.
///
/// ```swift
/// final class Level: Scene {
///   override func didMove(to view: SceneView) { addChild(hero) }
///   override func update(_ currentTime: TimeInterval) { hero.position.x += 1 }
/// }
/// ```
@MainActor
open class Scene: Node {
  // `size` and `currentTime` are read by every positional start and every event post; each access
  // is instantaneous, so the runtime's exclusivity checks are left off (as for `Node.position`).
  @exclusivity(unchecked) public var size: Size
  /// The node that hears positional sound (FoleyAudio); nil puts the listener at the scene's
  /// centre. (SpriteKit's `listener`; with none, SpriteKit listens from the scene's origin.)
  public weak var listener: Node?
  /// The scene's own clock: the sum of the steps it was updated by (what ``update(_:)`` gets).
  @exclusivity(unchecked) public private(set) var currentTime: TimeInterval = 0
  /// The scene's game-event dispatcher (made on first use).
  public var events: GameEvents {
    if let made = gameEvents { return made }
    let made = GameEvents(scene: self)
    gameEvents = made
    return made
  }
  private var gameEvents: GameEvents?
  /// The view presenting the scene, if any.
  public internal(set) weak var view: SceneView?
  public var backgroundColor = Color(red: 0.08, green: 0.08, blue: 0.12)
  /// The generator behind randomised actions; seeded, so a run replays identically.
  public var random: SeededRandomGenerator

  private var services: [ObjectIdentifier: AnyObject] = [:]
  /// Nodes with watched nodes below them that moved since ``takeMovedNodes()`` was last called
  /// (kept only while ``tracksMoves``).
  @exclusivity(unchecked) private var movedNodes: [Node] = []
  /// Whether moves of watched nodes are kept for ``takeMovedNodes()`` (an attached audio engine
  /// turns it on, and takes them every update).
  @exclusivity(unchecked) package var tracksMoves = false {
    didSet {
      if !tracksMoves {
        movedNodes.removeAll()
        movesOverflowed = false
      }
    }
  }
  /// How many moves are listed for ``takeMovedNodes()`` before the scene only notes that there
  /// were more (``takeMovedNodes(into:)`` says so). A taker that finds the moved nodes another
  /// way past that many (the audio link compares each voice's node with where it was placed) is
  /// spared an entry, a retain and a release per move.
  @exclusivity(unchecked) package var movedNodesLimit = Int.max
  /// Whether more moves came since the last take than ``movedNodesLimit`` let the list hold.
  @exclusivity(unchecked) private var movesOverflowed = false

  func noteMoved(_ node: Node) {
    guard tracksMoves else { return }
    if movedNodes.count < movedNodesLimit {
      movedNodes.append(node)
    } else {
      movesOverflowed = true
    }
  }

  /// The nodes with watched nodes below them that moved since the last call (a node may be
  /// there more than once; only the first ``movedNodesLimit`` moves are listed).
  package func takeMovedNodes() -> [Node] {
    var taken: [Node] = []
    takeMovedNodes(into: &taken)
    return taken
  }

  /// The same into `buffer`, whose storage (emptied) the scene keeps for the next moves: an
  /// update that takes them every frame allocates nothing. True when more moves came than the
  /// list holds (``movedNodesLimit``): `buffer` then lists only the first of them.
  @discardableResult
  package func takeMovedNodes(into buffer: inout [Node]) -> Bool {
    buffer.removeAll(keepingCapacity: true)
    swap(&buffer, &movedNodes)
    defer { movesOverflowed = false }
    return movesOverflowed
  }
  /// In a box of their own: an observation holds the box weakly, never the scene (a weak
  /// reference to the scene would put every retain of it, one per sound trigger, on the slow path).
  private final class UpdateObservers {
    var list: [(id: Int, phase: UpdatePhase, block: @MainActor (TimeInterval) -> Void)] = []
  }
  private let updateObservers = UpdateObservers()
  private var nextObserverID = 0

  public init(size: Size = .zero, seed: UInt64 = 0) {
    self.size = size
    self.random = SeededRandomGenerator(seed: seed)
    super.init()
    isSceneRoot = true
  }

  /// Advances every running action by `deltaTime` seconds. Negative or NaN steps count as zero.
  /// Observers added with ``observeUpdates(_:_:)`` run before and after the actions, even while
  /// the scene is paused.
  ///
  /// Called from inside an update (a block action, an observer, an ``update(_:)`` override), the
  /// step is not taken there: the actions under way would be advanced from inside their own
  /// advance (a block that updated its scene ran itself again, without end, until the stack
  /// overflowed). It is added to the next update's step instead: no time is lost, and each call
  /// from the game is one update, however often its blocks ask for more.
  public func update(deltaTime: TimeInterval) {
    let asked = deltaTime.isNaN || deltaTime < 0 ? 0 : deltaTime
    guard !isUpdating else {
      carriedTime += asked
      return
    }
    isUpdating = true
    defer { isUpdating = false }
    let step = asked + carriedTime
    carriedTime = 0
    currentTime += step
    for observer in updateObservers.list where observer.phase == .beforeActions { observer.block(step) }
    update(currentTime)
    if !isPaused { advance(by: step * speed) }
    didEvaluateActions()
    for observer in updateObservers.list where observer.phase == .afterActions { observer.block(step) }
    didFinishUpdate()
  }

  /// Whether ``update(deltaTime:)`` is under way.
  private var isUpdating = false
  /// Steps asked for from inside an update, added to the next one.
  private var carriedTime: TimeInterval = 0

  // MARK: - Overridable hooks (SKScene's)

  /// Called once per ``update(deltaTime:)``, before the actions run, with the scene's time.
  open func update(_ currentTime: TimeInterval) {}

  /// Called after the frame's actions ran.
  open func didEvaluateActions() {}

  /// Called last in each update (after the engine attached to the scene took the frame's sounds).
  open func didFinishUpdate() {}

  /// Called when a ``SceneView`` starts presenting the scene.
  open func didMove(to view: SceneView) {}

  /// Called when a ``SceneView`` stops presenting the scene (another one replaces it).
  open func willMove(from view: SceneView) {}

  /// When an update observer runs.
  public enum UpdatePhase: Sendable {
    /// At the start of the update, before any action runs: to deliver what happened since the
    /// last frame (FoleyAudio delivers the session's transitions this way).
    case beforeActions
    /// After every action ran: to act on what the frame's actions asked for at once (FoleyAudio
    /// hands the frame's sound requests to its audio queue in one go).
    case afterActions
  }

  /// Calls `block` at every ``update(deltaTime:)`` with the step, in `phase`, until the
  /// observation is cancelled.
  @discardableResult
  public func observeUpdates(
    _ phase: UpdatePhase = .beforeActions, _ block: @escaping @MainActor (TimeInterval) -> Void
  ) -> Observation {
    nextObserverID += 1
    let token = nextObserverID
    updateObservers.list.append((token, phase, block))
    return Observation { [weak updateObservers] in updateObservers?.list.removeAll { $0.id == token } }
  }

  /// Registers a subsystem object for actions to find by type; FoleyAudio's sound actions find
  /// their `AudioEngine` this way. Passing nil removes it.
  public func setService<Service: AnyObject>(_ service: Service?, as type: Service.Type = Service.self) {
    services[ObjectIdentifier(type)] = service
  }

  /// The object registered with ``setService(_:as:)`` for `type`, if any.
  public func service<Service: AnyObject>(_ type: Service.Type) -> Service? {
    services[ObjectIdentifier(type)] as? Service
  }
}
