// The umbrella module: `import Foley` brings in the foundation, scene, session, engine, music, scene bridge,
// sound map, recording and platform modules (never the C modules, which stay behind
// `internal import`; never FoleySpeech, which is GPL, nor FoleyAudioTesting, which is for tests
// and tools), and Foundation, as `import SpriteKit` does: a ported scene's `TimeInterval`, `URL`
// and `Data` need nothing more.

@_exported public import FoleyAudio
@_exported public import FoleyCore
@_exported public import FoleyMusic
@_exported public import FoleyPlatform
@_exported public import FoleyRecording
@_exported public import FoleyScene
@_exported public import FoleySceneAudio
@_exported public import FoleySession
@_exported public import FoleySoundMap
@_exported public import Foundation
