internal import CFoleyCodecs
@_spi(FoleyStreams) package import FoleyAudio
import FoleyCore
package import Foundation

/// One track opened for streaming: its decoder, its loop region and passes, its position.
///
/// Reading stops at the loop region's end while passes remain and continues from its start (a
/// sample-exact seek in every decoder, so the seam has no gap and repeats no sample); after the
/// last pass it plays on to the end of the track (intro, loop, outro). Used only on the stream
/// filler's queue.
package final class TrackReader {
  package let track: Track
  package let nowPlaying: NowPlaying
  package let sampleRate: Int
  package let channels: Int
  /// The track's length in frames, when the file says.
  package let frames: Int?
  private let source: StreamDecoder
  /// The track's bytes, as the game read them once and the check passed them; the decoder reads
  /// them in place (kept alive by this reader, shared with the check's cache and other readers).
  private let bytes: TrackBytes
  private let loopStart: Int
  private let loopEnd: Int?
  /// The next frame the decoder will give.
  private(set) var position = 0
  /// Passes of the loop region still to play (-1: for ever).
  private var passesLeft: Int
  /// Passes of the loop region begun so far (for `MusicEvent.looped`).
  private(set) var passesPlayed = 0
  /// No passes of the loop region are left: what remains plays to the track's end.
  var isInLastPass: Bool { passesLeft == 0 }
  /// The streaming service the track decodes in, if any (kept alive with the stream).
  private let service: StreamingService?
  /// Set when the decoder failed mid-track (the track ends there).
  private(set) var failure: String?

  /// Opens `track` from `bytes`: what the game read of it once (its file, or its data), never the
  /// file again, so nothing can change under the check that passed those bytes.
  /// - Parameter service: the engine's streaming service (a helper process that maps the
  ///   bytes), so that no decoder bug met while streaming, seeking or looping can reach the game;
  ///   kept alive as long as the reader. In this process when nil, or when no service can be had.
  package init(
    _ track: Track, bytes: TrackBytes, in service: StreamingService? = nil
  ) throws(SoundError) {
    self.track = track
    self.bytes = bytes
    self.service = service
    var info = foley_info()
    var status: Int32 = 0
    var message = [CChar](repeating: 0, count: 256)
    var opened: StreamDecoder?
    if let service, bytes.fd >= 0 {
      if let remote = foley_remote_open(
        service.handle, bytes.fd, bytes.buffer.count, Self.readTimeoutMilliseconds,
        SoundDecoder.childMemoryLimit, &info, &status, &message, message.count)
      {
        opened = .remote(remote)
      } else if status != Int32(FOLEY_ERR_ISOLATION.rawValue) {
        throw SoundError(
          SoundDecoder.code(for: UInt32(bitPattern: status)), asset: track.name,
          message: String(nulTerminated: message))
      }
    }
    if opened == nil {
      opened = foley_source_open_memory(
        bytes.buffer.baseAddress, bytes.buffer.count, &info, &status, &message, message.count
      ).map(StreamDecoder.local)
    }
    guard let opened else {
      throw SoundError(
        SoundDecoder.code(for: UInt32(bitPattern: status)), asset: track.name,
        message: String(nulTerminated: message))
    }
    source = opened
    sampleRate = Int(info.sample_rate)
    channels = Int(info.channels)
    let length: Int? = info.frames >= 0 ? Int(info.frames) : nil
    frames = length
    let rate = Double(info.sample_rate)
    // The given region, else the file's loop tags, else (for a track that loops) all of it.
    var start = 0
    var end: Int?
    var hasRegion = false
    if let region = track.loopRegion, region.lowerBound.isFinite, region.upperBound.isFinite {
      start = max(0, Int((region.lowerBound * rate).rounded()))
      end = Int((region.upperBound * rate).rounded())
      hasRegion = true
    } else if info.loop_start >= 0 || info.loop_end >= 0 {
      start = max(0, Int(info.loop_start))
      end = info.loop_end >= 0 ? Int(info.loop_end) : length
      hasRegion = true
    } else {
      end = length
    }
    if let last = length { end = end.map { min($0, last) } }
    if let loopEnd = end, loopEnd - start < Self.minimumLoopFrames(atRate: Int(info.sample_rate)) {
      // An empty, inverted or degenerate region (shorter than 20 ms, or past the end): loop the
      // whole track instead. Every pass costs a seek in the decoder, and a one-sample loop tag
      // once made a 2 s play take 100 s.
      start = 0
      end = length
    }
    if track.loopCount != 0, let loopEnd = end,
      loopEnd - start < Self.minimumLoopFrames(atRate: Int(info.sample_rate))
    {
      opened.close()
      throw SoundError(
        .unsupportedFormat, asset: track.name,
        message: "a track shorter than 20 ms cannot loop (each pass is a seek)")
    }
    loopStart = start
    loopEnd = end
    passesLeft = max(-1, track.loopCount)
    let region: Range<Double>? =
      hasRegion || track.loopCount != 0 ? end.map { Double(start) / rate..<(Double($0) / rate) } : nil
    // A file that says its tempo (a BPM tag) keeps time in 4/4 from its first sample, unless the
    // game gave the track a tempo map of its own.
    var tempo = track.tempo
    if tempo == nil, let text = opened.tag("BPM"), let bpm = Double(text.trimmingCharacters(in: .whitespaces))
    {
      tempo = try? TempoMap(bpm: bpm)
    }
    nowPlaying = NowPlaying(
      track: track, title: track.title ?? opened.tag("TITLE") ?? track.name,
      artist: opened.tag("ARTIST"), album: opened.tag("ALBUM"),
      duration: length.map { Double($0) / rate }, loopRegion: region,
      format: String(cString: foley_format_name(info.format)), tempo: tempo, loudness: bytes.loudness)
  }

  /// The shortest loop region a track may have: 20 ms.
  static func minimumLoopFrames(atRate rate: Int) -> Int { max(1, rate / 50) }

  /// How long one read or seek in the streaming service may take before the service is stopped.
  static let readTimeoutMilliseconds: Int32 = 5_000

  deinit {
    source.close()
  }

  /// Reads up to `count` frames into `buffer`. Returns the frames read and, for each time the
  /// loop region came round, the offset of the first frame from the loop start and the pass it
  /// began. Zero frames: the track has ended.
  package func read(
    into buffer: UnsafeMutablePointer<Float>, count: Int
  ) -> (frames: Int, loops: [(at: Int, pass: Int)]) {
    var done = 0
    var loops: [(at: Int, pass: Int)] = []
    while done < count, failure == nil {
      var wanted = count - done
      if passesLeft != 0, let loopEnd, position < loopEnd { wanted = min(wanted, loopEnd - position) }
      let got = source.read(into: buffer + done * channels, frames: wanted)
      if got < 0 {
        failure = source.error
        break
      }
      done += got
      position += got
      let atLoopEnd = loopEnd.map { position >= $0 } ?? false
      if passesLeft != 0, atLoopEnd || got == 0, position > loopStart {
        // The loop region's end (or the track's, for a whole-track loop): back to its start.
        guard source.seek(to: loopStart) else {
          failure = "cannot seek to the loop start: \(source.error)"
          break
        }
        position = loopStart
        if passesLeft > 0 { passesLeft -= 1 }
        passesPlayed += 1
        loops.append((done, passesPlayed))
        continue
      }
      if got == 0 { break }
    }
    return (done, loops)
  }

  /// Moves to `frame` (clamped to the track); true when the decoder could seek there.
  package func seek(to frame: Int) -> Bool {
    let target = max(0, frames.map { min(frame, $0) } ?? frame)
    guard source.seek(to: target) else { return false }
    position = target
    return true
  }
}

/// A track's bytes in memory that never moves, read once from its file (or copied once from its
/// data): what the check decodes in the decoding service and every reader of the track streams
/// from, seeks included. They live in a memfd when one can be made, so the streaming service maps
/// the same pages instead of a copy.
///
/// Invariant behind `@unchecked Sendable`: the buffer is written once, in the initialiser, and
/// only read after.
package final class TrackBytes: @unchecked Sendable {
  package let buffer: UnsafeRawBufferPointer
  /// The memfd behind `buffer`, or -1 when the bytes are in ordinary memory.
  package let fd: Int32
  /// The loudness the check measured on its way through the track (nil: not checked).
  package var loudness: Loudness? { measured.withLock { $0 } }
  private let measured = Locked<Loudness?>(nil)

  /// Keeps the check's measurement (from the service's report, so taken only within reason).
  func keepLoudness(integrated: Double, range: Double, truePeak: Double) {
    guard !integrated.isNaN, integrated < 50, truePeak.isFinite, truePeak >= 0, truePeak < 1_000 else {
      return
    }
    measured.withLock {
      $0 = Loudness(
        integrated: integrated.isFinite && integrated > -70 ? integrated : -.infinity,
        range: range.isFinite && range >= 0 && range < 200 ? range : 0,
        truePeak: truePeak > 0 ? 20 * log10(truePeak) : -.infinity)
    }
  }

  package init(_ data: Data) {
    let size = max(1, data.count)
    var descriptor = foley_shared_memory("foley-track")
    var mapped: UnsafeMutableRawPointer?
    if descriptor >= 0, ftruncate(descriptor, off_t(size)) == 0 {
      let address = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0)
      if address != MAP_FAILED { mapped = address }
    }
    if mapped == nil, descriptor >= 0 {
      close(descriptor)
      descriptor = -1
    }
    let base = mapped ?? UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
    data.withUnsafeBytes {
      if let source = $0.baseAddress { base.copyMemory(from: source, byteCount: $0.count) }
    }
    fd = descriptor
    buffer = UnsafeRawBufferPointer(start: base, count: data.count)
  }

  deinit {
    guard let base = UnsafeMutableRawPointer(mutating: buffer.baseAddress) else { return }
    if fd >= 0 {
      munmap(base, max(1, buffer.count))
      close(fd)
    } else {
      base.deallocate()
    }
  }
}

/// Where a track is decoded: in this process (`foley_source`), or in the streaming service
/// (`foley_remote`), behind the same few calls.
private enum StreamDecoder {
  case local(OpaquePointer)
  case remote(OpaquePointer)

  /// Frames read into `buffer`; 0 at the end, -1 on a failure (``error`` says what).
  func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) -> Int {
    switch self {
    case .local(let source): Int(foley_source_read(source, buffer, Int64(frames)))
    case .remote(let remote): Int(foley_remote_read(remote, buffer, Int64(frames)))
    }
  }

  func seek(to frame: Int) -> Bool {
    switch self {
    case .local(let source): foley_source_seek(source, Int64(frame)) == 0
    case .remote(let remote): foley_remote_seek(remote, Int64(frame)) == 0
    }
  }

  var error: String {
    switch self {
    case .local(let source): String(cString: foley_source_error(source))
    case .remote(let remote): String(cString: foley_remote_error(remote))
    }
  }

  func tag(_ key: String) -> String? {
    switch self {
    case .local(let source): return sourceTag(key, of: source)
    case .remote(let remote):
      var text = [CChar](repeating: 0, count: 256)
      guard foley_remote_tag(remote, key, &text, text.count) != 0 else { return nil }
      return String(nulTerminated: text)
    }
  }

  func close() {
    switch self {
    case .local(let source): foley_source_close(source)
    case .remote(let remote): foley_remote_close(remote)
    }
  }
}
