import FoleyCore
package import Foundation

/// Reading a file a game or a player supplies, with the same rule everywhere (sounds, sound maps,
/// scripts): it must be a regular file — a FIFO or a device is refused at once instead of blocking
/// the reading thread — and no larger than a limit, checked before a byte is read, so a huge or
/// sparse file cannot fill memory.
///
/// ```swift
/// let bytes = try BoundedFile.read(url, limit: 64 << 20, asset: "boom.wav")
/// ```
package enum BoundedFile {
  /// The file's bytes. Throws ``SoundError/Code/unreadable`` for a missing, unreadable or
  /// non-regular file, ``SoundError/Code/tooLong`` for one over `limit` bytes.
  package static func read(_ url: URL, limit: Int, asset: String) throws(SoundError) -> Data {
    let descriptor = open(url.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw SoundError(.unreadable, asset: asset, message: "\(url.path): \(String(cString: strerror(errno)))")
    }
    defer { close(descriptor) }
    var facts = stat()
    guard fstat(descriptor, &facts) == 0, (facts.st_mode & S_IFMT) == S_IFREG else {
      throw SoundError(
        .unreadable, asset: asset,
        message: "\(url.path) is not a regular file (a FIFO, device or folder is never read)")
    }
    let size = Int(facts.st_size)
    guard size <= limit else {
      throw SoundError(
        .tooLong, asset: asset,
        message: "the file is \(size) bytes; \(limit) is the limit (stream long audio instead)")
    }
    var data = Data(count: size)
    var done = 0
    let failure: Int32? = data.withUnsafeMutableBytes { buffer -> Int32? in
      while done < size {
        let got = SystemCall.read(descriptor, buffer.baseAddress! + done, size - done)
        if got < 0 {
          if errno == EINTR { continue }
          return errno
        }
        if got == 0 { break }  // the file shrank while it was read
        done += got
      }
      return nil
    }
    if let failure {
      throw SoundError(
        .unreadable, asset: asset, message: "\(url.path): \(String(cString: strerror(failure)))")
    }
    if done < size { data.removeSubrange(done...) }
    return data
  }
}
