import Foley
import Foundation

/// Judges taps against beats, both as output frames heard: a beat is settled once its window has
/// passed, with the nearest tap within ±100 ms (perfect within ±25 ms), or missed; a tap no beat
/// took is stray.
@MainActor
final class RhythmJudge {
  enum Mood { case perfect, good, miss }

  let rate: Double
  private var beats: [AudioFrame] = []
  private var taps: [AudioFrame] = []
  private(set) var lastMood: Mood?
  private(set) var summary = (perfect: 0, good: 0, miss: 0, total: 0, stray: 0, offsetsMs: [Double]())

  init(rate: Double) { self.rate = rate }

  func beat(heardOn frame: AudioFrame) { beats.append(frame) }
  func tap(heard frame: AudioFrame) { taps.append(frame) }

  private func milliseconds(_ frames: Int) -> Double { Double(frames) / rate * 1_000 }

  /// Settles the beats whose window ended before `now` (a heard frame); one line for each.
  func settle(before now: AudioFrame) -> [String] {
    var lines: [String] = []
    let window = Int(rate * 0.1)
    while let beat = beats.first, beat + window < now {
      beats.removeFirst()
      summary.total += 1
      let nearest = taps.indices.min { abs(taps[$0] - beat) < abs(taps[$1] - beat) }
      if let nearest, abs(taps[nearest] - beat) <= window {
        let offBy = milliseconds(taps[nearest] - beat)
        taps.remove(at: nearest)
        summary.offsetsMs.append((offBy * 10).rounded() / 10)
        if abs(offBy) <= 25 {
          summary.perfect += 1
          lastMood = .perfect
        } else {
          summary.good += 1
          lastMood = .good
        }
        lines.append(
          String(format: "beat %d: %@ %+.1f ms", summary.total, abs(offBy) <= 25 ? "perfect" : "good", offBy))
      } else {
        summary.miss += 1
        lastMood = .miss
        lines.append("beat \(summary.total): miss")
      }
    }
    // A tap a beat could still take waits; one past every window is stray.
    let stale = taps.filter { tap in tap + 2 * window < now && !beats.contains { abs($0 - tap) <= window } }
    summary.stray += stale.count
    taps.removeAll { stale.contains($0) }
    return lines
  }
}

/// A player's ear, headless: reads the disk driver's output file as the device writes it, finds
/// each click (a rise after 50 ms of quiet) and taps on the instant it is heard. It knows nothing of
/// the engine's clock: it times the file's growth itself. The file is written through a stdio
/// buffer, so its bytes show up in bursts, late; the frames seen by an instant are at most those
/// written by then, so the line through the top of the bursts (the device's rate, measured over
/// the whole run) is when each frame was written.
final class EarTapper {
  private let file: FileHandle
  private let rate: Int
  private let channels: Int
  private var framesSeen = 0
  private var quietFrames = 0
  /// The first growth seen, and the recent ones: (instant, frames in the file).
  private var first: (time: HostTime, frames: Int)?
  private var recent: [(time: HostTime, frames: Int)] = []
  private var due: [HostTime] = []
  private var pending = Data()

  struct NotFloat: Error, CustomStringConvertible {
    let format: AudioDeviceFormat
    var description: String { "the ear bot reads 32-bit float output; the device plays \(format)" }
  }

  init(file url: URL, format: AudioDeviceFormat) throws {
    guard format.sampleFormat == .float32 else { throw NotFloat(format: format) }
    // The driver creates the file when the device opens; wait for it a little.
    let deadline = HostTime.now + 5
    while !FileManager.default.fileExists(atPath: url.path), HostTime.now < deadline {
      Thread.sleep(forTimeInterval: 0.01)
    }
    file = try FileHandle(forReadingFrom: url)
    rate = format.sampleRate
    channels = format.channels
  }

  /// Reads what was written since the last call; true when a tap is due now.
  func listen(now: HostTime) -> Bool {
    pending += file.availableData
    let frameBytes = 4 * channels
    let frames = pending.count / frameBytes
    if frames > 0 {
      let end = framesSeen + frames
      if first == nil { first = (now, end) }
      recent.append((now, end))
      if recent.count > 16 { recent.removeFirst(recent.count - 16) }
      var onsets: [Int] = []
      pending.withUnsafeBytes { raw in
        let samples = raw.bindMemory(to: Float.self)
        for frame in 0..<frames {
          let level = abs(samples[frame * channels])
          if level >= 0.05, quietFrames >= rate / 20 { onsets.append(framesSeen + frame) }
          quietFrames = level < 0.02 ? quietFrames + 1 : 0
        }
      }
      pending.removeFirst(frames * frameBytes)
      framesSeen = end
      for onset in onsets { due.append(instant(ofFrame: onset, now: now)) }
    }
    guard let next = due.first, now >= next else { return false }
    due.removeFirst()
    return true
  }

  /// When frame `frame` was written, from the top of the recent bursts at the measured rate.
  private func instant(ofFrame frame: Int, now: HostTime) -> HostTime {
    guard let first, let last = recent.last else { return now }
    let span = last.time - first.time
    let perSecond = span > 1 ? Double(last.frames - first.frames) / span : Double(rate)
    // The reference the line goes through: the growth furthest ahead of the rate.
    let top = recent.max { a, b in
      Double(a.frames) - (a.time - first.time) * perSecond < Double(b.frames) - (b.time - first.time)
        * perSecond
    }!
    return top.time + Double(frame - top.frames) / perSecond
  }
}
