internal import CFoleySDL2
import FoleySession
import Foundation
import Synchronization

/// One streamed voice of music: the ring its effect plays from, the reader and converter that
/// fill it, and the segments that tell which track (and where in it) each frame of the ring came
/// from, so "now playing" and the events change at the sample that is heard.
///
/// Invariant behind `@unchecked Sendable`: the `var`s belong to the stream filler's queue; the
/// segments and failures are behind a lock (the game thread takes them); the ring and the effect
/// are built for their two threads; `voice` is thread-safe.
final class MusicStream: @unchecked Sendable {
  /// Where a stretch of the ring's frames comes from.
  struct Segment: Sendable {
    enum Kind: Sendable, Equatable {
      case start
      case loop(pass: Int)
      case seek
    }

    /// The first frame (of everything written to the ring) of this stretch.
    let startFrame: Int
    /// Where in its track that frame is, in seconds.
    let trackTime: Double
    let nowPlaying: NowPlaying
    let kind: Kind
    /// The track's place in the player's queue, if it came from there.
    let queuePosition: Int?
  }

  /// A track waiting to be opened (its check in a child process may still be running).
  struct Opening {
    var track: Track
    var queuePosition: Int?
    var startTime: Double
    var fadeIn: Double
    /// Tracks of the queue that failed one after another; a queue of only bad tracks stops.
    var failuresInARow = 0
  }

  let ring: StreamRing
  let effect: StreamEffect
  let format: AudioDeviceFormat
  let voice: Voice
  let category: SoundCategory
  /// Where the next track comes from when this one ends; nil for a single track.
  let queue: MusicQueue?
  /// Set by the player when it stops the stream at once: the filler drops it.
  let isCancelled = Atomic<Bool>(false)
  /// Set by the player when the stream fades out under another (a crossfade, a stop with a
  /// fade): the filler keeps it fed but goes on to no next track.
  let isLetGo = Atomic<Bool>(false)
  /// The stream the filler started to crossfade into as this one ends (the player follows it).
  let successor = Locked<MusicStream?>(nil)
  /// Streams to fade out (effect, frames) the moment this one starts, so a crossfade's halves
  /// begin in the same mix buffer however long this one took to open; applied even if it never
  /// starts.
  private let fadeOutsOnStart = Locked<[(StreamEffect, Int)]>([])
  /// Called on the filler's queue when there is something for the game thread.
  let notify: @Sendable () -> Void
  private let shared = Locked(Shared())

  private struct Shared {
    var segments: [Segment] = []
    var delivered = 0
    var failures: [(Track, SoundError)] = []
  }

  // The filler's own.
  var opening: Opening?
  var reader: TrackReader?
  /// The queue position of the track being decoded.
  var queuePosition: Int?
  /// The filler already started the next track on a successor (a crossfade): this one just ends.
  var isHandedOver = false
  /// Where the search for the next track stopped to wait for a check: the position searched
  /// after and the tracks that failed on the way (already reported).
  var nextTrackSearch: (position: Int?, failures: Int)?
  /// The next track could not be opened early for a crossfade: it follows gaplessly instead.
  var skipsCrossfade = false
  /// Whether the stream goes on to the queue's next track when its own ends.
  var followsQueue: Bool { !isHandedOver && !isLetGo.load(ordering: .acquiring) }
  /// The game paused the music: a successor starts paused too.
  var startsPaused = false
  /// The reader has nothing more and the converter was flushed.
  var isDrainedOfSource = false
  /// Whether the voice was asked to start.
  var isStarted = false
  /// SDL's converter from the reader's float frames to the mix's format.
  private(set) var converter: OpaquePointer?
  private var converterRate = 0
  private var converterChannels = 0
  /// Frames the converter had been given, and the ring frame its output began at.
  private var framesIntoConverter = 0
  private var converterStartFrame = 0
  /// Frames taken out of the converter since it began.
  private var framesOutOfConverter = 0
  /// After a resampling flush: the frames still to take (the rest is the silence fed after).
  private var tailFramesLeft: Int?
  /// The ring total at the last seek (what came before it will be skipped, so it is not
  /// counted as buffered).
  private var seekMarkFrame = 0

  init(
    format: AudioDeviceFormat, bufferedSeconds: Double, declickFrames: Int, wake: WakeSignal, voice: Voice,
    category: SoundCategory, queue: MusicQueue?, notify: @escaping @Sendable () -> Void
  ) {
    self.format = format
    self.voice = voice
    self.category = category
    self.queue = queue
    self.notify = notify
    // Twice what is kept buffered: after a seek there is room for the new audio at once, while
    // the old is still being skipped.
    let buffered = Int(bufferedSeconds * Double(format.sampleRate))
    ring = StreamRing(capacity: 2 * buffered * format.bytesPerFrame)
    effect = StreamEffect(
      ring: ring, format: format, declickFrames: declickFrames, rewindLimit: buffered, wake: wake)
  }

  deinit {
    if let converter { SDL_FreeAudioStream(converter) }
  }

  /// Frames written to the ring.
  var framesWritten: Int { ring.totalWritten / format.bytesPerFrame }
  /// Frames the effect has taken from the ring (heard, or skipped by a seek).
  var framesRead: Int { ring.totalRead / format.bytesPerFrame }
  /// Frames written and not yet heard (after the last seek's mark).
  var framesBuffered: Int { framesWritten - max(framesRead, seekMarkFrame) }

  /// The ring frame at which source frame `count` (counted since the converter began) comes out.
  func outputFrame(afterSourceFrames count: Int) -> Int {
    guard converterRate > 0 else { return framesWritten }
    return converterStartFrame
      + Int((Double(count) * Double(format.sampleRate) / Double(converterRate)).rounded())
  }

  var sourceFramesConverted: Int { framesIntoConverter }

  /// Makes the converter fit `reader` (a new one when the rate or channels differ; the old one's
  /// tail must have been flushed into the ring first).
  func prepareConverter(for reader: TrackReader) throws(SoundError) {
    if converter != nil, converterRate == reader.sampleRate, converterChannels == reader.channels { return }
    if let converter { SDL_FreeAudioStream(converter) }
    let target = format.sampleFormat == .float32 ? CFoleySDL2_AUDIO_F32SYS() : CFoleySDL2_AUDIO_S16SYS()
    guard
      let made = SDL_NewAudioStream(
        CFoleySDL2_AUDIO_F32SYS(), UInt8(reader.channels), Int32(reader.sampleRate), target,
        UInt8(format.channels), Int32(format.sampleRate))
    else {
      converter = nil
      throw SoundError(
        .undecodable, asset: reader.track.name, message: SDLError.fromSDL("SDL_NewAudioStream").message)
    }
    converter = made
    converterRate = reader.sampleRate
    converterChannels = reader.channels
    framesIntoConverter = 0
    framesOutOfConverter = 0
    tailFramesLeft = nil
    converterStartFrame = framesWritten
  }

  /// Whether the converter takes `reader`'s frames as they are (same rate and channels).
  func converterFits(_ reader: TrackReader) -> Bool {
    converter != nil && converterRate == reader.sampleRate && converterChannels == reader.channels
  }

  /// Hands decoded frames to the converter.
  func convert(_ samples: UnsafePointer<Float>, frames: Int) {
    guard let converter, frames > 0 else { return }
    _ = SDL_AudioStreamPut(converter, samples, Int32(frames * converterChannels * 4))
    framesIntoConverter += frames
  }

  /// Pushes the converter's last frames out (the stream ended, or the format changes).
  ///
  /// SDL 2's stream keeps its resampler's last ~530 input frames back even when flushed
  /// (measured: 3,072 output frames short at 8 kHz, 581 at 44.1 kHz): each track would lose its
  /// last 12 ms. So when it resamples it is fed silence first, and exactly the frames the
  /// track's length makes are taken out.
  func flushConverter() {
    guard let converter else { return }
    if converterRate != format.sampleRate, tailFramesLeft == nil {
      let silence = [Float](repeating: 0, count: Self.tailFrames * converterChannels)
      _ = SDL_AudioStreamPut(converter, silence, Int32(silence.count * 4))
      let expected = Int(
        (Double(framesIntoConverter) * Double(format.sampleRate) / Double(converterRate)).rounded())
      tailFramesLeft = max(0, expected - framesOutOfConverter)
    }
    _ = SDL_AudioStreamFlush(converter)
  }

  /// Silence fed to the resampler before a flush: more than it holds back at any rate.
  static let tailFrames = 4_096

  /// Forgets what the converter holds and marks everything in the ring as old (a seek).
  func startOver() {
    if let converter { SDL_AudioStreamClear(converter) }
    framesOutOfConverter = 0
    tailFramesLeft = nil
    ring.markSeek()
    seekMarkFrame = framesWritten
    framesIntoConverter = 0
    converterStartFrame = framesWritten
    isDrainedOfSource = false
  }

  /// Bytes the converter has ready.
  var converted: Int {
    guard let converter else { return 0 }
    let available = Int(SDL_AudioStreamAvailable(converter))
    return tailFramesLeft.map { min(available, $0 * format.bytesPerFrame) } ?? available
  }

  /// Takes up to `count` converted bytes into `buffer`.
  func takeConverted(into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
    guard let converter else { return 0 }
    let limit = tailFramesLeft.map { min(count, $0 * format.bytesPerFrame) } ?? count
    let got = max(0, Int(SDL_AudioStreamGet(converter, buffer, Int32(limit))))
    framesOutOfConverter += got / format.bytesPerFrame
    if let left = tailFramesLeft {
      tailFramesLeft = left - got / format.bytesPerFrame
      // The rest is the silence fed to push the tail out.
      if tailFramesLeft == 0 { SDL_AudioStreamClear(converter) }
    }
    return got
  }

  /// Fades `effect` out over `frames` when this stream starts.
  func fadeOutOnStart(_ effect: StreamEffect, frames: Int) {
    fadeOutsOnStart.withLock { $0.append((effect, frames)) }
  }

  /// Hands over the fades still waiting for this stream's start (it was dropped before starting).
  func takeFadeOutsOnStart() -> [(StreamEffect, Int)] {
    fadeOutsOnStart.withLock { fades in
      defer { fades.removeAll() }
      return fades
    }
  }

  /// Starts the fades waiting for this stream's start.
  func startFadeOuts() {
    for (effect, frames) in takeFadeOutsOnStart() { effect.requestFade(.fadeOut, frames: frames) }
  }

  // MARK: - What the game thread reads

  func addSegment(_ segment: Segment) {
    let frame = framesRead
    shared.withLock { state in
      state.segments.append(segment)
      // A game that never collects its events (no scene, no main queue, no `deliverEvents`)
      // must not grow this without end: past 512, heard segments before the current one go,
      // events and all.
      guard state.segments.count > 512 else { return }
      let current = state.segments.lastIndex { $0.startFrame <= frame } ?? 0
      guard current > 0 else { return }
      state.segments.removeFirst(current)
      state.delivered = max(0, state.delivered - current)
    }
  }

  /// Segments kept (bounded: see ``addSegment(_:)``).
  var keptSegments: Int { shared.withLock { $0.segments.count } }

  func addFailure(_ track: Track, _ error: SoundError) {
    shared.withLock { $0.failures.append((track, error)) }
  }

  /// The segment being heard and the time in its track.
  var position: (segment: Segment, time: Double)? {
    let frame = framesRead
    let rate = Double(format.sampleRate)
    return shared.withLock { state in
      guard let segment = state.segments.last(where: { $0.startFrame <= frame }) ?? state.segments.first
      else {
        return nil
      }
      return (segment, segment.trackTime + Double(max(0, frame - segment.startFrame)) / rate)
    }
  }

  /// Whether segments have begun being heard, or tracks failed, since the game thread last looked.
  var hasNews: Bool {
    let frame = framesRead
    return shared.withLock { state in
      !state.failures.isEmpty
        || (state.delivered < state.segments.count && state.segments[state.delivered].startFrame <= frame)
    }
  }

  /// The failures, and the segments that have begun being heard, since the last call.
  func takeNews() -> (failures: [(Track, SoundError)], segments: [Segment]) {
    let frame = framesRead
    return shared.withLock { state in
      var heard: [Segment] = []
      while state.delivered < state.segments.count, state.segments[state.delivered].startFrame <= frame {
        heard.append(state.segments[state.delivered])
        state.delivered += 1
      }
      // Segments delivered before the one being heard are done with.
      if let current = state.segments.lastIndex(where: { $0.startFrame <= frame }), current > 0,
        state.delivered >= current
      {
        state.segments.removeFirst(current)
        state.delivered -= current
      }
      defer { state.failures.removeAll() }
      return (state.failures, heard)
    }
  }
}
