// The embedded mixer (`EmbeddedMixer`, `AudioEngine(embedded:)`) is the core's own offline
// device, in FoleyAudio, where the offline renderer stands on it too. This module re-exports
// the core so that tests written against it keep building; new tests import FoleyAudio.
@_exported public import FoleyAudio
