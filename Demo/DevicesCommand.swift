import ArgumentParser
import Foley
import Foundation

/// `foley-demo devices`: the output devices the engine can play on (the default marked) and the
/// capture devices the recorder can record from.
struct DevicesCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "devices", abstract: "List the audio output and capture devices SDL reports.")

  @MainActor
  func run() async throws {
    let engine = try AudioEngine.forTool("foley.devices")
    defer { engine.close() }
    print(engine.deviceLine)
    let outputs = engine.outputDevices
    print("output devices (\(outputs.count)):")
    for device in outputs { print("  \(device)") }
    if outputs.isEmpty {
      print("  none listed (the \(engine.deviceFormat.driver) driver plays on its default only)")
    }
    let captures = AudioRecorder.captureDevices()
    print("capture devices (\(captures.count)):")
    for name in captures { print("  \(name)") }
  }
}
