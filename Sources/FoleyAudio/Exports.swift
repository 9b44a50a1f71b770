// The core's shared types (`Point`, `Easing`, `Observation`) are part of the engine's API: a game
// that imports only the engine module names them without importing the core as well.
@_exported public import FoleyCore
