import FlyingFox
import FoleyAudio
import FoleySoundMap
import Foundation

// The page's commands: bus volumes, mutes and solos, mix snapshots, and posts to the sound map.
extension InspectorServer {
  func control(_ request: HTTPRequest) async throws -> HTTPResponse {
    let body = try await request.bodyData
    do throws(InspectorError) {
      let reply = try perform(try InspectorCommand(json: body.prefix(InspectorCommand.maximumSize + 1)))
      return HTTPResponse(statusCode: .ok, body: Data((reply + "\n").utf8))
    } catch {
      let status: HTTPStatusCode = if case .notFound = error { .notFound } else { .badRequest }
      return HTTPResponse(statusCode: status, body: Data((error.description + "\n").utf8))
    }
  }

  /// Carries out `command`; returns what it did.
  /// - Throws: ``InspectorError/controlsDisabled`` unless the game allows control,
  ///   ``InspectorError/badCommand(_:)`` for a bus that does not exist or a post naming a
  ///   parameter or value its event does not read, ``InspectorError/notFound(_:)`` for a post of
  ///   an event the map does not have (each with the nearest name).
  @discardableResult
  public func perform(_ command: InspectorCommand) throws(InspectorError) -> String {
    guard options.allowsControl else { throw .controlsDisabled }
    switch command {
    case .volume(let bus, let volume):
      try checkBus(bus)
      if bus == "master" {
        engine.masterVolume = volume
      } else {
        engine.bus(SoundCategory(bus)).volume = volume
      }
      return "volume of \(bus): \(volume)"
    case .mute(let bus, let muted):
      try checkBus(bus)
      if bus == "master" { engine.isMuted = muted } else { engine.bus(SoundCategory(bus)).isMuted = muted }
      return "\(bus) \(muted ? "muted" : "unmuted")"
    case .solo(let bus, let soloed):
      try checkBus(bus)
      guard bus != "master" else { throw .badCommand("the master cannot be soloed") }
      engine.bus(SoundCategory(bus)).isSoloed = soloed
      return "\(bus) \(soloed ? "soloed" : "no longer soloed")"
    case .post(let event, let parameters, let position):
      guard let soundMap else {
        throw .badCommand("no sound map is inspected: nothing to post \"\(event)\" to")
      }
      // Checked here, so the reply tells the truth: an unknown event, parameter or value is
      // refused with the nearest name rather than posted to play nothing or a default.
      do throws(SoundMapAuditionError) {
        try soundMap.checkAudition(event, parameters: parameters)
      } catch {
        if case .unknownEvent = error { throw .notFound(error.description) }
        throw .badCommand(error.description)
      }
      engine.session.mailbox.post { _ = try? soundMap.audition(event, parameters: parameters, at: position) }
      let given = parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
      return "posted \(event)" + (given.isEmpty ? "" : " (\(given.joined(separator: ", ")))")
        + (position.map { " at \($0)" } ?? "")
    case .snapshot(let name, let intensity, let seconds):
      do {
        try engine.applySnapshot(name, intensity: intensity, tween: Tween(duration: seconds))
      } catch {
        throw .badCommand("\(error)")
      }
      return intensity == 0
        ? "released \(name)" : "snapshot \(name) at \(intensity)" + (seconds > 0 ? " over \(seconds) s" : "")
    }
  }

  /// Only buses that exist: a name from the page never makes one.
  private func checkBus(_ name: String) throws(InspectorError) {
    guard name == "master" || engine.core.busIndices.withLock({ $0[SoundCategory(name)] != nil }) else {
      throw .badCommand("no bus named \"\(name)\"")
    }
  }
}
