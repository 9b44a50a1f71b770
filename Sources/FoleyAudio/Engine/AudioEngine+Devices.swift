/// Choosing the output device, and moving to another while everything plays.
extension AudioEngine {
  /// The output devices there are, as SDL reports them (a driver that cannot enumerate, such as
  /// the dummy and disk drivers, reports one or none).
  ///
  /// ```swift
  /// let names = engine.outputDevices.map(\.name)
  /// ```
  public var outputDevices: [AudioDevice] { core.syncOnQueue { core.backend.outputDevices() } }

  /// The device the engine plays on, by name; nil for the system default (also after a lost
  /// device was replaced by the default).
  public var outputDeviceName: String? { core.outputDeviceName.withLock { $0 } }

  /// Moves the output to the device named `name` (nil: the system default) while everything
  /// plays: each voice, stream and music track continues at the frame it had reached (with the
  /// engine's de-click ramp in), nothing is restarted or dropped. The device must open in the
  /// engine's format (SDL converts for the hardware, so it nearly always does).
  ///
  /// ```swift
  /// try engine.switchOutput(to: "USB Headset Analog Stereo")
  /// try engine.switchOutput(to: nil)    // back to the default
  /// ```
  /// - Throws: ``AudioDeviceError/notFound(_:available:)`` for a name SDL does not list (nothing
  ///   changes), ``AudioDeviceError/cannotOpen(_:_:)`` when it does not open (the output goes back
  ///   to the device it was on), ``AudioDeviceError/closed`` after ``close()``.
  public func switchOutput(to name: String?) throws(AudioDeviceError) {
    guard !isClosed else { throw .closed }
    if let name {
      let available = outputDevices.map(\.name)
      guard available.contains(name) else { throw .notFound(name, available: available) }
    }
    let (failure, hasDevice) = core.syncOnQueue { (core.switchDevice(to: name), core.state.hasDevice) }
    // Without any device (not even the one before), the engine is as after a loss: silent, its
    // voices kept, waiting for a device to be added.
    if hasDevice { clearDeviceLost() } else { addDeviceLost() }
    if let failure { throw .cannotOpen(name ?? "default", failure) }
  }
}
