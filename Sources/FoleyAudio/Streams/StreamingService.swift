import CFoleyCodecs

/// One engine's streaming service: the helper process its music streams decode in (started at
/// the first stream), beside the process-wide service that decodes whole sounds. One per engine,
/// so that one engine's stuck stream never holds another's, and so that an engine closing can
/// give up on its own stuck read (100 ms of grace, then the service is killed) instead of waiting
/// out the read's timeout.
///
/// Invariant behind `@unchecked Sendable`: the C service has its own lock and atomics, and lives
/// as long as this object, which every stream opened in it keeps alive.
package final class StreamingService: @unchecked Sendable {
  /// The C service handed to `foley_remote_open` (nil only if it could not be allocated: then
  /// streams decode in this process).
  package let handle: OpaquePointer?

  package init() {
    SoundDecoder.locateServiceExecutable()
    handle = foley_streaming_make()
  }

  /// Gives up on every request, now and from now on: the engine is closing.
  package func cancel() { foley_streaming_cancel(handle) }

  /// Stops the service process (killed if it still runs); its streams' reads fail from then on.
  package func stop() { foley_streaming_stop(handle) }

  /// Starts the service now, on the calling thread, unless it runs: so that a track prepared
  /// ahead starts without waiting for the service's start (about 20 ms). Whether it runs.
  @discardableResult
  package func prewarm() -> Bool { foley_streaming_prewarm(handle, SoundDecoder.childMemoryLimit) == 0 }

  /// The service's process id while it runs, 0 otherwise. Never waits for a request.
  package var processID: Int32 { foley_streaming_pid(handle) }

  /// Stream reads waiting for the service's answer now (0 or 1). Never waits for a request.
  package var readsWaiting: Int { Int(foley_streaming_reads_waiting(handle)) }

  deinit { foley_streaming_free(handle) }
}
