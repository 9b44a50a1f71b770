import FoleyCore
import Foundation

/// A file replaced whole or not at all: the bytes go to a temporary file beside it, are flushed
/// to the disk, and the temporary file is renamed over the old one (POSIX makes the rename
/// atomic), and then the folder is flushed so the rename itself survives a power cut.
///
/// The temporary file (`.NAME.saving`) is made with `O_CREAT | O_EXCL | O_NOFOLLOW`: whatever
/// already stands at that name — a link planted to redirect the write, a FIFO that would block
/// the game thread in `open`, a stale file — is refused with an error that names it, never
/// followed, truncated or waited on. A save cut short by a kill leaves its temporary file;
/// ``sweepTemporaries(of:)`` removes it when the map is next loaded.
enum AtomicFile {
  /// The temporary file a write of `url` goes through.
  static func temporary(for url: URL) -> String {
    url.deletingLastPathComponent().path + "/." + url.lastPathComponent + ".saving"
  }

  /// Writes `data` over `url`. `beforeRename` runs after the bytes are on disk and before the
  /// rename: a throw there leaves `url` as it was.
  static func write(
    _ data: Data, to url: URL, beforeRename: () throws(SoundMapEditError) -> Void = {}
  ) throws(SoundMapEditError) {
    let folder = url.deletingLastPathComponent().path
    let temporary = temporary(for: url)
    // The file's permissions are kept (a new file gets the usual 0644 less the umask).
    var facts = stat()
    let mode = stat(url.path, &facts) == 0 ? facts.st_mode & 0o7777 : 0o644
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, mode)
    guard descriptor >= 0 else {
      let reason = errno
      if reason == EEXIST {
        throw .cannotWrite(
          "\(temporary) already exists (a save running elsewhere, or something put there): not followed or "
            + "overwritten; remove it and save again")
      }
      throw .cannotWrite("\(temporary): \(SystemCall.describe(reason))")
    }
    var failure: Int32 = 0
    data.withUnsafeBytes { buffer in
      var done = 0
      while done < buffer.count {
        let wrote = Foundation.write(descriptor, buffer.baseAddress! + done, buffer.count - done)
        if wrote < 0 {
          if errno == EINTR { continue }
          failure = errno
          return
        }
        done += wrote
      }
    }
    if failure == 0, fsync(descriptor) != 0 { failure = errno }
    _ = SystemCall.close(descriptor)
    guard failure == 0 else {
      unlink(temporary)
      throw .cannotWrite("\(url.path): \(SystemCall.describe(failure))")
    }
    do {
      try beforeRename()
    } catch {
      unlink(temporary)
      throw error
    }
    if rename(temporary, url.path) != 0 {
      let reason = errno
      unlink(temporary)
      throw .cannotWrite("\(url.path): \(SystemCall.describe(reason))")
    }
    let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if directory >= 0 {
      _ = fsync(directory)
      _ = SystemCall.close(directory)
    }
  }

  /// Removes a temporary file a cut-short write of `url` left, if it is a plain file (a link or
  /// anything else at that name is not the game's, and is left where it is).
  static func sweepTemporaries(of url: URL) {
    let path = temporary(for: url)
    var facts = stat()
    guard lstat(path, &facts) == 0, facts.st_mode & S_IFMT == S_IFREG else { return }
    unlink(path)
  }
}

/// The backups a save keeps beside the map: `NAME.bak`, the version the last save replaced, and
/// `NAME.bak.1`, `NAME.bak.2`, … every version a save replaced, numbered in order.
struct MapBackups {
  let map: URL

  init(of map: URL) { self.map = map }

  /// `NAME.bak`.
  var latest: URL { map.deletingLastPathComponent().appendingPathComponent(map.lastPathComponent + ".bak") }

  func numbered(_ number: Int) -> URL {
    map.deletingLastPathComponent().appendingPathComponent(map.lastPathComponent + ".bak.\(number)")
  }

  /// The numbers of the backups there are now, lowest first.
  var numbers: [Int] {
    let prefix = map.lastPathComponent + ".bak."
    let names =
      (try? FileManager.default.contentsOfDirectory(atPath: map.deletingLastPathComponent().path)) ?? []
    return names.compactMap { name in
      name.hasPrefix(prefix) ? Int(name.dropFirst(prefix.count)).flatMap { $0 > 0 ? $0 : nil } : nil
    }.sorted()
  }

  /// Removes the temporary files a save cut short left for `NAME.bak` and the numbered backups
  /// (`.NAME.bak.saving`, `.NAME.bak.N.saving`; plain files only).
  func sweepTemporaries() {
    AtomicFile.sweepTemporaries(of: latest)
    let prefix = "." + map.lastPathComponent + ".bak."
    let names =
      (try? FileManager.default.contentsOfDirectory(atPath: map.deletingLastPathComponent().path)) ?? []
    for name in names where name.hasPrefix(prefix) && name.hasSuffix(".saving") {
      let middle = name.dropFirst(prefix.count).dropLast(".saving".count)
      if let number = Int(middle), number > 0 { AtomicFile.sweepTemporaries(of: numbered(number)) }
    }
  }

  /// Writes `data` as the next numbered backup and as `NAME.bak`; returns its number.
  func keep(_ data: Data) throws(SoundMapEditError) -> Int {
    let number = (numbers.last ?? 0) + 1
    try AtomicFile.write(data, to: numbered(number))
    try AtomicFile.write(data, to: latest)
    return number
  }

  /// Removes the oldest numbered backups beyond `limit`, never `keeping`.
  func prune(limit: Int, keeping: Int?) {
    let candidates = numbers.filter { $0 != keeping }
    let allowed = max(0, limit - (keeping == nil ? 0 : 1))
    for number in candidates.dropLast(allowed) {
      var facts = stat()
      let path = numbered(number).path
      // Only plain files: nothing else at these names is the game's to delete.
      if lstat(path, &facts) == 0, facts.st_mode & S_IFMT == S_IFREG { unlink(path) }
    }
  }
}
