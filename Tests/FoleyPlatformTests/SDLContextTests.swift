import FoleyCore
import FoleyPlatform
import Foundation
import Testing

@MainActor
@Suite("SDL context", .serialized)
struct SDLContextTests {
  @Test("headless mode starts SDL audio and video on the dummy drivers and shuts down cleanly")
  func headlessInitAndShutdown() throws {
    let context = try SDLContext(subsystems: [.audio, .video, .events], mode: .headless)
    #expect(context.isRunning)
    // test.sh exports dummy drivers; a developer may choose disk or offscreen instead.
    let audio = try #require(context.audioDriver)
    let video = try #require(context.videoDriver)
    #expect(["dummy", "disk"].contains(audio))
    #expect(["dummy", "offscreen"].contains(video))
    context.shutdown()
    #expect(!context.isRunning)
    #expect(context.audioDriver == nil)
    #expect(context.videoDriver == nil)
    context.shutdown()  // idempotent
  }

  @Test("an audio driver that does not exist fails with SDL's message; SDL starts again afterwards")
  func unknownDriverFails() throws {
    // The environment outranks hints in SDL, so name the bad driver there, then put it back.
    let saved = getenv("SDL_AUDIODRIVER").map { String(cString: $0) }
    setenv("SDL_AUDIODRIVER", "no-such-driver", 1)
    defer {
      if let saved { setenv("SDL_AUDIODRIVER", saved, 1) } else { unsetenv("SDL_AUDIODRIVER") }
    }
    #expect {
      _ = try SDLContext(subsystems: [.audio], mode: .headless)
    } throws: { error in
      guard let error = error as? SDLError else { return false }
      return error.operation == "SDL_InitSubSystem" && error.message.contains("no-such-driver")
    }
    unsetenv("SDL_AUDIODRIVER")
    let context = try SDLContext(subsystems: [.audio], mode: .headless)
    #expect(context.audioDriver == "dummy")
    context.shutdown()
  }
}
