internal import CFoleySDL2
import FoleyCore
public import FoleyScene
import Foundation

/// Where a scene is drawn: a real window, or an offscreen surface for headless runs and
/// screenshots. Both use SDL's renderer, so what a test captures is what a player sees.
///
/// ```swift
/// let canvas = try Canvas(title: "My game", width: 800, height: 600, presentation: .window)
/// canvas.draw(scene)
/// try canvas.saveScreenshot(to: "frame.bmp")
/// ```
@MainActor
public final class Canvas {
  /// Where the pixels go.
  public enum Presentation: Sendable {
    /// A visible, resizable window.
    case window
    /// An offscreen surface with SDL's software renderer; needs no display.
    case offscreen
  }

  public let width: Int32
  public let height: Int32
  public let presentation: Presentation
  /// The SDL window id, to match window events; nil offscreen.
  public let windowID: UInt32?

  private let window: OpaquePointer?
  private let surface: UnsafeMutablePointer<SDL_Surface>?
  let renderer: OpaquePointer
  private var isClosed = false

  /// - Throws: `SDLError` when the window, surface or renderer cannot be created.
  public init(title: String, width: Int32, height: Int32, presentation: Presentation) throws {
    self.width = width
    self.height = height
    self.presentation = presentation
    switch presentation {
    case .window:
      guard
        let window = SDL_CreateWindow(
          title, CFoleySDL2_WINDOWPOS_CENTERED(), CFoleySDL2_WINDOWPOS_CENTERED(), width, height,
          SDL_WINDOW_SHOWN.rawValue | SDL_WINDOW_RESIZABLE.rawValue)
      else { throw SDLError.fromSDL("SDL_CreateWindow") }
      guard
        let renderer = SDL_CreateRenderer(window, -1, SDL_RENDERER_PRESENTVSYNC.rawValue)
          ?? SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE.rawValue)
      else {
        let error = SDLError.fromSDL("SDL_CreateRenderer")
        SDL_DestroyWindow(window)
        throw error
      }
      // Draw in scene points whatever size the window is resized to.
      SDL_RenderSetLogicalSize(renderer, width, height)
      self.window = window
      self.surface = nil
      self.renderer = renderer
      self.windowID = SDL_GetWindowID(window)
    case .offscreen:
      guard
        let surface = SDL_CreateRGBSurfaceWithFormat(
          0, width, height, 32, SDL_PIXELFORMAT_ARGB8888.rawValue)
      else { throw SDLError.fromSDL("SDL_CreateRGBSurfaceWithFormat") }
      guard let renderer = SDL_CreateSoftwareRenderer(surface) else {
        let error = SDLError.fromSDL("SDL_CreateSoftwareRenderer")
        SDL_FreeSurface(surface)
        throw error
      }
      self.window = nil
      self.surface = surface
      self.renderer = renderer
      self.windowID = nil
    }
    SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_BLEND)
  }

  /// Clears to the scene's background and draws every visible sprite, then presents.
  public func draw(_ scene: Scene, overlay: ((Canvas) -> Void)? = nil) {
    guard !isClosed else { return }
    let background = scene.backgroundColor
    SDL_SetRenderDrawColor(
      renderer, Self.byte(background.red), Self.byte(background.green), Self.byte(background.blue), 255)
    SDL_RenderClear(renderer)
    SceneRenderer(renderer: renderer, sceneHeight: Double(height)).draw(scene)
    overlay?(self)
    SDL_RenderPresent(renderer)
  }

  /// Fills a rectangle in window pixels (y down), for HUDs.
  public func fillRect(x: Int32, y: Int32, width: Int32, height: Int32, color: Color) {
    SDL_SetRenderDrawColor(
      renderer, Self.byte(color.red), Self.byte(color.green), Self.byte(color.blue), Self.byte(color.alpha))
    var rect = SDL_Rect(x: x, y: y, w: width, h: height)
    SDL_RenderFillRect(renderer, &rect)
  }

  /// Writes the last drawn frame as a BMP file.
  /// - Throws: `SDLError` when the pixels cannot be read or the file cannot be written.
  public func saveScreenshot(to path: String) throws {
    guard
      let shot = SDL_CreateRGBSurfaceWithFormat(0, width, height, 32, SDL_PIXELFORMAT_ARGB8888.rawValue)
    else { throw SDLError.fromSDL("SDL_CreateRGBSurfaceWithFormat") }
    defer { SDL_FreeSurface(shot) }
    guard
      SDL_RenderReadPixels(
        renderer, nil, SDL_PIXELFORMAT_ARGB8888.rawValue, shot.pointee.pixels, shot.pointee.pitch) == 0
    else { throw SDLError.fromSDL("SDL_RenderReadPixels") }
    guard CFoleySDL2_SaveBMP(shot, path) == 0 else { throw SDLError.fromSDL("SDL_SaveBMP(\(path))") }
  }

  /// Destroys the renderer and the window or surface. Safe to call more than once.
  public func close() {
    guard !isClosed else { return }
    isClosed = true
    SDL_DestroyRenderer(renderer)
    if let window { SDL_DestroyWindow(window) }
    if let surface { SDL_FreeSurface(surface) }
  }

  static func byte(_ component: Double) -> UInt8 {
    UInt8(clamping: Int((min(max(component, 0), 1) * 255).rounded()))
  }
}
