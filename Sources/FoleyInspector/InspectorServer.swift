import FlyingFox
import FlyingSocks
public import FoleyAudio
import FoleyCore
import FoleyMusic
public import FoleySoundMap
public import Foundation
import Synchronization

/// The browser inspector: an HTTP server in the game's process that serves one page showing every
/// voice, bus meter, the spectrum, the music and the sound map's event log of the running game,
/// streamed live over a WebSocket, and lets a sound designer move bus volumes and mutes and post
/// sound-map events from the page when the game allows it.
///
/// It listens on 127.0.0.1 only (unless the game binds elsewhere explicitly) and answers only
/// requests that carry its token, a random 128-bit value in the URL it prints. It is built on
/// FlyingFox (Swift Concurrency, no SwiftNIO: small and quick to build), and is its own product:
/// a game that does not import `FoleyInspector` links none of it.
///
/// One thread of its own owns the port: a front door that caps connections
/// (``Options/maximumConnections``), wants each request whole within ``Options/requestTimeout``,
/// limits lines, heads, bodies and WebSocket messages, and closes a WebSocket on an unmasked
/// frame; what passes goes to FlyingFox on a Unix socket only this user can open. FlyingFox
/// answers from Swift concurrency's shared thread pool (as wide as the machine has cores): while
/// a game keeps every thread of that pool blocked — synchronous waits inside tasks — the page
/// waits with it, and answers when a thread comes free. The game loop, the mixer and the engine's
/// queues do not use that pool.
///
/// ```swift
/// let inspector = InspectorServer(engine: engine, soundMap: map, options: .init(port: 8_765, allowsControl: true))
/// let url = try inspector.start()
/// print("inspector: \(url)")          // http://127.0.0.1:8765/?token=…
/// // … the game runs; its scene (or EventPump) drains the engine's mailbox each frame …
/// inspector.stop()
/// ```
///
/// Routes (each needs `?token=`): `/` the page, `/snapshot.json` one ``InspectorReport``,
/// `/stream` a WebSocket that sends a report every ``Options/interval`` seconds and takes
/// ``InspectorCommand``s, `POST /control` one command; with a sound map, `/map.json` its entries
/// (``InspectorMapState``), `POST /map/event?name=&version=` an edit of one entry (409 when the
/// map changed since that version, 400 with the parser's errors), `POST /map/mix?version=` the
/// buses' levels into the map's `mix` section, `POST /map/save` (only with
/// ``Options/allowsSaving``; 409 when the file changed on disk) and `POST /map/reload`. Requests
/// without the right token get 403,
/// peers other than loopback (when bound to loopback) are closed at once, bad commands an error
/// message and nothing else: the game plays on.
public final class InspectorServer: Sendable {
  /// Where and how it serves.
  public struct Options: Sendable {
    /// The port; 0 picks a free one (read it from the URL ``start()`` returns).
    public var port: UInt16
    /// The IPv4 address it binds: loopback unless the game explicitly wants it reachable from
    /// elsewhere (the token is then all that guards it).
    public var host: String
    /// Whether the page may change bus volumes and mutes, post events and edit the sound map's
    /// entries in the running game.
    public var allowsControl: Bool
    /// Whether the page may save the edited sound map over its file (the only file the
    /// inspector ever writes, through a temporary file and a rename, keeping a `.bak`).
    public var allowsSaving: Bool
    /// Seconds between the reports the WebSocket sends (0.05…5).
    public var interval: Double
    /// Connections held at once. Past it, the oldest connection that has not sent its whole
    /// request is closed to make room; when every held connection is in use, the new one is
    /// answered 503.
    public var maximumConnections: Int
    /// Seconds a client has to send its whole request (0.1…600); 408 after it.
    public var requestTimeout: Double

    public init(
      port: UInt16 = 0, host: String = "127.0.0.1", allowsControl: Bool = false, allowsSaving: Bool = false,
      interval: Double = 0.1, maximumConnections: Int = 64, requestTimeout: Double = 10
    ) {
      self.port = port
      self.host = host
      self.allowsControl = allowsControl
      self.allowsSaving = allowsSaving
      self.interval = interval
      self.maximumConnections = maximumConnections
      self.requestTimeout = requestTimeout
    }
  }

  /// The token every request must carry (`?token=`).
  public let token: String
  public let options: Options
  let engine: AudioEngine
  /// The sound map the page reads, edits and posts to, if any.
  let soundMap: SoundMap?
  private let gameThreadView = Locked<GameThreadView>(GameThreadView())
  /// The sound map's entries as last listed for the page, with the map's version then.
  let listingCache = Locked<(version: Int, entries: [String: String])?>(nil)
  private let running = Locked<Running?>(nil)
  private let hasWaitedForGameThread = Atomic<Bool>(false)
  /// Where reports are made (see ``reportOffPool()``).
  private let reportQueue = DispatchQueue(label: "foley.inspector.report")

  /// What only the game thread may read (the music player, the sound map), as it last read it.
  private struct GameThreadView: Sendable {
    var music: MusicSnapshot?
    var events: [PostedEvent] = []
    var reloads: [SoundMapReload] = []
    var isRefreshing = false
    var hasBeenRead = false
  }

  private struct Running: Sendable {
    let server: HTTPServer
    let task: Task<Void, any Error>
    let front: InspectorGuard
    let directory: String
    let url: URL
  }

  public init(engine: AudioEngine, soundMap: SoundMap? = nil, options: Options = Options()) {
    self.engine = engine
    self.soundMap = soundMap
    self.options = options
    var random = SystemRandomNumberGenerator()
    token = (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &random)) }
      .joined()
  }

  /// The page's address with its token, once started.
  public var url: URL? { running.withLock { $0?.url } }

  /// Starts serving and returns the page's address, with its token.
  /// - Throws: ``InspectorError/cannotStart(_:)`` when the address is not an IPv4 address or
  ///   the port cannot be bound.
  @discardableResult
  public func start() throws(InspectorError) -> URL {
    if let url { return url }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = options.port.bigEndian
    guard inet_pton(AF_INET, options.host, &address.sin_addr) == 1 else {
      throw .cannotStart("\"\(options.host)\" is not an IPv4 address")
    }
    let listener = try Self.listen(on: address, description: "\(options.host):\(options.port)")
    let directory: String
    do {
      directory = try Self.privateDirectory()
    } catch {
      close(listener)
      throw error
    }
    let socketPath = directory + "/http"
    // A handler's own time limit (slow clients are the front door's to time out): a report on a
    // machine starved by other work can take seconds, and an answer late is better than a 500.
    let server = HTTPServer(address: sockaddr_un.unix(path: socketPath), timeout: 60, logger: .disabled)
    let started = StartResult()
    let task = Task {
      await server.appendRoute("GET /", to: guarded { [self] _ in page() })
      await server.appendRoute(
        "GET /snapshot.json", to: guarded { [self] _ in try json(await reportOffPool()) })
      await server.appendRoute("POST /control", to: guarded { [self] request in try await control(request) })
      await server.appendRoute("GET /map.json", to: guarded { [self] request in await mapState(request) })
      await server.appendRoute(
        "POST /map/event", to: guarded { [self] request in try await editEvent(request) })
      await server.appendRoute("POST /map/mix", to: guarded { [self] request in try await editMix(request) })
      await server.appendRoute("POST /map/save", to: guarded { [self] request in await saveMap(request) })
      await server.appendRoute("POST /map/reload", to: guarded { [self] request in await reloadMap(request) })
      await server.appendRoute(
        "GET /stream",
        to: guarded { request in
          try await WebSocketHTTPHandler.webSocket(StreamHandler(inspector: self)).handleRequest(request)
        })
      // Every other path and method, last: the token first, so that a client without it cannot
      // tell the routes from the paths that do not exist.
      await server.appendRoute(
        "/*", to: guarded { _ in HTTPResponse(statusCode: .notFound, body: Data("not found\n".utf8)) })
      try await server.run()
    }
    let listening = Task {
      do {
        try await server.waitUntilListening(timeout: 5)
        started.finish(await server.listeningAddress)
      } catch {
        started.finish(nil)
      }
    }
    guard started.wait() != nil else {
      task.cancel()
      listening.cancel()
      close(listener)
      Self.removeDirectory(directory)
      throw .cannotStart("the HTTP server did not start on \(socketPath)")
    }
    var limits = GuardLimits()
    limits.maximumConnections = max(1, options.maximumConnections)
    limits.requestTimeout = options.requestTimeout.clamped(to: 0.1...600, or: 10)
    limits.loopbackOnly = options.host.hasPrefix("127.")
    let front: InspectorGuard
    do {
      front = try InspectorGuard(listener: listener, upstream: socketPath, limits: limits)
    } catch {
      task.cancel()
      Self.removeDirectory(directory)
      throw error
    }
    var bound = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &bound) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
    }
    let url = URL(string: "http://\(options.host):\(UInt16(bigEndian: bound.sin_port))/?token=\(token)")!
    running.withLock {
      $0 = Running(server: server, task: task, front: front, directory: directory, url: url)
    }
    return url
  }

  /// Stops serving and closes every connection.
  public func stop() {
    guard
      let running = running.withLock({ state -> Running? in
        defer { state = nil }
        return state
      })
    else { return }
    running.front.stop()
    running.task.cancel()
    Self.removeDirectory(running.directory)
  }

  deinit { stop() }

  /// A listening IPv4 socket bound to `address` (non-blocking, close-on-exec).
  private static func listen(on address: sockaddr_in, description: String) throws(InspectorError) -> Int32 {
    let socket = SystemCall.streamSocket(domain: AF_INET, nonBlocking: true)
    guard socket >= 0 else { throw .cannotStart("cannot make a socket: \(String(cString: strerror(errno)))") }
    var yes: Int32 = 1
    setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = address
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, SystemCall.listen(socket, 128) == 0 else {
      let reason = String(cString: strerror(errno))
      close(socket)
      throw .cannotStart("cannot listen on \(description): \(reason) (is the port taken?)")
    }
    return socket
  }

  /// A fresh directory only this user can enter, for the server's Unix socket.
  private static func privateDirectory() throws(InspectorError) -> String {
    var template = Array((NSTemporaryDirectory() + "/foley-inspector-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else {
      throw .cannotStart("cannot make a private directory: \(String(cString: strerror(errno)))")
    }
    return String(cString: made)
  }

  private static func removeDirectory(_ directory: String) {
    unlink(directory + "/http")
    rmdir(directory)
  }

  // MARK: - Requests

  /// Wraps a route's handler in the token and address checks.
  private func guarded(
    _ body: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
  ) -> ClosureHTTPHandler {
    ClosureHTTPHandler { [self] request in
      guard accepts(request) else {
        return HTTPResponse(statusCode: .forbidden, body: Data("forbidden: a token is needed\n".utf8))
      }
      return try await body(request)
    }
  }

  /// The token matches (compared in constant time). (Which peers may connect at all is the front
  /// door's check: a loopback-bound server serves only loopback peers.)
  func accepts(_ request: HTTPRequest) -> Bool {
    let given = Array((request.query["token"] ?? "").utf8)
    let wanted = Array(token.utf8)
    var difference = given.count ^ wanted.count
    for index in wanted.indices {
      difference |= Int(wanted[index] ^ (index < given.count ? given[index] : 0))
    }
    return difference == 0
  }

  private func page() -> HTTPResponse {
    HTTPResponse(
      statusCode: .ok,
      headers: [.contentType: "text/html; charset=utf-8", .init("Cache-Control"): "no-store"],
      body: Data(InspectorPage.html.utf8))
  }

  private func json(_ report: InspectorReport) throws -> HTTPResponse {
    HTTPResponse(
      statusCode: .ok, headers: [.contentType: "application/json", .init("Cache-Control"): "no-store"],
      body: try JSONEncoder().encode(report))
  }

  /// The engine's snapshot now, with the game thread's part as last read (a fresh read is
  /// asked for: it arrives at the game's next mailbox drain). The first report waits for that
  /// read (up to half a second, once), so a page does not start without the music and events.
  /// ``report()``, made on a dispatch queue of its own: it waits on the engine's audio queue (and
  /// at first on the game thread), and a thread of Swift's cooperative pool blocked meanwhile —
  /// there are as many as cores, two here — would stall every other connection's task with it.
  func reportOffPool() async -> InspectorReport {
    await withCheckedContinuation { continuation in
      reportQueue.async { continuation.resume(returning: self.report()) }
    }
  }

  func report() -> InspectorReport {
    refreshGameThreadView()
    if !hasWaitedForGameThread.exchange(true, ordering: .relaxed) {
      let deadline = DispatchTime.now() + 0.5
      while gameThreadView.withLock({ !$0.hasBeenRead }), DispatchTime.now() < deadline {
        usleep(2_000)
      }
    }
    let view = gameThreadView.withLock { $0 }
    return InspectorReport(
      audio: engine.inspector.snapshot(), music: view.music, events: view.events, reloads: view.reloads,
      controlsEnabled: options.allowsControl)
  }

  private func refreshGameThreadView() {
    let asked = gameThreadView.withLock { view in
      defer { view.isRefreshing = true }
      return !view.isRefreshing
    }
    guard asked else { return }
    engine.session.mailbox.post { [engine, soundMap, gameThreadView] in
      let music = engine.musicState.player.withLock { $0 }?.inspection
      let events = soundMap?.recentEvents ?? []
      let reloads = soundMap?.reloads ?? []
      gameThreadView.withLock {
        $0 = GameThreadView(
          music: music, events: events, reloads: reloads, isRefreshing: false, hasBeenRead: true)
      }
    }
  }
}

/// The listening address, handed from the task that waits for it to the caller of `start()`.
private final class StartResult: Sendable {
  private let result = Locked<(done: Bool, address: Socket.Address?)>((false, nil))
  private let semaphore = DispatchSemaphore(value: 0)

  func finish(_ address: Socket.Address?) {
    result.withLock { $0 = (true, address) }
    semaphore.signal()
  }

  func wait() -> Socket.Address? {
    semaphore.wait()
    return result.withLock { $0.address }
  }
}
