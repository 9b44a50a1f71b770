import CFoleySDL2
import FoleyAudio
import FoleyCore
import FoleyPlatform
import FoleyScene
import Foundation
import Testing

/// The caption box drawn on an offscreen canvas and read back from its screenshot.
@MainActor
@Suite("Caption box (offscreen canvas)", .serialized)
struct CaptionBoxTests {
  /// The screenshot's pixels, ARGB, row by row.
  static func pixels(of canvas: Canvas) throws -> [UInt32] {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "captions-\(UUID().uuidString).bmp"
    )
    .path
    defer { try? FileManager.default.removeItem(atPath: path) }
    try canvas.saveScreenshot(to: path)
    let loaded = try #require(SDL_LoadBMP_RW(SDL_RWFromFile(path, "rb"), 1))
    defer { SDL_FreeSurface(loaded) }
    let surface = try #require(SDL_ConvertSurfaceFormat(loaded, SDL_PIXELFORMAT_ARGB8888.rawValue, 0))
    defer { SDL_FreeSurface(surface) }
    let width = Int(surface.pointee.w)
    let pitch = Int(surface.pointee.pitch) / 4
    let base = surface.pointee.pixels.assumingMemoryBound(to: UInt32.self)
    return (0..<Int(surface.pointee.h)).flatMap { row in (0..<width).map { base[row * pitch + $0] } }
  }

  /// Pixels in rows `rows` whose colour is near `red`, `green`, `blue` (0…255 each).
  static func count(_ pixels: [UInt32], rows: Range<Int>, near color: (Int, Int, Int)) -> Int {
    pixels[(rows.lowerBound * 800)..<(rows.upperBound * 800)].filter { pixel in
      let red = Int(pixel >> 16 & 0xFF)
      let green = Int(pixel >> 8 & 0xFF)
      let blue = Int(pixel & 0xFF)
      return abs(red - color.0) < 24 && abs(green - color.1) < 24 && abs(blue - color.2) < 24
    }.count
  }

  @Test(
    "captions are drawn at the bottom with their arrow and count, critical in amber, and fade when they end")
  func drawsAndFades() throws {
    let context = try SDLContext(subsystems: [.video, .events], mode: .headless)
    defer { context.shutdown() }
    let canvas = try Canvas(title: "captions", width: 800, height: 600, presentation: .offscreen)
    defer { canvas.close() }
    let scene = Scene(size: Size(width: 800, height: 600))
    scene.backgroundColor = Color(red: 0.2, green: 0.4, blue: 0.2, alpha: 1)
    let box = CaptionBox()
    box.show(
      CaptionEvent(
        id: 1, phase: .began, text: "Ball whistles", category: .effect, count: 3,
        direction: CaptionDirection(degrees: 180)), at: 10)
    box.show(CaptionEvent(id: 2, phase: .began, text: "Alarm", category: .critical), at: 10)
    #expect(box.lines(at: 10).map(\.text) == ["← Ball whistles ×3", "Alarm"])
    // By ear alone: the words without the arrows.
    box.showsDirections = false
    #expect(box.lines(at: 10).map(\.text) == ["Ball whistles ×3", "Alarm"])
    box.showsDirections = true
    canvas.draw(scene) { box.draw(on: $0, at: 10.1) }
    var pixels = try Self.pixels(of: canvas)
    // The panel and its text are in the bottom band; the top of the field is untouched.
    let amber = Self.count(pixels, rows: 500..<600, near: (255, 191, 51))
    let grey = Self.count(pixels, rows: 500..<600, near: (217, 217, 217))
    #expect(amber > 100 && grey > 200, "amber \(amber), grey \(grey)")
    #expect(Self.count(pixels, rows: 0..<450, near: (51, 102, 51)) == 800 * 450)
    // Ended: still there half-way through its fade, gone after it.
    box.show(CaptionEvent(id: 2, phase: .ended, text: "Alarm", category: .critical), at: 11)
    #expect(box.lines(at: 11.3).count == 2 && abs((box.lines(at: 11.3).last?.opacity ?? 0) - 0.5) < 0.01)
    box.show(
      CaptionEvent(id: 1, phase: .ended, text: "Ball whistles", category: .effect, count: 3), at: 11)
    canvas.draw(scene) { box.draw(on: $0, at: 12) }
    pixels = try Self.pixels(of: canvas)
    #expect(Self.count(pixels, rows: 0..<600, near: (51, 102, 51)) == 800 * 600)
    #expect(box.lines(at: 12).isEmpty)
  }
}
