import Dispatch
import FoleySession
import Foundation
import Logging
import Synchronization

// Serving the game's play requests on the queue: each request's sound found (or decoded on the
// decode queue while the request waits), then admitted; then the placement moves sent with them.
extension MixerCore {
  /// How many plays a hop starts under one hold of the audio lock: some 32 × 3 µs at most keeps
  /// the mix waiting well under a millisecond.
  static var playsPerAudioLockHold: Int { 32 }

  func servePlayRequests() {
    state.batchClock = .some(nil)
    defer { state.batchClock = nil }
    var batch: [PlayRequest] = []
    var sources: [SoundSource] = []
    var moves: [PlacementMove] = []
    var releases: [Unmanaged<Voice>] = []
    var frames = 1
    requests.withLock {
      (batch, sources) = $0.take()
      (moves, releases, frames) = $0.takePlacements()
    }
    defer {
      // The voices the sender let go, now the queue is past their moves.
      for voice in releases { voice.release() }
      // Each request's retain of its voice, given back once it is served (or waits for a decode
      // with a retain of its own); then the lists, emptied here, go back without a copy.
      for request in batch { request.retainedVoice.release() }
      batch.removeAll(keepingCapacity: true)
      sources.removeAll(keepingCapacity: true)
      requests.withLock {
        $0.giveBack(&batch, sources: &sources)
        $0.giveBack(moves: &moves, releases: &releases)
      }
    }
    guard state.isOpen else {
      for request in batch { finish(request.voice, counting: .failed) }
      return
    }
    processFinishedChannels()
    // The audio lock held once for a run of plays, not once per play, cut and halt; let go
    // between runs, so that a burst of thousands never holds the mix back for long.
    // A run of plays of one source is resolved once: each look at the source touches its
    // reference count, which the game thread raises at every trigger of it.
    var resolvedSource = -1
    var resolution = Resolution.failed
    var first = 0
    while first < batch.count {
      let end = min(batch.count, first + Self.playsPerAudioLockHold)
      backend.holdingAudioLock {
        for index in first..<end where batch[index].voice.state == .pending {
          let request = batch[index]
          if request.sourceIndex != resolvedSource || resolution.isDecoding {
            resolution = source(of: request, playing: sources[request.sourceIndex])
            resolvedSource = request.sourceIndex
          }
          switch resolution {
          case .ready(let sound): admit(request.voice, loops: request.loops, playing: sound)
          case .failed: finish(request.voice, counting: .failed)
          case .decoding: break
          }
        }
      }
      first = end
    }
    // After the plays: a frame's moves were made after its plays were asked for, so a voice
    // that starts and moves in one update ends where it was moved to.
    applyPlacements(moves, overFrames: frames)
    rebalanceVoices()
    scheduleFallbackWake()
  }

  enum Resolution {
    case ready(Sound)
    case failed
    /// Waiting for a decode: each request of it is added to the wait.
    case decoding

    var isDecoding: Bool {
      if case .decoding = self { return true }
      return false
    }
  }

  /// The sound a request plays, if it is decoded; otherwise the request waits while the
  /// library decodes on its own queue (the audio queue never decodes).
  func source(of request: PlayRequest, playing source: SoundSource) -> Resolution {
    switch source {
    case .sound(let sound):
      guard sound.buffer.format.sampleRate == format.sampleRate,
        sound.buffer.format.channels == format.channels,
        sound.buffer.format.sampleFormat == format.sampleFormat
      else {
        logger.error("sound '\(sound.name)' was decoded for another format (\(sound.buffer.format))")
        return .failed
      }
      return .ready(sound)
    case .data(let reference):
      switch library.cachedResult(for: reference) {
      case .success(let sound): return .ready(sound)
      case .failure: return .failed
      case nil:
        waitForDecode(request, key: .data(ObjectIdentifier(reference)), holding: reference) { library in
          let result = Result { () throws(SoundError) in try library.sound(for: reference) }
          if case .failure(let error) = result { library.logFailure(error) }
          return result
        }
        return .decoding
      }
    case .named(let name):
      if let sound = library.cachedSound(named: name) { return .ready(sound) }
      waitForDecode(request, key: .named(name)) { library in
        Result { () throws(SoundError) in try library.sound(named: name) }
      }
      return .decoding
    }
  }

  /// A play waiting for its sound's decode: its voice (retained), loop count, and the bytes'
  /// reference its key names (held until the decode is handled: freed earlier, another play's
  /// new reference could take its address, and so its key, and be given this sound).
  struct WaitingPlay {
    let voice: Voice
    let loops: Int
    let holding: AnyObject?
  }

  enum DecodeKey: Hashable {
    case data(ObjectIdentifier)
    case named(String)
  }

  func waitForDecode(
    _ request: PlayRequest, key: DecodeKey, holding reference: AnyObject? = nil,
    decode: @escaping @Sendable (SoundLibrary) -> Result<Sound, SoundError>
  ) {
    let first = state.awaitingDecode[key] == nil
    state.awaitingDecode[key, default: []].append(
      WaitingPlay(voice: request.voice, loops: request.loops, holding: reference))
    guard first else { return }
    let library = self.library
    library.decodeQueue.async {
      let result = decode(library)
      self.queue.async { self.decoded(key, result) }
    }
  }

  func decoded(_ key: DecodeKey, _ result: Result<Sound, SoundError>) {
    let waiting = state.awaitingDecode.removeValue(forKey: key) ?? []
    guard state.isOpen else {
      for request in waiting { finish(request.voice, counting: .failed) }
      return
    }
    processFinishedChannels()
    for request in waiting where request.voice.state == .pending {
      switch result {
      case .success(let sound): admit(request.voice, loops: request.loops, playing: sound)
      case .failure: finish(request.voice, counting: .failed)
      }
    }
    rebalanceVoices()
    scheduleFallbackWake()
  }

  /// Whether plays are waiting for a decode (queue-confined).
  var isAwaitingDecodes: Bool { !state.awaitingDecode.isEmpty }
}
