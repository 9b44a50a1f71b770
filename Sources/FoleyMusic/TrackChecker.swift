internal import CFoleyCodecs
import Dispatch
@_spi(FoleyStreams) package import FoleyAudio
import FoleyCore
package import Foundation

/// A track's bytes are read once, in the game's process, and checked once: the decoding service
/// decodes those bytes to their end and throws the audio away (exercising its loop start and a few
/// seeks on the way), so a decoder that crashes, hangs or runs away with memory on them ends only
/// the service, and the track fails with a ``SoundError`` instead of taking the game down. Then
/// every reader of the track streams from the same bytes (``TrackBytes``), never from the file
/// again: a file replaced after its check changes nothing, and a seek reads no file.
///
/// Files are read only if they are regular and at most ``maximumFileSize`` bytes (a FIFO or a
/// huge file is refused at once). The verdict and the bytes are remembered per file (path, size
/// and modification time) or per data, for the last ``rememberedTracks`` tracks and within
/// ``rememberedBytes`` of them (a stream that plays keeps its own bytes). Checks run one at
/// a time on their own queue, never on the filler's, so a slow check does not starve the streams
/// that play. With `AudioConfiguration.isolatesDecoders` off the bytes are read the same way and
/// pass unchecked.
package final class TrackChecker: Sendable {
  package enum Verdict: Sendable {
    case passed(TrackBytes)
    case failed(SoundError)
  }

  private enum Key: Hashable {
    case file(String, FileSignature?)
    case data(Data)
  }

  /// The largest track file read (512 MiB: about 50 minutes of 48 kHz stereo FLAC).
  package static let maximumFileSize = 512 << 20
  /// Tracks whose bytes and verdicts are kept; older ones are read and checked again if played.
  static let rememberedTracks = 32
  /// The most bytes of checked tracks kept for their next play (256 MiB by default); past it the
  /// least recently asked-for are forgotten first (the newest is always kept).
  package let rememberedBytes: Int

  package let isolated: Bool
  /// How long a check may take: a whole track is decoded, so more than a sound's decode.
  package let timeout: Double
  private let queue = DispatchQueue(label: "foley.music.check", qos: .utility)
  /// Each track's verdict (nil while its check runs) and when it was last asked for.
  private let verdicts = Locked<(entries: [Key: (verdict: Verdict?, use: Int)], clock: Int)>(([:], 0))

  package init(isolated: Bool, timeout: Double, rememberedBytes: Int = 256 << 20) {
    self.isolated = isolated
    self.timeout = timeout
    self.rememberedBytes = rememberedBytes
  }

  /// The verdict on `track` (at `url`, for files and names), or nil while its check runs; the
  /// first call starts the check. With `waiting`, waits for it instead (deterministic runs).
  package func verdict(for track: Track, at url: URL?, waiting: Bool = false) -> Verdict? {
    let key = Self.key(for: track, at: url)
    let isNew = verdicts.withLock { table in
      table.clock += 1
      if let entry = table.entries[key] {
        table.entries[key] = (entry.verdict, table.clock)
        return false
      }
      table.entries[key] = (nil, table.clock)
      if table.entries.count > Self.rememberedTracks,
        let oldest = table.entries.filter({ $0.value.verdict != nil }).min(by: { $0.value.use < $1.value.use }
        )?
        .key
      {
        table.entries.removeValue(forKey: oldest)
      }
      return true
    }
    if isNew {
      queue.async { [self] in
        let verdict = run(track, at: url)
        verdicts.withLock { table in
          guard let entry = table.entries[key] else { return }
          table.entries[key] = (verdict, entry.use)
          // Within the byte budget: the least recently asked-for go first, never this one.
          var kept = table.entries.values.reduce(0) { $0 + Self.size(of: $1.verdict) }
          while kept > rememberedBytes,
            let oldest = table.entries.filter({ $0.key != key && Self.size(of: $0.value.verdict) > 0 })
              .min(by: { $0.value.use < $1.value.use })
          {
            kept -= Self.size(of: oldest.value.verdict)
            table.entries.removeValue(forKey: oldest.key)
          }
        }
      }
    }
    if waiting { queue.sync {} }
    return verdicts.withLock { $0.entries[key]?.verdict ?? nil }
  }

  /// Checks `track` now, on the caller's thread (or returns the remembered verdict).
  package func check(_ track: Track, at url: URL?) -> Verdict {
    verdict(for: track, at: url, waiting: true)
      ?? .failed(SoundError(.decoderCrashed, asset: track.name, message: "the check was forgotten"))
  }

  private func run(_ track: Track, at url: URL?) -> Verdict {
    let data: Data
    switch track.origin {
    case .data(let given, _): data = given
    case .file, .named:
      do {
        data = try BoundedFile.read(
          url ?? URL(fileURLWithPath: ""), limit: Self.maximumFileSize, asset: track.name)
      } catch {
        return .failed(error)
      }
    }
    guard !data.isEmpty else { return .failed(SoundError(.empty, asset: track.name)) }
    let bytes = TrackBytes(data)
    guard isolated else { return .passed(bytes) }
    SoundDecoder.locateServiceExecutable()
    var report = foley_decode_result()
    let status = foley_check_isolated(
      bytes.buffer.baseAddress, bytes.buffer.count, nil, Int32(timeout * 1_000),
      SoundDecoder.childMemoryLimit,
      &report)
    guard status != Int32(FOLEY_OK.rawValue) else {
      if report.has_loudness != 0 {
        bytes.keepLoudness(
          integrated: report.loudness, range: report.loudness_range, truePeak: report.true_peak)
      }
      return .passed(bytes)
    }
    let message = withUnsafeBytes(of: report.message) {
      String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
    }
    return .failed(
      SoundError(SoundDecoder.code(for: UInt32(bitPattern: status)), asset: track.name, message: message))
  }

  /// The bytes a verdict keeps.
  private static func size(of verdict: Verdict?) -> Int {
    guard case .passed(let bytes) = verdict else { return 0 }
    return bytes.buffer.count
  }

  /// Whether `track`'s verdict is remembered (its check has run and was not forgotten since).
  package func remembers(_ track: Track, at url: URL?) -> Bool {
    let key = Self.key(for: track, at: url)
    return verdicts.withLock { $0.entries[key]?.verdict != nil }
  }

  private static func key(for track: Track, at url: URL?) -> Key {
    switch track.origin {
    case .data(let data, _): .data(data)
    case .file, .named: .file(url?.path ?? "", FileSignature(of: url))
    }
  }
}
