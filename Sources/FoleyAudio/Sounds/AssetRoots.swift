package import Foundation

/// The folders named sounds are found in, and the rule that keeps names inside them.
///
/// A name is a relative path below a root: empty names, NUL bytes, absolute paths and names that
/// lead outside the root (through `..` or a symbolic link) are refused with
/// ``SoundError/Code/invalidName`` before anything is read. Roots are searched in order.
package struct AssetRoots: Sendable, Hashable {
  package let roots: [URL]

  package init(_ roots: [URL]) {
    self.roots = roots.map { $0.standardizedFileURL }
  }

  /// `name` in one spelling: `.` steps and empty steps dropped, each `..` taken back with the
  /// step before it (`./chime.wav`, `Music/../chime.wav` and `chime.wav` are all `chime.wav`), so
  /// that two names of one file are one key wherever names key a table. A `..` with no step left
  /// to take back stays, and ``locate(_:)`` refuses it as leading outside the root; an absolute
  /// name is left as it is, for the same reason.
  ///
  /// ```swift
  /// AssetRoots.canonicalName("Music/../sfx//./chime.wav")   // "sfx/chime.wav"
  /// ```
  package static func canonicalName(_ name: String) -> String {
    guard !name.hasPrefix("/"), !name.hasPrefix("~") else { return name }
    var steps: [Substring] = []
    for step in name.split(separator: "/", omittingEmptySubsequences: true) {
      switch step {
      case ".": continue
      case "..":
        if let last = steps.last, last != ".." { steps.removeLast() } else { steps.append(step) }
      default: steps.append(step)
      }
    }
    return steps.isEmpty ? name : steps.joined(separator: "/")
  }

  /// The file `name` names, checked to lie inside its root.
  package func locate(_ name: String) throws(SoundError) -> URL {
    guard !name.isEmpty else { throw SoundError(.invalidName, asset: name, message: "the name is empty") }
    guard !name.contains("\0") else {
      throw SoundError(
        .invalidName, asset: name.replacingOccurrences(of: "\0", with: "\\0"),
        message: "it contains a NUL byte")
    }
    guard !name.hasPrefix("/"), !name.hasPrefix("~") else {
      throw SoundError(.invalidName, asset: name, message: "absolute paths are not asset names")
    }
    for root in roots {
      let rootPath = root.resolvingSymlinksInPath().path
      let lexical = root.appendingPathComponent(name).standardizedFileURL
      let resolved = lexical.resolvingSymlinksInPath()
      guard Self.path(lexical.path, isInside: root.path), Self.path(resolved.path, isInside: rootPath) else {
        throw SoundError(.invalidName, asset: name, message: "it leads outside the asset root \(root.path)")
      }
      if FileManager.default.fileExists(atPath: resolved.path) { return resolved }
    }
    let searched = roots.map(\.path).joined(separator: ", ")
    throw SoundError(.unreadable, asset: name, message: "no such file in the asset roots (\(searched))")
  }

  private static func path(_ path: String, isInside root: String) -> Bool {
    path.hasPrefix(root.hasSuffix("/") ? root : root + "/")
  }
}
