public import FoleyCore
import Foundation

/// Where the scene has placed a voice, as seen from its listener (for captions and rumble).
package struct ScenePlacement {
  package var dx: Double
  package var dy: Double
  package var distance: Double
  /// The distance model's gain there.
  package var gain: Double

  package init(dx: Double, dy: Double, distance: Double, gain: Double) {
    self.dx = dx
    self.dy = dy
    self.distance = distance
    self.gain = gain
  }
}

/// The scene's side of captions and rumble: the object a new play's voice follows, taken once
/// when the play is taken, and where that object is heard from at each update.
@MainActor
package protocol ScenePlacing: AnyObject {
  /// The object `voice` follows in the scene, or nil for a voice the scene does not place.
  func anchor(of voice: Voice) -> AnyObject?
  /// Where `anchor` (one ``anchor(of:)`` gave, held by the caller) is heard from now.
  func placement(of anchor: Unmanaged<AnyObject>) -> ScenePlacement
  /// Where `anchor` is heard from when its loudest path goes through `portal` (its index in the
  /// acoustic geometry; negative: the straight line): from the opening's direction, over the
  /// path's length. By default, the straight line.
  func placement(of anchor: Unmanaged<AnyObject>, heardThrough portal: Int) -> ScenePlacement
}

extension ScenePlacing {
  package func placement(of anchor: Unmanaged<AnyObject>, heardThrough portal: Int) -> ScenePlacement {
    placement(of: anchor)
  }
}

/// One heard source of a caption, for a "sound radar" (``CaptionCenter/radar(limit:)``).
public struct CaptionedSource: Sendable, Hashable {
  public var caption: Caption
  /// Where it comes from; nil when it is not placed in the scene (then ``side`` is its pan).
  public var direction: CaptionDirection?
  public var side: Double
  public var distance: Double?
  /// How loud it is as heard, in dB relative to full scale.
  public var loudness: Double
}

/// Captions of what the player would hear: each captioned sound that is heard — started, not
/// virtual, above ``threshold`` after its volumes, distance, bus and master — posts a
/// ``CaptionEvent`` with its direction from the listener, its distance and its loudness, follows
/// its source while it plays, merges with repeats of itself, and ends ``holdTime`` after its
/// last sound did.
///
/// An attached scene updates it every frame; a game without a scene calls ``update()`` once per
/// frame itself. Events are delivered on the game thread, during that update.
///
/// ```swift
/// var settings = SoundSettings()
/// settings.caption = Caption("Ball whistles")
/// let whistle = try Sound(contentsOf: whistleURL, engine: engine, settings: settings)
/// engine.captions.observe { event in print(event.phase, event.label, event.direction?.words ?? "") }
/// ```
///
/// A ``Caption/Category/critical`` caption is shown whenever its sound starts, even on a bus the
/// player muted: the cue reaches the player who turned the sound off.
@MainActor
public final class CaptionCenter {
  /// How long a caption stays after its last sound ended, in seconds (0…3,600; a NaN or an
  /// infinity is refused and the last value kept); a repeat within it merges ("×2").
  public var holdTime: Double = 1 {
    didSet { holdTime = holdTime.clamped(to: 0...3_600, or: oldValue, member: "CaptionCenter.holdTime") }
  }
  /// The quietest a sound may be heard, in dBFS (-200…0, a non-finite value refused), and still be
  /// captioned (critical ones always are).
  public var threshold: Double = -60 {
    didSet { threshold = threshold.clamped(to: -200...0, or: oldValue, member: "CaptionCenter.threshold") }
  }
  /// Caption what the mix holds before the master's volume and mute: for a player who turned the
  /// whole game down or off to read the captions instead. Off by default: a sound the player
  /// cannot hear for the master is then captioned only when it is critical. Buses muted by the
  /// player still silence their captions.
  public var ignoresMasterVolume = false
  /// Whether captions are made at all (the player's ``AudioSettings/showsCaptions``). Off, plays
  /// are dropped and what is shown ends at the next update.
  public var isEnabled: Bool {
    get { engine.value.core.buses.withLock { $0.showsCaptions } }
    set { engine.value.core.buses.withLock { $0.showsCaptions = newValue } }
  }

  private let engine: AudioEngine.Unowned
  private var tracked: [Tracked] = []
  private var groups: [Group] = []
  private var nextID = 1
  private var observers = ObserverList<CaptionEvent>()
  /// The sources heard at the last update, as found there: what ``radar(limit:)`` makes its
  /// ``CaptionedSource``s of when it is asked.
  private var heard: [Heard] = []

  private struct Tracked {
    let play: NotedPlay
    /// What it follows in the scene (nil: not placed), held here.
    let anchor: AnyObject?
    /// The same, passed to the placing without reference counting.
    let anchorReference: Unmanaged<AnyObject>?

    init(play: NotedPlay, anchor: AnyObject? = nil) {
      self.play = play
      self.anchor = anchor
      anchorReference = anchor.map { Unmanaged.passUnretained($0) }
    }
    /// The group it is heard in (nil while not heard).
    var group: Int?
    var wasCounted = false
  }

  private struct Group {
    let id: Int
    let caption: Caption
    var count = 1
    var live = 0
    var quietSince: Double?
    var duration: Double?
    var time: Double
    var shown: CaptionEvent?
    var loudest: Heard?
  }

  /// A source heard at an update, by the index of its entry in `tracked`: its direction, words
  /// and loudness are worked out only for the sources a caption or the radar shows.
  private struct Heard {
    var tracked: Int
    /// Where it is from the listener (nan when it is not placed in the scene).
    var dx: Double
    var dy: Double
    var distance: Double?
    /// Its pan, for a source not placed in the scene.
    var pan: Double
    /// Its gain as heard (its loudness in dBFS is `20 log10(gain)`).
    var gain: Double

    var direction: CaptionDirection? { CaptionDirection(dx: dx, dy: dy) }
    var loudness: Double { gain > 0 ? 20 * log10(gain) : -.infinity }
  }

  package init(engine: AudioEngine) {
    self.engine = AudioEngine.Unowned(engine)
  }

  /// Calls `body` with every caption event, on the game thread, until the observation is
  /// cancelled.
  @discardableResult
  public func observe(_ body: @escaping @MainActor (CaptionEvent) -> Void) -> Observation {
    let token = observers.add(body)
    return Observation { [weak self] in self?.observers.remove(token) }
  }

  /// The captions shown now, oldest first.
  public var shown: [CaptionEvent] { groups.compactMap(\.shown) }

  /// The loudest heard captioned sources at the last update, loudest first, at most `limit`:
  /// for a ring or radar of directions around the player.
  public func radar(limit: Int = 8) -> [CaptionedSource] {
    heard.sorted { $0.gain > $1.gain }.prefix(max(0, limit)).map(source)
  }

  private func source(_ heard: Heard) -> CaptionedSource {
    let direction = heard.direction
    return CaptionedSource(
      caption: tracked[heard.tracked].play.caption!, direction: direction, side: direction?.side ?? heard.pan,
      distance: heard.distance, loudness: heard.loudness)
  }

  /// Captions `voice` as `caption` from now until it finishes, as a captioned sound's play is: for
  /// a voice that is not a sound's (speech, a stream).
  package func track(_ voice: Voice, caption: Caption, category: SoundCategory, duration: Double?) {
    guard isEnabled, !voice.isFinished else { return }
    tracked.append(
      Tracked(
        play: NotedPlay(voice: voice, sound: nil, caption: caption, category: category, duration: duration)))
  }

  /// Takes the new plays and brings the captions in line with what is heard now. A scene attached
  /// to the engine calls it every update; call it once a frame when there is none. The engine's
  /// ``AudioEngine/space`` places its voices' captions from where their listeners hear them.
  public func update() {
    update(placing: engine.value.spaceIfMade)
  }

  /// ``update()`` with the scene's placing: where each new play's voice is followed, and from
  /// where it is heard now.
  package func update(placing: (any ScenePlacing)?) {
    let core = engine.value.core
    let plays = core.captionPlays.take()
    guard isEnabled else {
      endAll()
      return
    }
    for play in plays { tracked.append(Tracked(play: play, anchor: placing?.anchor(of: play.voice))) }
    guard !tracked.isEmpty || !groups.isEmpty else { return }
    let now = Double(core.mixer.framesMixed.load(ordering: .acquiring)) / Double(core.format.sampleRate)
    let buses = core.buses.withLock { $0 }
    for index in groups.indices {
      groups[index].loudest = nil
      groups[index].live = 0
    }
    heard.removeAll(keepingCapacity: true)
    // The quietest gain captioned: `threshold` in dBFS, compared as a gain (no logarithm per source).
    let quietest = pow(10, threshold / 20)
    let master = ignoresMasterVolume ? 1 : buses.masterGain
    // Worked on as a local, moved out and back: the entries are read and written where they
    // lie (a stored property's would be copied out around each call). The finished ones are
    // dropped in place, the live ones moving down over them.
    var tracked: [Tracked] = []
    swap(&tracked, &self.tracked)
    // A sound a rollback withdrew never happened: it leaves its caption's count, and a caption
    // with nothing else behind it ends at once.
    for slot in tracked.indices where tracked[slot].play.voice.isWithdrawn.load(ordering: .acquiring) {
      if tracked[slot].wasCounted, let id = tracked[slot].group, let group = groupIndex(id: id) {
        groups[group].count -= 1
      }
      tracked[slot].wasCounted = false
    }
    let live = Self.keepUnfinished(&tracked)
    for slot in 0..<live {
      let voice = tracked[slot].play.voice
      guard voice.startFrame != nil, voice.state == .playing else { continue }
      var place: ScenePlacement?
      if let anchor = tracked[slot].anchorReference, let placing {
        // From where it is heard: through a door, the door's way, not the straight line.
        place = placing.placement(of: anchor, heardThrough: voice.acousticPortal.load(ordering: .relaxed))
      }
      let gain =
        voice.volume * voice.groupVolume * voice.normalization * tracked[slot].play.volume
        * (place?.gain ?? voice.initialPlacement?.gain ?? 1)
        * buses.gain(for: tracked[slot].play.category, criticalCue: tracked[slot].play.isCritical) * master
      // A voice the master's mute sent virtual is heard here when the master does not count.
      let virtual = voice.isVirtual && !(ignoresMasterVolume && buses.masterGain == 0)
      let critical = tracked[slot].play.isCritical || buses.critical.contains(tracked[slot].play.category)
      guard critical || (!virtual && gain >= quietest) else { continue }
      let source = Heard(
        tracked: slot, dx: place?.dx ?? .nan, dy: place?.dy ?? .nan, distance: place?.distance,
        pan: min(max(voice.pan + tracked[slot].play.pan, -1), 1), gain: gain)
      heard.append(source)
      // Its group: the one it was heard in, or a shown one of the same caption, or a new one.
      var group: Int?
      if let id = tracked[slot].group { group = groupIndex(id: id) }
      if group == nil {
        let caption = tracked[slot].play.caption!
        group = groupIndex(caption: caption)
        if let found = group {
          if !tracked[slot].wasCounted { groups[found].count += 1 }
        } else {
          groups.append(Group(id: nextID, caption: caption, time: now))
          nextID += 1
          group = groups.count - 1
        }
      }
      let index = group!
      if !tracked[slot].wasCounted {
        groups[index].time = now
        groups[index].duration = tracked[slot].play.duration
      }
      tracked[slot].group = groups[index].id
      tracked[slot].wasCounted = true
      groups[index].live += 1
      groups[index].quietSince = nil
      if (groups[index].loudest?.gain ?? -.infinity) <= gain { groups[index].loudest = source }
    }
    tracked.removeLast(tracked.count - live)
    // Back before any observer is called (one may ask for the radar).
    swap(&tracked, &self.tracked)
    var remaining = 0
    for index in groups.indices {
      if groups[index].live == 0 {
        let quiet = groups[index].quietSince ?? now
        groups[index].quietSince = quiet
        if now - quiet >= holdTime || groups[index].count <= 0 {
          if var last = groups[index].shown {
            last.phase = .ended
            send(last)
          }
          continue
        }
      }
      if let loudest = groups[index].loudest {
        let group = groups[index]
        let direction = loudest.direction
        let event = CaptionEvent(
          id: group.id, phase: group.shown == nil ? .began : .changed, text: group.caption.text,
          category: group.caption.category, count: group.count, direction: direction,
          side: direction?.side ?? loudest.pan, distance: loudest.distance, loudness: loudest.loudness,
          duration: group.duration,
          time: group.time)
        if group.shown.map({ Self.differs($0, event) }) ?? true {
          groups[index].shown = event
          send(event)
        }
      }
      if index != remaining { groups.swapAt(index, remaining) }
      remaining += 1
    }
    groups.removeLast(groups.count - remaining)
  }

  /// Moves the entries whose voice has not finished to the front, in order, and returns how many
  /// there are. Swapped in the array's memory: `Array.swapAt` copies (and retains) both entries.
  private static func keepUnfinished(_ tracked: inout [Tracked]) -> Int {
    tracked.withUnsafeMutableBufferPointer { buffer in
      var live = 0
      for index in buffer.indices where !buffer[index].play.voice.isFinished {
        if index != live { buffer.swapAt(index, live) }
        live += 1
      }
      return live
    }
  }

  /// The index of the group `id` (a loop, not `firstIndex`: a closure made on the main actor
  /// and called by the standard library checks its executor at every call).
  private func groupIndex(id: Int) -> Int? {
    for index in groups.indices where groups[index].id == id { return index }
    return nil
  }

  /// The index of the group of `caption`, if one is shown.
  private func groupIndex(caption: Caption) -> Int? {
    for index in groups.indices where groups[index].caption == caption { return index }
    return nil
  }

  /// Whether `new` says something `old` did not: a count, a start, a move, a change of loudness.
  private static func differs(_ old: CaptionEvent, _ new: CaptionEvent) -> Bool {
    if old.count != new.count || old.time != new.time { return true }
    if abs(old.side - new.side) > 0.05 { return true }
    if let a = old.direction, let b = new.direction {
      var turn = abs(a.degrees - b.degrees)
      if turn > 180 { turn = 360 - turn }
      if turn > 5 { return true }
    } else if (old.direction == nil) != (new.direction == nil) {
      return true
    }
    if let a = old.distance, let b = new.distance, abs(a - b) > max(1, 0.1 * a) { return true }
    let louder = new.loudness - old.loudness
    return louder.isNaN ? false : abs(louder) > 3 || (old.loudness.isFinite != new.loudness.isFinite)
  }

  private func send(_ event: CaptionEvent) {
    if !observers.isEmpty { observers.send(event) }
  }

  private func endAll() {
    for group in groups {
      if var last = group.shown {
        last.phase = .ended
        send(last)
      }
    }
    groups.removeAll()
    tracked.removeAll()
    heard.removeAll()
  }
}

extension AudioEngine {
  /// The engine's captions: what is heard, in words, with where it comes from (see
  /// ``CaptionCenter``). Made on first use; an attached scene updates it every frame.
  ///
  /// ```swift
  /// engine.captions.observe { event in
  ///   if event.phase == .began { print(event.label, event.direction?.arrow ?? "") }
  /// }
  /// ```
  @MainActor public var captions: CaptionCenter {
    captionState.center.withLock { center in
      if let center { return center }
      let made = CaptionCenter(engine: self)
      center = made
      return made
    }
  }

  /// The captions, if anything has made them (a look, or a captioned play).
  @MainActor package var captionsIfMade: CaptionCenter? { captionState.center.withLock { $0 } }

  private var captionState: EngineCaptions { feature { EngineCaptions() } }

  /// A reference to the engine that does not keep it open: the caption center lives in the engine.
  struct Unowned: @unchecked Sendable {
    unowned let value: AudioEngine
    init(_ value: AudioEngine) { self.value = value }
  }
}

/// What the captions keep per engine: the game thread's center, once made.
private final class EngineCaptions: Sendable {
  let center = Locked<CaptionCenter?>(nil)
}
