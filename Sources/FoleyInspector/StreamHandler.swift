import FlyingFox
import Foundation

/// One WebSocket client: a report every interval out, commands in.
struct StreamHandler: WSMessageHandler {
  let inspector: InspectorServer

  func makeMessages(for client: AsyncStream<WSMessage>) async throws -> AsyncStream<WSMessage> {
    let (messages, output) = AsyncStream<WSMessage>.makeStream()
    let interval = Duration.milliseconds(
      Int(inspector.options.interval.clamped(to: 0.05...5, or: 0.05) * 1_000))
    let sender = Task { [inspector] in
      let encoder = JSONEncoder()
      while !Task.isCancelled {
        if let data = try? encoder.encode(await inspector.reportOffPool()) {
          output.yield(.text(String(decoding: data, as: UTF8.self)))
        }
        try? await Task.sleep(for: interval)
      }
    }
    Task { [inspector] in
      for await message in client {
        let reply: String
        switch message {
        case .text(let text):
          do throws(InspectorError) {
            reply =
              "{\"ok\":" + quoted(try inspector.perform(try InspectorCommand(json: Array(text.utf8)))) + "}"
          } catch {
            reply = "{\"error\":" + quoted(error.description) + "}"
          }
        case .data:
          reply = "{\"error\":" + quoted("commands are JSON text, not binary") + "}"
        case .close:
          continue
        }
        output.yield(.text(reply))
      }
      sender.cancel()
      output.finish()
    }
    return messages
  }

  private func quoted(_ text: String) -> String {
    String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
  }
}
