import Foley
import FoleySoundMap
import Foundation
import Testing

/// The examples of README.md and of every DocC article: each Swift block is in this target's
/// snippet files word for word (which it compiles), and each JSON sound map parses without a
/// structural error.
@Suite("README examples")
struct ReadmeTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  static func blocks(_ language: String) throws -> [String] {
    blocks(language, in: try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8))
  }

  /// Every compiled snippet file, joined: a block may sit in any of them. The SpriteKit guide's
  /// scene is compiled (and run) by SpriteKitPortTests.
  static func compiledSnippets() throws -> String {
    let folder = root.appendingPathComponent("Tests/ReadmeTests")
    let here = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
      .filter { $0.hasSuffix(".swift") }
      .map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }
    let port = try String(
      contentsOf: root.appendingPathComponent("Tests/SpriteKitPortTests/GameScene.swift"), encoding: .utf8)
    return (here + [port]).joined(separator: "\n")
  }

  /// The DocC articles of every module, as (module, article file name, text), in a stable order.
  static func articles() throws -> [(module: String, name: String, text: String)] {
    let sources = root.appendingPathComponent("Sources")
    var found: [(String, String, String)] = []
    for module in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
      let catalog = sources.appendingPathComponent(module).appendingPathComponent("Documentation.docc")
      guard let names = try? FileManager.default.contentsOfDirectory(atPath: catalog.path) else { continue }
      for name in names.sorted() where name.hasSuffix(".md") {
        found.append(
          (module, name, try String(contentsOf: catalog.appendingPathComponent(name), encoding: .utf8)))
      }
    }
    return found
  }

  /// A block as its compiled copy shows it: without its `import` lines or surrounding blank lines.
  static func body(of block: String) -> String {
    block.split(separator: "\n", omittingEmptySubsequences: false)
      .filter { !$0.hasPrefix("import ") }.joined(separator: "\n")
      .trimmingCharacters(in: .newlines)
  }

  /// The fenced blocks of `language` in a Markdown text, each without its fences.
  static func blocks(_ language: String, in readme: String) -> [String] {
    var blocks: [String] = []
    var current: [Substring]?
    for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
      let trimmed = line.drop { $0 == " " }
      if current == nil, trimmed == "```\(language)" {
        current = []
      } else if current != nil, trimmed == "```" {
        blocks.append(current!.joined(separator: "\n"))
        current = nil
      } else if current != nil {
        current!.append(line)
      }
    }
    return blocks
  }

  @Test("every Swift block of the README is compiled here, word for word")
  func swiftBlocks() throws {
    let blocks = try Self.blocks("swift")
    #expect(blocks.count >= 2)
    let compiled = try Self.compiledSnippets()
    for (index, block) in blocks.enumerated() where !block.contains(".package(") {
      let number = index + 1
      let body = Self.body(of: block)
      let marked = "// README-BLOCK \(number)\n\(body)\n// BLOCK-END"
      #expect(
        compiled.contains(marked),
        "README block \(number) is not in ReadmeSnippets.swift as written:\n\(body)")
    }
  }

  @Test("every Swift block of every DocC article is compiled here, word for word")
  func doccBlocks() throws {
    let compiled = try Self.compiledSnippets()
    var checked = 0
    for article in try Self.articles() {
      for (index, block) in Self.blocks("swift", in: article.text).enumerated() {
        checked += 1
        let body = Self.body(of: block)
        let marked = "// DOCC-BLOCK \(article.module)/\(article.name) \(index + 1)\n\(body)\n// BLOCK-END"
        #expect(
          compiled.contains(marked),
          "\(article.module)/\(article.name), block \(index + 1), is not compiled here as written:\n\(body)")
      }
    }
    #expect(checked >= 30)
  }

  @Test(
    "every JSON sound map (or mix section) in the README and the articles parses without a structural error")
  func jsonBlocks() throws {
    let blocks = try Self.blocks("json") + Self.articles().flatMap { Self.blocks("json", in: $0.text) }
    #expect(blocks.count >= 3)
    for block in blocks {
      let trimmed = block.trimmingCharacters(in: .whitespacesAndNewlines)
      // A `mix` section is shown on its own: it goes into a map around it.
      let json =
        trimmed.hasPrefix("\"mix\"")
        ? #"{ "version": 1, "events": { "x": { "play": "a.wav" } }, "# + trimmed + " }" : trimmed
      var parser = SoundMapParser()
      _ = parser.parse(Data(json.utf8))
      #expect(parser.errors.isEmpty, "\(parser.errors)\n\(trimmed)")
    }
  }
}
