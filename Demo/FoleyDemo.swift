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

  /// `--inspector` may come without its port (any free one): ArgumentParser's options always take
  /// a value, so a bare one gets "0" before parsing.
  static func main() async {
    var arguments = Array(CommandLine.arguments.dropFirst())
    if let index = arguments.firstIndex(of: "--inspector"),
      index + 1 == arguments.count || UInt16(arguments[index + 1]) == nil
    {
      arguments.insert("0", at: index + 1)
    }
    await main(arguments)
  }
}
