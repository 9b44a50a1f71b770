import ArgumentParser
import Foley
import FoleyCore

/// `foley-demo`: the demo game and its command-line tools.
@main
struct FoleyDemo: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "foley-demo",
    abstract: "The Foley demo: a scene with sound, and tools that exercise the sound system.",
    subcommands: [
      RunScene.self, PlayCommand.self, MusicCommand.self, SayCommand.self, SoundMapCommand.self,
      RecordCommand.self, RenderCommand.self, DevicesCommand.self, LoudnessCommand.self,
      CalibrateCommand.self, RhythmCommand.self, CaptureTool.self,
    ],
    defaultSubcommand: RunScene.self
  )

  /// The least address space the demo runs in: measured, a headless run with music and speech
  /// holds in 384 MiB, and at 330 MiB the check of a music track fails to allocate.
  static let minimumAddressSpace = 384 << 20

  /// `--inspector` may come without its port (any free one): ArgumentParser's options always take
  /// a value, so a bare one gets "0" before parsing.
  static func main() async {
    // A line at a time, also into a pipe: a tool or a test reading the demo's output sees each
    // line as it is printed, not all of them at exit.
    SystemCall.lineBufferStandardOutput()
    // glibc reserves 64 MiB of address space for each malloc arena, up to eight per core: on two
    // cores, about 600 MiB reserved and never used, which is what an address-space limit
    // (`ulimit -v`) counts. Two arenas are plenty for a game's threads; with more, a limit that
    // leaves the game ample memory still failed allocations at random.
    SystemCall.limitMallocArenas(to: 2)
    // Swift stops the process on a failed allocation, and the libraries alone (Foundation, ICU,
    // SDL, the codecs) map about 150 MiB: under a limit that cannot hold the demo, say so and
    // stop, rather than crash wherever the first allocation fails.
    if let limit = SystemCall.addressSpaceLimit, limit < minimumAddressSpace {
      FileHandle.standardError.write(
        Data(
          ("foley-demo: the address-space limit (ulimit -v) is \(limit >> 20) MiB; the demo needs at least "
            + "\(minimumAddressSpace >> 20) MiB (raise it with ulimit -v \(minimumAddressSpace >> 10))\n")
            .utf8))
      Foundation.exit(1)
    }
    var arguments = Array(CommandLine.arguments.dropFirst())
    if let index = arguments.firstIndex(of: "--inspector"),
      index + 1 == arguments.count || UInt16(arguments[index + 1]) == nil
    {
      arguments.insert("0", at: index + 1)
    }
    await main(arguments)
  }
}
