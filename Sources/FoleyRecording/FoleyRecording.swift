/// FoleyRecording captures the microphone to WAV files. The recorder lands with the recording issue;
/// until then the module holds only its namespace.
public enum FoleyRecording {
  /// The module's version, for reports and diagnostics.
  public static let version = "0.1.0"
}
