internal import CFoleyCodecs
import Dispatch
@_spi(FoleyStreams) package import FoleyAudio
import FoleySession
package import Foundation

/// Before a track is streamed in the game's own process, a child process decodes it to its end
/// and throws the audio away (`foley_check_isolated`): a decoder that crashes, hangs or runs away
/// with memory on these bytes ends the child, and the track fails with a ``SoundError`` instead
/// of taking the game down. The verdict is remembered per file (path, size and modification time)
/// or per bytes, so each track is checked once however often it plays.
///
/// Checks run one at a time on their own queue, never on the filler's, so a slow check does not
/// starve the streams that play. With `AudioConfiguration.isolatesDecoders` off every track
/// passes at once (the decoders then run in the game's process unchecked, like any streaming
/// engine's).
package final class TrackChecker: Sendable {
  package enum Verdict: Sendable {
    case passed
    case failed(SoundError)
  }

  private enum Key: Hashable {
    case file(String, FileSignature?)
    case data(Data)
  }

  package let isolated: Bool
  /// How long a check may take: a whole track is decoded, so more than a sound's decode.
  package let timeout: Double
  private let queue = DispatchQueue(label: "foley.music.check", qos: .utility)
  private let verdicts = Locked<[Key: Verdict?]>([:])

  package init(isolated: Bool, timeout: Double) {
    self.isolated = isolated
    self.timeout = timeout
  }

  /// The verdict on `track` (at `url`, for files and names), or nil while its check runs; the
  /// first call starts the check. With `waiting`, waits for it instead (deterministic runs).
  package func verdict(for track: Track, at url: URL?, waiting: Bool = false) -> Verdict? {
    guard isolated else { return .passed }
    let key = Self.key(for: track, at: url)
    let isNew = verdicts.withLock { verdicts in
      guard verdicts[key] == nil else { return false }
      verdicts[key] = .some(nil)
      return true
    }
    if isNew {
      queue.async { [self] in
        let verdict = run(track, at: url)
        verdicts.withLock { $0[key] = .some(verdict) }
      }
    }
    if waiting { queue.sync {} }
    return verdicts.withLock { $0[key] ?? nil }
  }

  /// Checks `track` now, on the caller's thread (or returns the remembered verdict).
  package func check(_ track: Track, at url: URL?) -> Verdict {
    verdict(for: track, at: url, waiting: true) ?? .passed
  }

  private func run(_ track: Track, at url: URL?) -> Verdict {
    let size = MemoryLayout<foley_decode_result>.size
    guard let shared = foley_shared_alloc(size) else {
      return .failed(
        SoundError(.decoderCrashed, asset: track.name, message: "cannot map memory for the check"))
    }
    defer { foley_shared_free(shared, size) }
    let report = shared.bindMemory(to: foley_decode_result.self, capacity: 1)
    let milliseconds = Int32(timeout * 1_000)
    let status: Int32
    switch track.origin {
    case .data(let data, _):
      guard !data.isEmpty else { return .failed(SoundError(.empty, asset: track.name)) }
      status = data.withUnsafeBytes { bytes in
        foley_check_isolated(
          bytes.baseAddress, bytes.count, nil, milliseconds, SoundDecoder.childMemoryLimit, report)
      }
    case .file, .named:
      status = foley_check_isolated(
        nil, 0, url?.path ?? "", milliseconds, SoundDecoder.childMemoryLimit, report)
    }
    guard status != Int32(FOLEY_OK.rawValue) else { return .passed }
    let message = withUnsafeBytes(of: report.pointee.message) {
      String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
    }
    return .failed(
      SoundError(SoundDecoder.code(for: UInt32(bitPattern: status)), asset: track.name, message: message))
  }

  private static func key(for track: Track, at url: URL?) -> Key {
    switch track.origin {
    case .data(let data, _): .data(data)
    case .file, .named: .file(url?.path ?? "", FileSignature(of: url))
    }
  }
}
