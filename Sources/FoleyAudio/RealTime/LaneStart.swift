/// What a lane plays: the sound's samples (or a stream's silent carrier), its passes, its gain
/// stage and its bus.
///
/// A start lives only for the call that arms it, and the lane keeps its references unretained:
/// the core's slot for the channel holds the voice and the stream, its table the gain stage. So
/// the start holds them `unowned(unsafe)`: strong references cost a retain and a release of each
/// of the three on every trigger, for a value that outlives none of them.
package struct LaneStart {
  package var chunk: MixChunk
  package var loops: Int
  package unowned(unsafe) var gain: ChannelGain
  package unowned(unsafe) var stream: StreamEffect?
  package unowned(unsafe) var voice: Voice
  package var bus: Int
  package var paused: Bool
  /// The mix frame (``VoiceMixer/framesMixed``) it starts on; 0: at once.
  package var startFrame: UInt64
  /// The frame of the chunk its first pass starts from (a virtual voice coming back mid-sound);
  /// later passes start from the beginning.
  package var position: Int
  /// Whether a start frame the mix has already passed joins the sound part-way through, at the
  /// sample it would have reached (a rollback's late start), rather than refusing the start.
  package var joinsLate: Bool

  package init(
    chunk: MixChunk, loops: Int, gain: ChannelGain, stream: StreamEffect?, voice: Voice, bus: Int,
    paused: Bool, startFrame: UInt64 = 0, position: Int = 0, joinsLate: Bool = false
  ) {
    self.chunk = chunk
    self.loops = loops
    self.gain = gain
    self.stream = stream
    self.voice = voice
    self.bus = bus
    self.paused = paused
    self.startFrame = startFrame
    self.position = position
    self.joinsLate = joinsLate
  }

  /// This start moved to `clock` when its frame has passed and it joins late: its first pass
  /// starts as far in as the frames since its frame carry it (at the rate it starts at), whole
  /// passes counted off its loops; past its last pass it starts at its end, and finishes at once.
  func joined(at clock: UInt64, framesPerChunk: Int) -> LaneStart {
    guard joinsLate, startFrame != 0, startFrame < clock, framesPerChunk > 0 else { return self }
    var moved = self
    let rate = Double(RampRequest(packed: voice.rateRequest.value).target)
    let elapsed = Double(clock - startFrame) * (rate.isFinite && rate > 0 ? rate : 1)
    var reached = position + Int(min(elapsed.rounded(), Double(Int.max / 2)))
    if reached >= framesPerChunk {
      let passes = reached / framesPerChunk
      if loops < 0 {
        reached %= framesPerChunk
      } else if passes > loops {
        reached = framesPerChunk
        moved.loops = 0
      } else {
        moved.loops = loops - passes
        reached %= framesPerChunk
      }
    }
    moved.position = reached
    moved.startFrame = clock
    return moved
  }
}
