import ArgumentParser
import Foley

/// `foley-demo`: the demo game and its command-line tools.
@main
struct FoleyDemo: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "foley-demo",
    abstract: "The Foley demo: a scene with sound, and tools that exercise the sound system.",
    subcommands: [
      RunScene.self, PlayCommand.self, MusicCommand.self, SayCommand.self, SoundMapCommand.self,
      RecordCommand.self, RenderCommand.self, DevicesCommand.self, LoudnessCommand.self,
    ],
    defaultSubcommand: RunScene.self
  )
}
