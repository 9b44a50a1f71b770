/// Why a game parameter, a curve, a modulator or a mix snapshot was refused. Nothing changes
/// when one is thrown.
///
/// ```swift
/// do {
///   try engine.setParameter("sped", to: 0.5)
/// } catch {
///   print(error)   // no game parameter "sped" (did you mean "speed"?)
/// }
/// ```
public enum ParameterError: Error, Sendable, Equatable, CustomStringConvertible {
  /// No parameter of that name is defined (``AudioEngine/defineParameter(_:range:default:)``);
  /// the nearest defined name, if one is close.
  case unknownParameter(String, suggestion: String?)
  /// No snapshot of that name is defined (``AudioEngine/defineSnapshot(_:)``).
  case unknownSnapshot(String, suggestion: String?)
  /// A name, range, point or value the engine cannot use; the text says which and why.
  case invalid(String)
  /// More than the engine holds: parameters and snapshots together (64), modulators on one
  /// voice (4), snapshots touching one bus or one parameter (8).
  case tooMany(String)

  public var description: String {
    switch self {
    case .unknownParameter(let name, let suggestion):
      "no game parameter \"\(name)\"" + (suggestion.map { " (did you mean \"\($0)\"?)" } ?? "")
    case .unknownSnapshot(let name, let suggestion):
      "no mix snapshot \"\(name)\"" + (suggestion.map { " (did you mean \"\($0)\"?)" } ?? "")
    case .invalid(let what): what
    case .tooMany(let what): what
    }
  }
}
