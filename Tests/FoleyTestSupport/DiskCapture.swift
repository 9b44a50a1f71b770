public import FoleyAudio
public import FoleyCore
public import FoleySession
public import Foundation

/// Mixed output captured by SDL's disk driver: interleaved stereo frames in the mix's format.
public struct DiskCapture {
  public let left: Signal
  public let right: Signal

  public init(contentsOf url: URL, format: SampleFormat) throws {
    let data = try Data(contentsOf: url)
    let samples: [Float] = data.withUnsafeBytes { bytes in
      format == .float32
        ? Array(bytes.bindMemory(to: Float.self))
        : bytes.bindMemory(to: Int16.self).map { Float($0) / 32_768 }
    }
    left = Signal(interleaved: samples, channel: 0)
    right = Signal(interleaved: samples, channel: 1)
  }

  /// A 16-bit stereo WAV's samples (a golden render's reference), from its `data` chunk.
  public init(wav url: URL) throws {
    let bytes = [UInt8](try Data(contentsOf: url))
    var offset = 12
    var samples: [Float] = []
    while offset + 8 <= bytes.count {
      let size =
        Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(
          bytes[offset + 7]) << 24
      if bytes[offset..<(offset + 4)].elementsEqual("data".utf8) {
        let end = min(bytes.count, offset + 8 + size)
        samples = stride(from: offset + 8, to: end - 1, by: 2).map {
          Float(Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)) / 32_768
        }
        break
      }
      offset += 8 + size + (size & 1)
    }
    left = Signal(interleaved: samples, channel: 0)
    right = Signal(interleaved: samples, channel: 1)
  }
}

/// The file SDL's disk driver writes, watched while a test runs.
public struct DiskOutput: Sendable {
  public let url: URL
  public let format: AudioDeviceFormat

  public init(url: URL, format: AudioDeviceFormat) {
    self.url = url
    self.format = format
  }

  /// Frames written so far (the driver writes one device buffer at a time, in real time).
  public var framesWritten: Int {
    let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
    return ((attributes?[.size] as? Int) ?? 0) / format.bytesPerFrame
  }

  /// Waits until `frames` more frames than now have been written.
  @discardableResult
  public func waitForMore(frames: Int, timeout: Double = 20) -> Bool {
    let target = framesWritten + frames
    return waitUntil(timeout: timeout) { framesWritten >= target }
  }

  @discardableResult
  public func waitForMore(seconds: Double, timeout: Double = 20) -> Bool {
    waitForMore(frames: Int(seconds * Double(format.sampleRate)), timeout: timeout)
  }
}

/// Opens an engine on SDL's disk driver writing to a fresh file; `body` plays and waits for what
/// it needs; the capture is read after the engine closes (which flushes the file).
@MainActor
public func captureDiskOutput(
  configuration: AudioConfiguration = AudioConfiguration(), session: AudioSession = AudioSession(),
  _ body: (AudioEngine, DiskOutput) throws -> Void
) throws -> DiskCapture {
  let url = FileManager.default.temporaryDirectory.appendingPathComponent(
    "foley-disk-\(UUID().uuidString).raw")
  defer { try? FileManager.default.removeItem(at: url) }
  var format = SampleFormat.float32
  try withEnvironment(["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": url.path]) {
    let engine = try AudioEngine(configuration: configuration, session: session)
    defer { engine.close() }
    precondition(engine.deviceFormat.driver == "disk" && !engine.isSilent, "disk driver did not open")
    format = engine.deviceFormat.sampleFormat
    try body(engine, DiskOutput(url: url, format: engine.deviceFormat))
  }
  return try DiskCapture(contentsOf: url, format: format)
}
