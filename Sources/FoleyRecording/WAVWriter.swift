import FoleyCore
import Foundation

/// Streams samples to a WAV file with POSIX calls, so every failure has its errno (a full disk is
/// `ENOSPC`, a file-size limit `EFBIG`) and the header can be patched in place.
///
/// Layout: ``WAVHeader``'s, patched in place as the take grows.
///
/// Invariant: used by one thread at a time (the recorder's queue).
final class WAVWriter {
  let url: URL
  let format: RecordingFormat
  let dataOffset: Int
  private var descriptor: Int32
  private(set) var framesWritten = 0

  enum CreateMode {
    /// Fail if the file exists.
    case new
    /// Replace an existing file.
    case overwrite
  }

  /// Creates the file and writes a header that already describes zero frames, so even an empty
  /// take is a valid WAV.
  init(creating url: URL, format: RecordingFormat, mode: CreateMode) throws(RecordingError) {
    self.url = url
    self.format = format
    self.dataOffset = WAVHeader(format: format, frames: 0).dataOffset
    // Never through a symbolic link (replacing its target, which may be anyone's file), and never
    // blocking: a FIFO with no reader would hold the open for ever, deaf to SIGTERM. What is there
    // is checked before anything is cut: only a regular file is replaced.
    let flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | (mode == .new ? O_EXCL : 0)
    descriptor = open(url.path, flags, 0o644)
    guard descriptor >= 0 else {
      let code = errno
      if code == EEXIST { throw .fileExists(url) }
      if code == ELOOP {
        throw .cannotCreate(url, message: "it is a symbolic link, which Foley does not write through")
      }
      if code == ENXIO { throw .cannotCreate(url, message: "it is not a regular file (a FIFO or a socket)") }
      throw .cannotCreate(url, message: String(cString: strerror(code)))
    }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
      close()
      throw .cannotCreate(url, message: "it is not a regular file (a FIFO, a device or a folder)")
    }
    if mode == .overwrite, ftruncate(descriptor, 0) != 0 {
      let message = String(cString: strerror(errno))
      close()
      throw .cannotCreate(url, message: message)
    }
    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
    do {
      // The header goes in with pwrite at offset 0; the samples follow it.
      try patchSizes(frames: 0)
      guard lseek(descriptor, off_t(dataOffset), SEEK_SET) == off_t(dataOffset) else {
        throw WAVError(.unwritable, file: url, message: String(cString: strerror(errno)))
      }
    } catch {
      close()
      unlink(url.path)
      throw .cannotCreate(url, message: "\(error)")
    }
  }

  /// Appends whole frames. On a short or failed write the frames that did land are counted and
  /// any partial frame is cut off, so the file stays frame-aligned.
  func append(_ bytes: UnsafeRawBufferPointer) throws(WAVError) {
    var written = 0
    defer { framesWritten += written / format.bytesPerFrame }
    while written < bytes.count {
      let result = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
      if result < 0 {
        if errno == EINTR { continue }
        let message = String(cString: strerror(errno))
        let keep = dataOffset + (framesWritten + written / format.bytesPerFrame) * format.bytesPerFrame
        _ = ftruncate(descriptor, off_t(keep))
        _ = lseek(descriptor, off_t(keep), SEEK_SET)
        throw WAVError(.unwritable, file: url, message: message)
      }
      written += result
    }
  }

  /// Writes the sizes for `frames` into the header (RIFF size, data size, float's fact count).
  func patchSizes(frames: Int? = nil) throws(WAVError) {
    let frames = frames ?? framesWritten
    let bytes = WAVHeader(format: format, frames: frames).bytes
    let result = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    guard result == bytes.count else {
      throw WAVError(.unwritable, file: url, message: String(cString: strerror(errno)))
    }
  }

  func close() {
    if descriptor >= 0 { _ = SystemCall.close(descriptor) }
    descriptor = -1
  }

  deinit { close() }
}
