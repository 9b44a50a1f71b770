import Foundation
import Testing

/// What a shipped game carries: the decoders' fault injection is read from the environment only
/// where the build defines the test seam, and the package defines it for debug builds only.
@Suite("Test seams stay out of release builds")
struct TestSeamTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// Every source file under `Sources/` with its text.
  func sources() throws -> [(path: String, text: String)] {
    let base = Self.root.appendingPathComponent("Sources")
    let walker = try #require(FileManager.default.enumerator(atPath: base.path))
    return walker.compactMap { $0 as? String }
      .filter { path in [".c", ".h", ".swift"].contains { path.hasSuffix($0) } }
      .compactMap { path in
        (try? String(contentsOf: base.appendingPathComponent(path), encoding: .utf8)).map { (path, $0) }
      }
  }

  @Test("the fault variable is read in one place, behind FOLEY_TEST_SEAMS, defined for debug builds only")
  func faultInjectionIsDebugOnly() throws {
    let reads = try sources().flatMap { file in
      file.text.components(separatedBy: "\n").enumerated()
        .filter {
          $0.element.contains("getenv(\"FOLEY_DECODER_FAULTS\")")
            || ($0.element.contains("FOLEY_DECODER_FAULTS") && $0.element.contains("environment"))
        }
        .map { (file.path, $0.offset, file.text) }
    }
    #expect(reads.count == 1, "\(reads.map { "\($0.0):\($0.1 + 1)" })")
    for (path, line, text) in reads {
      #expect(path.hasSuffix("codec_internal.h"), "\(path):\(line + 1) reads the fault variable")
      // The read sits inside `#ifdef FOLEY_TEST_SEAMS … #else`.
      let before = text.components(separatedBy: "\n")[..<line]
      let opened = before.lastIndex { $0.hasPrefix("#ifdef FOLEY_TEST_SEAMS") }
      let closed = before.lastIndex { $0.hasPrefix("#else") || $0.hasPrefix("#endif") }
      #expect(
        opened != nil && (closed == nil || closed! < opened!), "\(path):\(line + 1) is not behind the seam")
    }
    let package = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
    let defines = package.components(separatedBy: "\n").filter {
      $0.contains("FOLEY_TEST_SEAMS") && $0.contains(".define")
    }
    #expect(
      defines.count == 1 && defines.allSatisfy { $0.contains(".when(configuration: .debug)") }, "\(defines)")
  }
}
