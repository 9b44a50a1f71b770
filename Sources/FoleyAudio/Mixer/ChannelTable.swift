/// The mixer channels and what plays on each.
///
/// Free channels wait on a stack; counted voices (playing or paused, not releasing) are linked in
/// start order, overall and, for sounds with `maximumInstances`, per sound. So finding a free
/// channel, the oldest voice, and a limited sound's oldest voice take the same time at 16
/// channels as at 4,096, and a sound without a limit costs no dictionary work at all.
///
/// A class, owned by the core and touched only on its queue: as a struct stored in the core, every
/// read through a non-mutating method, property or subscript worked on a copy of the whole table,
/// a retain and a release of each of its eight arrays and tables, several times per trigger and
/// per moving voice. Queue-confined, one access at a time: the runtime's exclusivity checks are
/// left off.
///
/// The slots lie in memory the table owns, read and changed where they lie: an array's element
/// read copies the whole `Slot?` (a retain and a release of each of its references, through the
/// standard library's unspecialized `Optional` value witnesses, several copies a stolen
/// trigger), where a read through the table's addressor loads one field.
package final class ChannelTable {
  /// `slotCount` initialized slots, nil where a channel is free.
  @exclusivity(unchecked) private var slots = UnsafeMutablePointer<Slot?>.allocate(capacity: 1)
  @exclusivity(unchecked) private var slotCount = 0
  @exclusivity(unchecked) private(set) var gains: [ChannelGain] = []
  @exclusivity(unchecked) private var free: [Int] = []
  /// Start-order links between counted voices' channels (-1 ends a list).
  @exclusivity(unchecked) private var previous: [Int] = []
  @exclusivity(unchecked) private var next: [Int] = []
  @exclusivity(unchecked) private var oldest = -1
  @exclusivity(unchecked) private var newest = -1
  @exclusivity(unchecked) private var previousOfSound: [Int] = []
  @exclusivity(unchecked) private var nextOfSound: [Int] = []
  @exclusivity(unchecked) private var soundLists: [ObjectIdentifier: (oldest: Int, newest: Int, count: Int)] =
    [:]
  /// Voices playing or paused, not releasing (streams are not counted).
  @exclusivity(unchecked) private(set) var countedVoices = 0
  /// Channels that carry streams (music), releasing or not.
  @exclusivity(unchecked) private(set) var streamChannels = 0

  package init() {}

  deinit {
    slots.deinitialize(count: slotCount)
    slots.deallocate()
  }

  package var channelCount: Int { slotCount }

  /// The slot on `channel`, read where it lies: `table[channel]?.isReleasing` loads one field,
  /// and only a binding (`if let slot = table[channel]`) copies the slot.
  package subscript(channel: Int) -> Slot? {
    unsafeAddress { UnsafePointer(at(channel)) }
  }

  /// Where `channel`'s slot lies (trapping outside the table, as an array would).
  @inline(__always)
  private func at(_ channel: Int) -> UnsafeMutablePointer<Slot?> {
    precondition(UInt(bitPattern: channel) < UInt(bitPattern: slotCount), "no such channel")
    return slots + channel
  }

  /// Whether nothing is on `channel`.
  func isFree(_ channel: Int) -> Bool { self[channel] == nil }

  /// Adds channels up to `count`, each with its gain stage.
  func grow(to count: Int, makeGain: () -> ChannelGain) {
    guard count > slotCount else { return }
    let added = slotCount..<count
    let grown = UnsafeMutablePointer<Slot?>.allocate(capacity: count)
    grown.moveInitialize(from: slots, count: slotCount)
    (grown + slotCount).initialize(repeating: nil, count: added.count)
    slots.deallocate()
    slots = grown
    slotCount = count
    gains += added.map { _ in makeGain() }
    previous += Array(repeating: -1, count: added.count)
    next += Array(repeating: -1, count: added.count)
    previousOfSound += Array(repeating: -1, count: added.count)
    nextOfSound += Array(repeating: -1, count: added.count)
    // Lowest channels first, like SDL_mixer's own allocation.
    free += added.reversed()
  }

  func takeFreeChannel() -> Int? { free.popLast() }

  /// Returns a channel taken with ``takeFreeChannel()`` that nothing was placed on.
  package func giveBack(_ channel: Int) {
    guard isFree(channel), !free.contains(channel) else { return }
    free.append(channel)
  }

  /// Puts a counted voice on `channel` (taken from ``takeFreeChannel()``).
  package func place(_ slot: consuming Slot, on channel: Int) {
    slot.voice.channel = channel
    if slot.isCounted {
      link(channel, soundKey: slot.soundKey, perSound: slot.isLimited)
    } else {
      streamChannels += 1
    }
    at(channel).pointee = consume slot
  }

  /// Changes the slot on `channel` where it lies (no copy of its references); nil when the
  /// channel is free.
  @discardableResult
  package func update<Result>(_ channel: Int, _ change: (inout Slot) -> Result) -> Result? {
    guard at(channel).pointee != nil else { return nil }
    return change(&at(channel).pointee!)
  }

  /// The voice on `channel`, if any (one retain, not a copy of the slot).
  package func voice(on channel: Int) -> Voice? { self[channel]?.voice }

  /// The voice on `channel` stops counting (it is releasing); its channel stays taken.
  func stopCounting(_ channel: Int) {
    // Where the slot lies: a copy is a retain and a release of each of its references, and every
    // stolen voice comes here.
    let slot = at(channel)
    guard slot.pointee?.isReleasing == false else { return }
    slot.pointee!.isReleasing = true
    guard slot.pointee!.isCounted else { return }
    unlink(channel, soundKey: slot.pointee!.soundKey, perSound: slot.pointee!.isLimited)
  }

  /// Empties `channel` and frees it; returns what was on it (moved out, not copied).
  @discardableResult
  func vacate(_ channel: Int) -> Slot? {
    guard var slot = at(channel).pointee.take() else { return nil }
    // A voice the mix followed leaves with the placement the game gave it last (a virtual voice
    // keeps it, a recycled one starts afresh).
    if slot.voice.follows.load(ordering: .relaxed) {
      slot.voice.follows.store(false, ordering: .sequentiallyConsistent)
      if slot.placement != nil { slot.placement = slot.voice.followedPlacement }
    }
    if !slot.isCounted {
      streamChannels -= 1
    } else if !slot.isReleasing {
      unlink(channel, soundKey: slot.soundKey, perSound: slot.isLimited)
    }
    free.append(channel)
    return slot
  }

  /// The channel of `voice`, if the voice is still on one (a stale handle finds nothing).
  package func channel(of voice: Voice) -> Int? {
    let channel = voice.channel
    // Read where it lies (the table's addressor): every moving voice comes here every update.
    guard channel >= 0, channel < slotCount, self[channel]?.voice === voice else {
      return nil
    }
    return channel
  }

  var oldestVoiceChannel: Int? { oldest >= 0 ? oldest : nil }

  func oldestVoiceChannel(of sound: ObjectIdentifier) -> Int? { soundLists[sound].map(\.oldest) }

  func instances(of sound: ObjectIdentifier) -> Int { soundLists[sound]?.count ?? 0 }

  /// The counted voice with the lowest priority below `priority` (oldest first among equals).
  /// A scan: only sounds with the `stealLowestPriority` policy ask, and only at the cap.
  func lowestPriorityChannel(below priority: Int) -> Int? {
    var best: (channel: Int, priority: Int)?
    var channel = oldest
    while channel >= 0 {
      if let slotPriority = at(channel).pointee?.priority, slotPriority < priority,
        best == nil || slotPriority < best!.priority
      {
        best = (channel, slotPriority)
      }
      channel = next[channel]
    }
    return best?.channel
  }

  /// The channels that carry streams.
  var streamChannelList: [Int] {
    streamChannels == 0 ? [] : (0..<slotCount).filter { at($0).pointee?.stream != nil }
  }

  /// Every occupied channel, for passes over all voices (session changes, buses, the census).
  var occupiedChannels: [Int] { (0..<slotCount).filter { at($0).pointee != nil } }

  /// Empties the table: no channels (the core's start, or a device lost).
  package func removeAll() {
    slots.deinitialize(count: slotCount)
    slotCount = 0
    gains = []
    free = []
    previous = []
    next = []
    oldest = -1
    newest = -1
    previousOfSound = []
    nextOfSound = []
    soundLists = [:]
    countedVoices = 0
    streamChannels = 0
  }

  private func link(_ channel: Int, soundKey: ObjectIdentifier, perSound: Bool) {
    previous[channel] = newest
    next[channel] = -1
    if newest >= 0 { next[newest] = channel } else { oldest = channel }
    newest = channel
    countedVoices += 1
    guard perSound else { return }
    var list = soundLists[soundKey] ?? (oldest: -1, newest: -1, count: 0)
    previousOfSound[channel] = list.newest
    nextOfSound[channel] = -1
    if list.newest >= 0 { nextOfSound[list.newest] = channel } else { list.oldest = channel }
    list.newest = channel
    list.count += 1
    soundLists[soundKey] = list
  }

  private func unlink(_ channel: Int, soundKey: ObjectIdentifier, perSound: Bool) {
    let (before, after) = (previous[channel], next[channel])
    if before >= 0 { next[before] = after } else { oldest = after }
    if after >= 0 { previous[after] = before } else { newest = before }
    countedVoices -= 1
    if perSound, var list = soundLists[soundKey] {
      let (soundBefore, soundAfter) = (previousOfSound[channel], nextOfSound[channel])
      if soundBefore >= 0 { nextOfSound[soundBefore] = soundAfter } else { list.oldest = soundAfter }
      if soundAfter >= 0 { previousOfSound[soundAfter] = soundBefore } else { list.newest = soundBefore }
      list.count -= 1
      soundLists[soundKey] = list.count > 0 ? list : nil
    }
  }
}
