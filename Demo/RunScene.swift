import ArgumentParser
import Foley
import Foundation

/// The default subcommand: the demo game, windowed when there is a display, otherwise headless
/// for a fixed number of frames.
struct RunScene: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "game", abstract: "Play the demo scene (the default).")

  @Flag(help: "Run without a window, on SDL's dummy drivers unless SDL_*DRIVER says otherwise.")
  var headless = false

  @Option(help: "Frames to run headless (at 60 per second of game time).")
  var frames = 180

  @Option(help: "Write the last frame to this BMP file.")
  var screenshot: String?

  @MainActor
  func run() async throws {
    let windowed = !headless && DemoEnvironment.hasDisplay
    let context = try SDLContext(
      subsystems: [.video, .events], mode: windowed ? .windowed : .headless)
    defer { context.shutdown() }
    let canvas = try Canvas(
      title: "Foley demo", width: 800, height: 600, presentation: windowed ? .window : .offscreen)
    defer { canvas.close() }
    let game = BounceGame(size: Size(width: 800, height: 600))
    if windowed {
      print("foley-demo: windowed on video driver \(context.videoDriver ?? "?"); arrows move, Esc quits")
      game.runWindowed(canvas: canvas)
    } else {
      print(
        "foley-demo: no display (or --headless): running \(frames) frames headless on video driver "
          + "\(context.videoDriver ?? "?")")
      game.runHeadless(frames: frames, canvas: canvas)
    }
    if let screenshot {
      try canvas.saveScreenshot(to: screenshot)
      print("foley-demo: wrote \(screenshot)")
    }
    print("foley-demo: \(game.summary)")
  }
}

enum DemoEnvironment {
  /// Whether a windowed run can work here: a display server is named and no dummy video driver is
  /// forced.
  static var hasDisplay: Bool {
    let environment = ProcessInfo.processInfo.environment
    if let driver = environment["SDL_VIDEODRIVER"], ["dummy", "offscreen"].contains(driver) {
      return false
    }
    return environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil
  }
}
