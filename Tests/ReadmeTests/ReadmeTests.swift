import Foley
import FoleySoundMap
import Foundation
import Testing

/// README.md's examples: each Swift block is in ReadmeSnippets.swift word for word (which this
/// target compiles), and each JSON sound map in it parses without a structural error.
@Suite("README examples")
struct ReadmeTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  static func blocks(_ language: String) throws -> [String] {
    blocks(language, in: try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8))
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
    #expect(blocks.count >= 13)
    let compiled = try String(
      contentsOf: Self.root.appendingPathComponent("Tests/ReadmeTests/ReadmeSnippets.swift"), encoding: .utf8)
    for (index, block) in blocks.enumerated() where !block.contains(".package(") {
      let number = index + 1
      let body = block.split(separator: "\n", omittingEmptySubsequences: false)
        .filter { !$0.hasPrefix("import ") }.joined(separator: "\n")
        .trimmingCharacters(in: .newlines)
      let marked = "// README-BLOCK \(number)\n\(body)\n// README-BLOCK-END"
      #expect(
        compiled.contains(marked),
        "README block \(number) is not in ReadmeSnippets.swift as written:\n\(body)")
    }
  }

  @Test("every Swift block of every DocC article is compiled here, word for word")
  func doccBlocks() throws {
    let compiled = try String(
      contentsOf: Self.root.appendingPathComponent("Tests/ReadmeTests/DocCSnippets.swift"), encoding: .utf8)
    let sources = Self.root.appendingPathComponent("Sources")
    var checked = 0
    for module in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
      let catalog = sources.appendingPathComponent(module).appendingPathComponent("Documentation.docc")
      guard let articles = try? FileManager.default.contentsOfDirectory(atPath: catalog.path) else {
        continue
      }
      var number = 0
      for article in articles.sorted() where article.hasSuffix(".md") {
        let text = try String(contentsOf: catalog.appendingPathComponent(article), encoding: .utf8)
        for block in Self.blocks("swift", in: text) {
          number += 1
          checked += 1
          let body = block.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("import ") }.joined(separator: "\n")
            .trimmingCharacters(in: .newlines)
          let marked = "// DOCC-BLOCK \(module) \(number)\n\(body)\n// DOCC-BLOCK-END"
          let found = compiled.contains(marked)
          #expect(
            found,
            "\(module)/\(article), block \(number), is not in DocCSnippets.swift as written:\n\(body)")
        }
      }
    }
    #expect(checked >= 14)
  }

  @Test("every JSON sound map (or mix section) in the README parses without a structural error")
  func jsonBlocks() throws {
    let blocks = try Self.blocks("json")
    #expect(blocks.count >= 2)
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
