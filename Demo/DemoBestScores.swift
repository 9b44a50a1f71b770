import FoleyAudio
import FoleyCore
import Foundation

/// The best score of each level, in a small JSON file (`{"version": 1, "levels": {"1": 340}}`).
///
/// Nothing is lost: a score is written whole to a temporary file beside the real one, flushed to
/// the disk and renamed over it, so a game killed mid-write leaves the previous file (and the
/// temporary one is swept away on the next start). A file that cannot be read as scores is set
/// aside as `NAME.corrupt`, said in words, and play starts afresh; a folder that cannot be written
/// costs only the saving, with a message. The size is checked before a byte is read; a link is
/// written through to what it names (it stays a link); nothing the game did not make is deleted
/// (a folder at the file's name, or at `NAME.corrupt`, is left where it is).
final class DemoBestScores {
  let url: URL
  private(set) var scores: [Int: Int] = [:]
  /// What went wrong reading or writing, in words a player understands (nil when all is well).
  private(set) var problem: String?

  struct File: Codable {
    var version: Int
    var levels: [String: Int]
  }

  init(url: URL) {
    self.url = url
    sweepTemporaryFiles()
    guard FileManager.default.fileExists(atPath: url.path) else { return }
    var facts = stat()
    if stat(url.path, &facts) == 0, facts.st_mode & S_IFMT == S_IFDIR {
      problem =
        "The best scores cannot be kept at \(url.path): it is a folder, not a file (it is left as it is)."
      return
    }
    do {
      let data: Data
      do {
        // Checked before it is read: a gigabyte at this name costs nothing.
        data = try BoundedFile.read(url, limit: 65_536, asset: url.lastPathComponent)
      } catch {
        throw Unreadable(error.message)
      }
      let file = try JSONDecoder().decode(File.self, from: data)
      guard file.version == 1 else { throw Unreadable("it is version \(file.version), not 1") }
      for (key, score) in file.levels {
        guard let level = Int(key), (1...99).contains(level), score >= 0 else {
          throw Unreadable("level \"\(key)\" with score \(score) is not a level and a score")
        }
        scores[level] = score
      }
    } catch {
      scores = [:]
      let aside = Self.asideName(for: url)
      let kept = rename(url.path, aside.path) == 0
      problem =
        "The best scores in \(url.lastPathComponent) could not be read (\(Self.words(error))), so they start afresh"
        + (kept ? "; the old file is kept as \(aside.lastPathComponent)." : ".")
    }
  }

  func best(forLevel level: Int) -> Int? { scores[level] }

  /// Where an unreadable file is set aside: `NAME.corrupt`, replacing an earlier plain file of
  /// that name, or `NAME.corrupt.2`, `.3`, … when something else (a folder) stands there.
  private static func asideName(for url: URL) -> URL {
    var candidate = url.appendingPathExtension("corrupt")
    var number = 1
    var facts = stat()
    while lstat(candidate.path, &facts) == 0, facts.st_mode & S_IFMT != S_IFREG, number < 100 {
      number += 1
      candidate = url.appendingPathExtension("corrupt.\(number)")
    }
    return candidate
  }

  /// Keeps `score` for `level` if it beats the best; returns whether it did. A failure to write
  /// keeps the score for this run and says why in `problem`.
  @discardableResult
  func record(_ score: Int, level: Int) -> Bool {
    guard score > (scores[level] ?? -1) else { return false }
    scores[level] = score
    do {
      try writeFile()
    } catch {
      problem = "The best score could not be saved to \(url.path): \(Self.words(error))."
    }
    return true
  }

  private func writeFile() throws {
    let file = File(
      version: 1, levels: Dictionary(uniqueKeysWithValues: scores.map { (String($0.key), $0.value) }))
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    let data = try encoder.encode(file)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    // Through a link to what it names: the rename replaces the target and the link stays.
    let target = url.resolvingSymlinksInPath()
    let temporary = target.deletingLastPathComponent().appendingPathComponent(
      ".\(target.lastPathComponent).\(getpid()).tmp")
    unlink(temporary.path)  // this process's own name: a leftover of an earlier run with its pid
    let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw Unreadable(SystemCall.describe(errno)) }
    let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    let synced = fsync(descriptor) == 0
    close(descriptor)
    guard written == data.count, synced, rename(temporary.path, target.path) == 0 else {
      let reason = SystemCall.describe(errno)
      unlink(temporary.path)
      throw Unreadable(reason)
    }
    // The rename itself made durable.
    let folder = open(target.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if folder >= 0 {
      fsync(folder)
      close(folder)
    }
  }

  /// Temporary files a killed write left behind.
  private func sweepTemporaryFiles() {
    let folder = url.deletingLastPathComponent()
    let prefix = ".\(url.lastPathComponent)."
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
    for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
      // Plain files only, one at a time: never a recursive delete.
      var facts = stat()
      let path = folder.appendingPathComponent(name).path
      if lstat(path, &facts) == 0, facts.st_mode & S_IFMT == S_IFREG { unlink(path) }
    }
  }

  struct Unreadable: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }

  static func words(_ error: any Error) -> String {
    switch error {
    case let error as Unreadable: error.description
    case is DecodingError: "it is not a scores file"
    case let error as CocoaError where error.code == .fileReadNoPermission: "no permission to read it"
    case let error as CocoaError where error.code == .fileWriteNoPermission: "no permission to write there"
    default: error.localizedDescription
    }
  }

  /// Where a windowed game keeps them: `$XDG_DATA_HOME/foley-demo/best-scores.json` (or
  /// `~/.local/share/...`).
  static var defaultURL: URL {
    let environment = ProcessInfo.processInfo.environment
    let base =
      environment["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
      ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(
        ".local/share", isDirectory: true)
    return base.appendingPathComponent("foley-demo/best-scores.json")
  }
}
