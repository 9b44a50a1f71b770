/// What the mixer keeps per channel (a lane) and per bus.
extension VoiceMixer {
  struct Lane {
    var isArmed = false
    var isPaused = false
    var samples: UnsafeRawPointer?
    var byteCount = 0
    var position = 0
    var loops = 0
    var gain: Unmanaged<ChannelGain>?
    var stream: Unmanaged<StreamEffect>?
    var voice: Unmanaged<Voice>?
    var shaper: Unmanaged<VoiceShaper>?
    var bus = 0
    var send = RampFollower(value: 0, request: RampRequest(target: 0, frames: 0).packed)
    /// The mix frame it waits for before it sounds (0: none); it may fall mid-block.
    var startFrame: UInt64 = 0
    /// A seek under way: 1 fades this block out and jumps to `seekTarget`, 2 fades the next in.
    var seekPhase: UInt8 = 0
    var seekTarget = 0
  }

  struct Bus {
    var buffer: UnsafeMutablePointer<Float>
    /// Something was summed into it in this block.
    var touched = false
    /// Its effects still ring (a reverb's tail) with no input.
    var ringing = false
    /// Voices were summed into it in this block (a sidechain's key is silence otherwise).
    var fed = false
    /// Its send to the reverb's return as the queue last set it (a ``RampRequest``), and where
    /// the send is.
    var sendRequest = RampRequest(target: 0, frames: 0).packed
    var send = RampFollower(value: 0, request: RampRequest(target: 0, frames: 0).packed)
    /// The bus it sums into (0: the master).
    var parent = 0
    var effects: UnsafeMutableBufferPointer<Unmanaged<AudioEffect>> = .init(start: nil, count: 0)
    /// The snapshots that change it, in ``VoiceMixer/snapshotStages`` (see `VoiceMixer+Snapshots.swift`).
    var snapshotCount = 0
  }
}
