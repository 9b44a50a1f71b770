import Dispatch
import FoleyAudio
import FoleyCore
import FoleyScene
import Foundation

/// Works out moving voices' paths through the scene's walls and doors on a thread of its own,
/// while the rest of the game's frame runs, as Steam Audio's simulation thread does: an update
/// hands it the moving voices it placed and the next update takes their paths and applies them,
/// so a moving voice is heard through the walls as it was one update before.
///
/// The hand-over costs the game thread no system call: the worker looks for a batch every
/// ``pollInterval`` (and sleeps on a semaphore after ``parkAfterIdlePolls`` empty looks, to be
/// woken by the next batch). The next update takes every answer of the batch: if the worker has
/// not begun it, the game thread works it out itself; if it is half done, the game thread waits
/// for it. Either way the same updates give the same sound, offline too.
///
/// Each voice's walls (``AcousticWalls``) are kept here, by slot: walked again once in
/// ``SpatialAudio/geometryUpdateSpread`` updates, or when the slot's voice or the geometry is
/// new to them.
final class AcousticWorker: @unchecked Sendable {
  /// A moving voice to place: its slot (and the voice in it), and where it and the listener are.
  struct Request {
    var slot: Int32
    var occupant: UInt32
    var listener: Point
    var source: Point
  }

  /// How the voice in a slot is heard now: its path in single precision (what the mixer uses), so
  /// that the game thread reads a batch's answers in a few cache lines.
  struct Answer {
    var slot: Int32
    var occupant: UInt32
    /// The geometry it was placed through: an answer through walls since changed is dropped.
    var version: Int32
    /// The loudest path's portal, or -1 for the straight line.
    var portal: Int32
    var gain: Float
    var pan: Float
    var cutoff: Float
    var send: Float
    var occlusionDecibels: Float

    init(_ request: Request, version: Int, path: AcousticPath) {
      (slot, occupant, self.version) = (request.slot, request.occupant, Int32(truncatingIfNeeded: version))
      portal = Int32(path.portal ?? -1)
      (gain, pan, cutoff) = (Float(path.gain), Float(path.pan), Float(path.cutoff))
      (send, occlusionDecibels) = (Float(path.send), Float(path.occlusionDecibels))
    }
  }

  static let pollInterval: useconds_t = 2_000
  static let parkAfterIdlePolls = 250

  private enum Stage {
    /// Nothing handed over, or the last batch's answers taken.
    case idle
    /// A batch waits to be begun.
    case pending
    /// The worker thread is working it out.
    case running
    /// Worked out; the answers wait to be taken.
    case done
  }

  private struct Handshake {
    var stage = Stage.idle
    var parked = false
    var joinerWaits = false
    var stops = false
  }

  private let handshake = Locked(Handshake())
  private let ended = Locked(false)
  private let wake = DispatchSemaphore(value: 0)
  private let finished = DispatchSemaphore(value: 0)
  private var thread: Thread?

  // The batch's state: touched by whichever thread holds the batch (the worker between
  // `running` and `done`, the game thread otherwise), the handshake ordering the two.
  private var geometry = AcousticGeometry()
  private var geometryVersion = -1
  private var spatial = SpatialAudio()
  private var update = 0
  private var batch: [Request] = []
  private var answers: [Answer] = []
  private var kept: [Kept] = []

  private struct Kept {
    var occupant: UInt32 = 0
    var version = -1
    var walkedInUpdate = 0
    var walls = AcousticWalls.unwalked
  }

  init() {
    batch.reserveCapacity(256)
    answers.reserveCapacity(256)
    let thread = Thread { [self] in run() }
    thread.name = "foley-acoustics"
    self.thread = thread
    thread.start()
  }

  /// Whether its thread has ended (after ``stop()``).
  var hasEnded: Bool { ended.withLock { $0 } }

  /// Ends the worker's thread (a batch being worked out is finished first).
  func stop() {
    let parked = handshake.withLock { state in
      state.stops = true
      return state.parked
    }
    if parked { wake.signal() }
  }

  /// Hands over `requests` (taken: they come back empty, with the storage of an earlier batch),
  /// to be placed through `geometry` of version `version` as of update `update`. The last batch
  /// must have been joined.
  func start(
    _ requests: inout [Request], geometry: AcousticGeometry, version: Int, spatial: SpatialAudio, update: Int
  ) {
    if version != geometryVersion {
      // Its own copy: its walks write the copy's scratch storage, not the link's.
      self.geometry = geometry
      geometryVersion = version
    }
    self.spatial = spatial
    self.update = update
    swap(&batch, &requests)
    let parked = handshake.withLock { state in
      precondition(state.stage == .idle, "the last batch was not joined")
      state.stage = .pending
      let parked = state.parked
      state.parked = false
      return parked
    }
    if parked { wake.signal() }
  }

  /// Takes the last batch's answers, handing each to `body`: working the batch out here if the
  /// worker has not begun it, waiting for it if the worker is working it out.
  func join(_ body: (Answer) -> Void) {
    enum Then { case nothing, workHere, wait, take }
    let then = handshake.withLock { state -> Then in
      switch state.stage {
      case .idle: return .nothing
      case .pending:
        state.stage = .running
        return .workHere
      case .running:
        state.joinerWaits = true
        return .wait
      case .done: return .take
      }
    }
    switch then {
    case .nothing: return
    case .workHere: work()
    case .wait: finished.wait()
    case .take: break
    }
    handshake.withLock { $0.stage = .idle }
    for answer in answers { body(answer) }
    answers.removeAll(keepingCapacity: true)
  }

  private func run() {
    var idlePolls = 0
    while true {
      enum Then { case stop, work, park, poll }
      let then = handshake.withLock { state -> Then in
        if state.stops { return .stop }
        if state.stage == .pending {
          state.stage = .running
          return .work
        }
        if idlePolls >= Self.parkAfterIdlePolls {
          state.parked = true
          return .park
        }
        return .poll
      }
      switch then {
      case .stop:
        ended.withLock { $0 = true }
        return
      case .work:
        idlePolls = 0
        work()
        let waits = handshake.withLock { state in
          state.stage = .done
          let waits = state.joinerWaits
          state.joinerWaits = false
          return waits
        }
        if waits { finished.signal() }
      case .park:
        idlePolls = 0
        wake.wait()
      case .poll:
        idlePolls += 1
        usleep(Self.pollInterval)
      }
    }
  }

  /// Places every request of the batch: its walls walked again when they are due or unknown.
  private func work() {
    let spread = spatial.geometryUpdateSpread
    for request in batch {
      let slot = Int(request.slot)
      if slot >= kept.count { kept.append(contentsOf: repeatElement(Kept(), count: slot + 1 - kept.count)) }
      if kept[slot].occupant != request.occupant || kept[slot].version != geometryVersion {
        kept[slot] = Kept(
          occupant: request.occupant, version: geometryVersion,
          // Staggered: of voices walked together, one in `spread` is walked again each update.
          walkedInUpdate: update - slot % spread,
          walls: geometry.walls(from: request.listener, to: request.source))
      } else if update - kept[slot].walkedInUpdate >= spread {
        kept[slot].walls = geometry.walls(from: request.listener, to: request.source)
        kept[slot].walkedInUpdate = update
      }
      let path = geometry.path(
        from: request.listener, to: request.source, walls: kept[slot].walls, spatial: spatial)
      answers.append(Answer(request, version: geometryVersion, path: path))
    }
    batch.removeAll(keepingCapacity: true)
  }
}
