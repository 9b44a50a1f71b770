// A scene's positions and offsets (`Point`, `Vector`) are the core's, shared with the engine's
// spatial API and its acoustics: a game that imports the scene module names them as before.
@_exported public import FoleyCore
