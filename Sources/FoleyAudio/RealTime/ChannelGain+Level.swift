import FoleyCore
import Synchronization

/// One change of a channel's level: to `target` over `frames` frames along the easing `shape`
/// (``Easing/bits``), from frame `start` of the mix's clock (`UInt64.max`: the next block).
struct LevelCommand {
  var target: Float
  var frames: Int
  var shape: UInt16
  var start: UInt64
}

/// The voice's volume as a level over the channel's gain: set at once (over the de-click time)
/// or tweened along an easing curve, sample by sample, from a frame of the engine's clock.
///
/// The queue writes commands into a fixed ring (``setLevel(_:frames:easing:start:)``); the mixing
/// thread takes them at the start of a block (``beginBlock(clock:frames:)``) without waiting or
/// allocating. A command replaces whatever was to happen from its start on: one starting now
/// takes over from the level the mix has reached, one for a later frame waits among the
/// upcoming ones (in the order of their frames) and takes over when the mix gets there, mid-block
/// if need be. The gain the queue targets and reads back (``current``) stays the one before the
/// level, so pans, buses, placements and fades compose with a tween instead of fighting it.
extension ChannelGain {
  static let levelRingCapacity = 32
  static let upcomingCapacity = 8

  /// Asks for the level to move to `value` over `frames` frames along `easing`, from `start` (a
  /// frame of the mix's clock; `UInt64.max` for the next block). Audio queue only. False when
  /// the ring is full (32 changes the mix has not taken yet): the change is dropped.
  @discardableResult
  func setLevel(_ value: Float, frames: Int, easing: Easing, start: UInt64) -> Bool {
    let written = levelWritten.load(ordering: .relaxed)
    guard written - levelRead.load(ordering: .acquiring) < Self.levelRingCapacity else { return false }
    levelCommands[written % Self.levelRingCapacity] = LevelCommand(
      target: value, frames: max(1, frames), shape: easing.bits, start: start)
    levelWritten.store(written + 1, ordering: .releasing)
    return true
  }

  /// The frames of a change made "at once": the de-click ramp's length.
  var declickFrames: Int { defaultStep > 0 ? Int((1 / defaultStep).rounded(.up)) : 1 }

  /// Takes the queue's new commands and works out this block's level: held, or moving (a tween
  /// under way, or one starting inside the block). Mixing thread, once per block, before the gain
  /// is used.
  @inline(__always)
  func beginBlock(clock: UInt64, frames: Int) {
    beginPan(clock: clock)
    let written = levelWritten.load(ordering: .acquiring)
    var read = levelRead.load(ordering: .relaxed)
    if read != written {
      while read != written {
        take(levelCommands[read % Self.levelRingCapacity], at: clock)
        read += 1
      }
      levelRead.store(read, ordering: .releasing)
    }
    blockClock = clock
    let end = clock &+ UInt64(frames)
    if upcomingCount > 0, upcoming[0].start < end {
      levelMoving = true
      if modulatorCount > 0 { startModulators(at: clock) }
      return
    }
    if levelFrom != levelTo, levelStart &+ UInt64(levelFrames) <= clock {
      levelFrom = levelTo  // the tween has ended
    }
    levelMoving = levelFrom != levelTo && levelStart < end
    heldLevel = levelMoving ? levelFrom : level(at: clock)
    if modulatorCount > 0 {
      startModulators(at: clock)
      levelMoving = true  // modulated: evaluated through the block
    }
  }

  @inline(__always)
  private func take(_ command: LevelCommand, at clock: UInt64) {
    let start = command.start == .max ? clock : max(command.start, clock)
    // It replaces whatever was to happen from its start on.
    while upcomingCount > 0, upcoming[upcomingCount - 1].start >= start { upcomingCount -= 1 }
    var resolved = command
    resolved.start = start
    if start == clock {
      begin(resolved, at: clock)
    } else if upcomingCount < Self.upcomingCapacity {
      upcoming[upcomingCount] = resolved
      upcomingCount += 1
    } else {
      upcoming[upcomingCount - 1] = resolved  // eight waiting: the latest replaces the last
    }
  }

  /// Starts `command` on `frame`, from the level the mix has there.
  @inline(__always)
  private func begin(_ command: LevelCommand, at frame: UInt64) {
    levelFrom = level(at: frame)
    levelTo = command.target
    levelStart = frame
    levelFrames = command.frames
    levelCurve = Easing.decoded(command.shape)
  }

  /// The level on frame `frame` of the mix's clock, by the tween under way.
  @inline(__always)
  func level(at frame: UInt64) -> Float {
    guard levelFrom != levelTo else { return levelTo }
    if frame <= levelStart { return levelFrom }
    let elapsed = frame &- levelStart
    if elapsed >= UInt64(levelFrames) { return levelTo }
    let progress = levelCurve.apply(Double(elapsed) / Double(levelFrames))
    return levelFrom + (levelTo - levelFrom) * Float(progress)
  }

  /// The level on `frame` of a moving block, an upcoming tween taking over when its frame comes.
  @inline(__always)
  private func levelAdvancing(to frame: UInt64) -> Float {
    if upcomingCount > 0, frame >= upcoming[0].start {
      begin(upcoming[0], at: upcoming[0].start)
      upcomingCount -= 1
      for index in 0..<upcomingCount { upcoming[index] = upcoming[index + 1] }
    }
    return level(at: frame)
  }

  /// Scales the block by the level: per frame while it moves, by the held level otherwise.
  @inline(__always)
  func applyLevel(_ stream: UnsafeMutableRawPointer, frames: Int) {
    if levelMoving {
      if isFloat {
        scaleByLevel(stream.assumingMemoryBound(to: Float.self), frames: frames)
      } else {
        scaleByLevel(stream.assumingMemoryBound(to: Int16.self), frames: frames)
      }
    } else if heldLevel != 1 {
      let level = heldLevel
      if isFloat, channelCount == 2 {
        scaleStereo(stream.assumingMemoryBound(to: Float.self), frames: frames, left: level, right: level)
      } else if isFloat {
        let samples = stream.assumingMemoryBound(to: Float.self)
        for index in 0..<(frames * channelCount) { samples[index] *= level }
      } else {
        let samples = stream.assumingMemoryBound(to: Int16.self)
        for index in 0..<(frames * channelCount) {
          samples[index] = Int16(scaling: samples[index], by: level)
        }
      }
    }
  }

  /// The frames between two evaluations of the curve while it moves: in between the level is
  /// interpolated linearly (a few parts in a million off the curve, for any curve of power 8 or
  /// less over a tween of 0.1 s or more), and a chunk ends where a tween starts or ends.
  static let curveInterval = 32

  /// Walks a moving block in stretches of at most ``curveInterval`` frames (a stretch ends where
  /// a tween starts or ends), handing `body` each stretch's first frame in the block, its length,
  /// and the level × modulation at its start and its slope per frame; then holds the level the
  /// block ends on. Mixing thread.
  @inline(__always)
  private func walkLevel(
    frames: Int, _ body: (_ frame: Int, _ length: Int, _ first: Float, _ slope: Float) -> Void
  ) {
    var frame = 0
    while frame < frames {
      let at = blockClock &+ UInt64(frame)
      let first = levelAdvancing(to: at) * modulation(at: at)
      var length = min(Self.curveInterval, frames - frame)
      if upcomingCount > 0, upcoming[0].start > at { length = min(length, Int(upcoming[0].start &- at)) }
      let end = levelStart &+ UInt64(levelFrames)
      if levelFrom != levelTo, end > at { length = min(length, Int(end &- at)) }
      let last = level(at: at &+ UInt64(length)) * modulation(at: at &+ UInt64(length))
      body(frame, length, first, (last - first) / Float(length))
      frame += length
    }
    heldLevel = level(at: blockClock &+ UInt64(frames))
  }

  @inline(__always)
  private func scaleByLevel<Sample: GainSample>(_ samples: UnsafeMutablePointer<Sample>, frames: Int) {
    let width = channelCount
    walkLevel(frames: frames) { frame, length, first, slope in
      if Sample.self == Float.self, width == 2 {
        // Stereo float, four frames at a time: the ramp's levels in pairs, moved on by four steps.
        let raw = UnsafeMutableRawPointer(samples) + frame &* 8
        var levels = SIMD8<Float>(0, 0, 1, 1, 2, 2, 3, 3) * slope + first
        let advance = SIMD8<Float>(repeating: 4 * slope)
        var offset = 0
        while offset &+ 4 <= length {
          let scaled = raw.loadUnaligned(fromByteOffset: offset &* 8, as: SIMD8<Float>.self) * levels
          raw.storeBytes(of: scaled, toByteOffset: offset &* 8, as: SIMD8<Float>.self)
          levels += advance
          offset &+= 4
        }
        let floats = raw.assumingMemoryBound(to: Float.self)
        while offset < length {
          let level = first + slope * Float(offset)
          floats[offset &* 2] *= level
          floats[offset &* 2 &+ 1] *= level
          offset &+= 1
        }
      } else {
        for offset in 0..<length {
          let level = first + slope * Float(offset)
          let base = (frame + offset) * width
          for index in base..<(base + width) { samples[index] = Sample(scaling: samples[index], by: level) }
        }
      }
    }
  }

  /// Writes the block's gains, frame by frame, into `pairs` (left and right for each of `frames`
  /// frames): the held pair `left`, `right` times the moving level, as ``applyLevel(_:frames:)``
  /// would scale the block after the pair. The one-pass mix sums a lane with them. Mixing thread,
  /// on a block whose level moves.
  func levelledGains(into pairs: UnsafeMutablePointer<Float>, frames: Int, left: Float, right: Float) {
    let pattern = SIMD8<Float>(left, right, left, right, left, right, left, right)
    walkLevel(frames: frames) { frame, length, first, slope in
      let raw = UnsafeMutableRawPointer(pairs) + frame &* 8
      var levels = SIMD8<Float>(0, 0, 1, 1, 2, 2, 3, 3) * slope + first
      let advance = SIMD8<Float>(repeating: 4 * slope)
      var offset = 0
      while offset &+ 4 <= length {
        raw.storeBytes(of: levels * pattern, toByteOffset: offset &* 8, as: SIMD8<Float>.self)
        levels += advance
        offset &+= 4
      }
      let floats = raw.assumingMemoryBound(to: Float.self)
      while offset < length {
        let level = first + slope * Float(offset)
        floats[offset &* 2] = left * level
        floats[offset &* 2 &+ 1] = right * level
        offset &+= 1
      }
    }
  }

  /// After a block: once the voice's volume has faded out (its tween, modulated or not, has
  /// reached zero and nothing waits), tells the queue it may let the voice go virtual.
  @inline(__always)
  func noteLevelFadedOut(frames: Int) {
    guard upcomingCount == 0, levelTo == 0,
      levelFrom == 0 || levelStart &+ UInt64(levelFrames) <= blockClock &+ UInt64(frames)
    else { return }
    let taken = levelRead.load(ordering: .relaxed)
    if levelSilentAt.load(ordering: .relaxed) != taken {
      levelSilentAt.store(taken, ordering: .releasing)
      wake.signal()
    }
  }
}

extension Easing {
  /// The easing as a level command carries it: shape in the high byte, power in the low.
  var bits: UInt16 { UInt16(shape.rawValue) << 8 | UInt16(power) }

  /// The easing a level command carries (``bits``).
  static func decoded(_ bits: UInt16) -> Easing {
    Easing(Shape(rawValue: UInt8(bits >> 8)) ?? .linear, power: Int(bits & 0xff))
  }
}
