// The umbrella module: `import Foley` brings in the scene, session, audio, recording and platform
// modules (never the C modules, which stay behind `internal import`).
@_exported public import FoleyAudio
@_exported public import FoleyPlatform
@_exported public import FoleyRecording
@_exported public import FoleyScene
@_exported public import FoleySession
