public import FoleyCore

/// An audio output device SDL reports.
///
/// ```swift
/// for device in engine.outputDevices { print(device.name, device.isDefault ? "(default)" : "") }
/// try engine.switchOutput(to: "USB Headset Analog Stereo")
/// ```
public struct AudioDevice: Sendable, Hashable, CustomStringConvertible {
  /// The name to open it by.
  public var name: String
  /// Whether it is the system's default output (as far as the driver can say).
  public var isDefault: Bool

  public init(name: String, isDefault: Bool) {
    self.name = name
    self.isDefault = isDefault
  }

  public var description: String { isDefault ? "\(name) (default)" : name }
}

/// Why the output could not be switched. What was playing goes on where it was.
public enum AudioDeviceError: Error, Sendable, Equatable, CustomStringConvertible {
  /// No output device of that name; `available` lists the ones there are.
  case notFound(String, available: [String])
  /// The device would not open (or not in the engine's format); SDL's reason.
  case cannotOpen(String, SDLError)
  /// The engine is closed.
  case closed

  public var description: String {
    switch self {
    case .notFound(let name, let available):
      "no output device named '\(name)'; there are: \(available.isEmpty ? "none" : available.joined(separator: ", "))"
    case .cannotOpen(let name, let error): "the output device '\(name)' does not open: \(error.message)"
    case .closed: "the engine is closed"
    }
  }
}
