public import FoleyCore
public import Foundation

/// Why a recording could not start, or why it stopped early. Every case names what it concerns;
/// when a recording stops on an error, the file holds everything captured up to it and is valid.
///
/// ```swift
/// do {
///   let recorder = try AudioRecorder(url: url)
///   try recorder.record()
/// } catch RecordingError.fileExists(let url) {
///   print("\(url.lastPathComponent) exists; pass options: .overwrite to replace it")
/// }
/// ```
public enum RecordingError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The file exists and ``AudioRecorder/Options/overwrite`` was not given.
  case fileExists(URL)
  /// The file could not be created (no such directory, read-only file system, permissions).
  case cannotCreate(URL, message: String)
  /// Writing failed part-way (a full disk, a file-size limit, an I/O error). The recording
  /// stopped; the file is valid and holds what was written before.
  case writeFailed(URL, message: String)
  /// No capture device could be opened.
  case noCaptureDevice(SDLError)
  /// No capture device has this name.
  case deviceNotFound(String, available: [String])
  /// The format cannot be recorded (no channels, a rate SDL refuses).
  case unsupportedFormat(RecordingFormat)
  /// The capture device went away; the file holds what was captured before.
  case deviceLost(URL)
  /// The recorder was stopped (a recorder records one take).
  case finished

  public var description: String {
    switch self {
    case .fileExists(let url): "\(url.path) already exists (pass .overwrite to replace it)"
    case .cannotCreate(let url, let message): "cannot create \(url.path): \(message)"
    case .writeFailed(let url, let message):
      "recording to \(url.path) stopped: \(message); the file is valid up to here"
    case .noCaptureDevice(let error): "no capture device: \(error)"
    case .deviceNotFound(let name, let available):
      "no capture device named '\(name)'; available: \(available.isEmpty ? "none" : available.joined(separator: ", "))"
    case .unsupportedFormat(let format): "cannot record \(format)"
    case .deviceLost(let url): "the capture device went away; \(url.path) holds what was captured"
    case .finished: "this recorder has stopped; make a new one for another take"
    }
  }
}
