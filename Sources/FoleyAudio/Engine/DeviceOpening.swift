import FoleyCore
import Logging

/// The output device as the engine opened it.
struct OpenedDevice: Sendable {
  /// The format the mix runs in, with the driver's name (`"none"` without a device).
  var format: AudioDeviceFormat
  /// Whether a device is open (SDL's dummy driver counts: it keeps time).
  var hasDevice: Bool
  /// Whether SDL's dummy driver stands in for a device that would not open.
  var fellBack: Bool
  /// Why the device asked for did not open, nil when it did.
  var error: SDLError?
}

/// Opening the engine's output device, with its fallbacks: as the engine opens, or on the audio
/// queue when the first sound is served (``AudioConfiguration/opensDeviceAtFirstSound``).
enum DeviceOpening {
  /// Opens the configured device. If it does not open and nobody else uses SDL audio, SDL
  /// restarts on its dummy driver, which keeps time, so sounds still end on time; if someone
  /// else holds SDL audio (switching its driver would take their device away), the engine runs
  /// without a device and tries again when one is added.
  /// - Throws: ``AudioEngineError/noAudio(_:)`` when not even the dummy driver opens.
  static func open(
    _ configuration: AudioConfiguration, backend: any MixerBackend, sdlBackend: SDLMixerBackend?,
    logger: Logger
  ) throws(AudioEngineError) -> OpenedDevice {
    do {
      let format = try backend.open(configuration, deviceName: configuration.deviceName)
      return OpenedDevice(format: format, hasDevice: true, fellBack: false)
    } catch {
      if let sdlBackend, sdlBackend.wasSoleAudioUser {
        logger.warning("no audio device (\(error)); running silent on SDL's dummy audio driver")
        do {
          try sdlBackend.switchToDummyDriver()
          let format = try backend.open(configuration, deviceName: nil)
          return OpenedDevice(format: format, hasDevice: true, fellBack: true, error: error)
        } catch {
          throw .noAudio(error)
        }
      }
      logger.warning("no audio device (\(error)); running silent until a device is added")
      return OpenedDevice(
        format: waiting(configuration, driver: "none"), hasDevice: false, fellBack: false, error: error)
    }
  }

  /// Opens the device for the first sound: as ``open(_:backend:sdlBackend:logger:)``, except
  /// that when not even the dummy driver opens, the engine (already in the game's hands) runs
  /// without a device rather than throwing.
  static func openForFirstSound(
    _ configuration: AudioConfiguration, backend: any MixerBackend, sdlBackend: SDLMixerBackend?,
    logger: Logger
  ) -> OpenedDevice {
    do {
      return try open(configuration, backend: backend, sdlBackend: sdlBackend, logger: logger)
    } catch {
      let reason: SDLError
      switch error {
      case .noAudio(let sdl): reason = sdl
      default: reason = SDLError(operation: "Mix_OpenAudioDevice", message: "\(error)")
      }
      logger.error("\(error); running without a device")
      return OpenedDevice(
        format: waiting(configuration, driver: "none"), hasDevice: false, fellBack: false, error: reason)
    }
  }

  /// The format the device will open in (no format changes are allowed: SDL converts for the
  /// hardware), named after `driver`.
  static func waiting(_ configuration: AudioConfiguration, driver: String) -> AudioDeviceFormat {
    AudioDeviceFormat(
      driver: driver, sampleRate: configuration.sampleRate, sampleFormat: configuration.sampleFormat,
      channels: configuration.channels, bufferFrames: configuration.bufferFrames)
  }
}
