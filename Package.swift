// swift-tools-version: 6.1
import PackageDescription

/// The POSIX platform seam instead of Linux's own calls, for testing on Linux the path every other
/// platform takes (see the Platforms article): `FOLEY_PORTABLE=1 swift build`.
let portableSettings: [CSetting] =
  Context.environment["FOLEY_PORTABLE"] == "1" ? [.define("FOLEY_PORTABLE")] : []

/// One set of Swift settings for every Foley target, so the language mode and the
/// strictness cannot drift between modules.
let swiftSettings: [SwiftSetting] = [
  .swiftLanguageMode(.v6),
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
]

/// A system library found through pkg-config, with the Debian package (apt) and the Homebrew
/// formula (brew) that provide it. The names carry a Foley prefix so they cannot clash with a host
/// package's own `CSDL2`-style targets.
func systemLibrary(_ name: String, pkgConfig: String, apt: String, brew: String) -> Target {
  .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt([apt]), .brew([brew])])
}

let package = Package(
  name: "Foley",
  products: [
    .library(name: "Foley", targets: ["Foley"]),
    .library(name: "FoleyScene", targets: ["FoleyScene"]),
    .library(name: "FoleyCore", targets: ["FoleyCore"]),
    .library(name: "FoleySession", targets: ["FoleySession"]),
    .library(name: "FoleyAudio", targets: ["FoleyAudio"]),
    .library(name: "FoleyMusic", targets: ["FoleyMusic"]),
    .library(name: "FoleySceneAudio", targets: ["FoleySceneAudio"]),
    .library(name: "FoleySoundMap", targets: ["FoleySoundMap"]),
    // For tests: re-exports the core and its embedded mixer (driven by hand, as swift-nio ships
    // NIOEmbedded); production code imports FoleyAudio itself.
    .library(name: "FoleyAudioTesting", targets: ["FoleyAudioTesting"]),
    .library(name: "FoleyRecording", targets: ["FoleyRecording"]),
    // Rendering a game's sound to a file without a device, faster than real time, deterministic.
    .library(name: "FoleyOffline", targets: ["FoleyOffline"]),
    .library(name: "FoleyPlatform", targets: ["FoleyPlatform"]),
    // Speech on espeak-ng, which is GPL-3: its own product, outside the `Foley` umbrella, so a
    // game that does not import it links none of it.
    .library(name: "FoleySpeech", targets: ["FoleySpeech"]),
    // The browser inspector: an HTTP server (FlyingFox) in the game's process, so its own product,
    // outside the `Foley` umbrella: a game that does not import it links none of it.
    .library(name: "FoleyInspector", targets: ["FoleyInspector"]),
    .executable(name: "foley-demo", targets: ["FoleyDemo"]),
    .executable(name: "foley-bench", targets: ["FoleyBench"]),
    .executable(name: "foley-fuzz", targets: ["FoleyFuzz"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    // `swift package generate-documentation` (Scripts/docs.sh); a plugin, linked into nothing.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    // The inspector's HTTP and WebSocket server: small, Swift Concurrency only, no SwiftNIO (a
    // clean build of Hummingbird and its NIO stack takes minutes on CI's two cores).
    .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
  ],
  targets: [
    // C boundary: Debian's -dev packages, found through pkg-config.
    systemLibrary("CFoleySDL2", pkgConfig: "sdl2", apt: "libsdl2-dev", brew: "sdl2"),
    systemLibrary("CFoleySDL2Mixer", pkgConfig: "SDL2_mixer", apt: "libsdl2-mixer-dev", brew: "sdl2_mixer"),
    systemLibrary("CFoleyVorbisFile", pkgConfig: "vorbisfile", apt: "libvorbis-dev", brew: "libvorbis"),
    systemLibrary("CFoleyOpusFile", pkgConfig: "opusfile", apt: "libopusfile-dev", brew: "opusfile"),
    systemLibrary("CFoleyFLAC", pkgConfig: "flac", apt: "libflac-dev", brew: "flac"),
    systemLibrary("CFoleyMpg123", pkgConfig: "libmpg123", apt: "libmpg123-dev", brew: "mpg123"),
    systemLibrary("CFoleyEspeak", pkgConfig: "espeak-ng", apt: "libespeak-ng-dev", brew: "espeak-ng"),
    systemLibrary(
      "CFoleySamplerate", pkgConfig: "samplerate", apt: "libsamplerate0-dev", brew: "libsamplerate"),
    systemLibrary("CFoleyEBUR128", pkgConfig: "libebur128", apt: "libebur128-dev", brew: "libebur128"),
    systemLibrary("CFoleyCrypto", pkgConfig: "libcrypto", apt: "libssl-dev", brew: "openssl@3"),
    // kissfft without pkg-config: its .pc file only adds -D flags (the float build, which the shim
    // defines itself) that SwiftPM would warn about on every build.
    .systemLibrary(name: "CFoleyKissFFT", providers: [.apt(["libkissfft-dev"]), .brew(["kissfft"])]),
    // Every decoder behind one C interface (see include/foley_codecs.h).
    .target(
      name: "CFoleyCodecs",
      dependencies: [
        "CFoleySDL2", "CFoleyVorbisFile", "CFoleyOpusFile", "CFoleyFLAC", "CFoleyMpg123", "CFoleyEBUR128",
        "CFoleySamplerate",
      ],
      // The decoders' fault injection is read from the environment in debug builds (the tests')
      // only: see foley_decoder_faults() in codec_internal.h. FOLEY_PORTABLE=1 in the build's
      // environment selects the POSIX platform seam on Linux too (foley_platform.h).
      cSettings: [.define("FOLEY_TEST_SEAMS", .when(configuration: .debug))] + portableSettings
    ),
    // The mixing thread's code in C: its widest loops in AVX, chosen at run time, and the marker
    // around each render that tools count its allocations by (see include/foley_dsp.h).
    .target(name: "CFoleyDSP"),
    // The offline renderer: a scene and its engine on the embedded mixer, stepped with a fixed
    // time step, written to WAV with its SHA-256.
    .target(
      name: "FoleyOffline",
      dependencies: [
        "FoleyAudio", "FoleyCore", "FoleySession", "FoleyRecording", "CFoleyCrypto",
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: swiftSettings
    ),

    // The scene graph and its actions; from the foundation it takes only the easing curves its
    // actions share with the engine's tweens.
    .target(
      name: "FoleyScene",
      dependencies: ["FoleyCore"],
      swiftSettings: swiftSettings
    ),
    // The foundation every other module stands on: the one lock, queue-owned state, the
    // game-thread mailbox, SDL's errors, the logger and the sample formats.
    .target(
      name: "FoleyCore",
      dependencies: ["CFoleySDL2", .product(name: "Logging", package: "swift-log")],
      swiftSettings: swiftSettings
    ),
    .target(
      name: "FoleySession",
      dependencies: ["FoleyCore", "CFoleySDL2", .product(name: "Logging", package: "swift-log")],
      swiftSettings: swiftSettings
    ),
    // The engine core: engine, mixer and voices, sounds and decoding, streams, the real-time
    // code, the backend, the spatial maths. It knows nothing of scenes.
    .target(
      name: "FoleyAudio",
      dependencies: [
        "FoleyCore", "FoleySession", "CFoleySDL2", "CFoleySDL2Mixer", "CFoleyCodecs", "CFoleyDSP",
        "CFoleySamplerate",
        "CFoleyEBUR128", "CFoleyKissFFT", .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: swiftSettings
    ),
    // Streamed music: tracks, queues, crossfades, the player.
    .target(
      name: "FoleyMusic",
      dependencies: ["FoleyAudio", "FoleyCore", "FoleySession", "CFoleyCodecs"],
      swiftSettings: swiftSettings
    ),
    // Where scene meets engine: sound actions, AudioNode, the listener, attach and the link.
    .target(
      name: "FoleySceneAudio",
      dependencies: ["FoleyAudio", "FoleyMusic", "FoleyScene", "FoleyCore", "FoleySession"],
      swiftSettings: swiftSettings
    ),
    // Game events to sounds, from data: containers, parameters, hot reload.
    .target(
      name: "FoleySoundMap",
      dependencies: [
        "FoleyAudio", "FoleySceneAudio", "FoleyScene", "FoleyCore", "FoleySession", "FoleyMusic",
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: swiftSettings
    ),
    // Re-exports the core, whose embedded mixer tests drive by hand; no production target
    // depends on it (Scripts/check-house.py checks).
    .target(
      name: "FoleyAudioTesting",
      dependencies: ["FoleyAudio"],
      swiftSettings: swiftSettings
    ),
    .target(
      name: "FoleyRecording",
      dependencies: [
        "FoleyCore", "FoleySession", "CFoleySDL2",
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: swiftSettings
    ),
    .target(
      name: "FoleyPlatform",
      dependencies: [
        "FoleyScene", "FoleyCore", "FoleySession", "FoleyAudio", "CFoleySDL2",
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: swiftSettings
    ),
    .target(
      name: "Foley",
      dependencies: [
        "FoleyScene", "FoleyCore", "FoleySession", "FoleyAudio", "FoleyMusic", "FoleySceneAudio",
        "FoleySoundMap",
        "FoleyRecording", "FoleyPlatform",
      ],
      swiftSettings: swiftSettings
    ),
    // The demo's scripted runs, parsed: a target of its own so the fuzzer can feed it too.
    .target(
      name: "FoleyDemoScript",
      dependencies: ["FoleyAudio", "FoleyScene", "FoleySoundMap", "FoleyPlatform"],
      swiftSettings: swiftSettings
    ),
    .executableTarget(
      name: "FoleyDemo",
      dependencies: [
        "FoleyDemoScript",
        // FoleySpeech links espeak-ng (GPL-3.0-or-later): so does the demo, which is why the
        // speech product is separate from the `Foley` umbrella games link.
        "Foley", "FoleySpeech", "FoleyOffline", "FoleyInspector",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Demo",
      swiftSettings: swiftSettings
    ),

    // Counts allocations inside the voice mixer's render: malloc wrappers for foley-bench only.
    .target(name: "CFoleyAllocCounter", dependencies: ["CFoleyDSP"], path: "Benchmarks/CFoleyAllocCounter"),
    // Benchmarks: built in release by Scripts/bench.sh; never part of the tests.
    .executableTarget(
      name: "FoleyBench",
      dependencies: [
        "Foley", "FoleyAudioTesting", "FoleyOffline", "FoleyInspector", "FoleyTestSupport", "CFoleyCodecs",
        "CFoleyAllocCounter", "CFoleySDL2", .product(name: "Logging", package: "swift-log"),
      ],
      path: "Benchmarks/FoleyBench",
      swiftSettings: swiftSettings
    ),

    // The fuzzer for sound loading (Scripts/fuzz.sh; a short fixed slice runs in CI).
    .executableTarget(
      name: "FoleyFuzz",
      dependencies: [
        "FoleyDemoScript", "FoleyPlatform",
        "FoleyAudio", "FoleyAudioTesting", "FoleyMusic", "FoleySceneAudio", "FoleySoundMap", "FoleyRecording",
        "FoleyScene", "FoleyCore", "FoleySession", "CFoleyCodecs",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Tests/FoleyFuzz",
      swiftSettings: swiftSettings
    ),

    .testTarget(
      name: "FoleySceneTests",
      dependencies: [
        "FoleyScene", "FoleyCore",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ],
      swiftSettings: swiftSettings
    ),
    // Helpers shared by the test targets: generated sounds, disk-driver capture, environment.
    .target(
      name: "FoleyTestSupport",
      dependencies: [
        "FoleyAudio", "FoleyAudioTesting", "FoleyScene", "FoleyCore", "FoleySession", "FoleyPlatform",
        "FoleyRecording", "CFoleySDL2", .product(name: "Logging", package: "swift-log"),
      ],
      path: "Tests/FoleyTestSupport",
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "FoleyAudioTests",
      dependencies: [
        "FoleyAudio", "FoleyAudioTesting", "FoleyMusic", "FoleySceneAudio", "FoleySoundMap", "FoleyScene",
        "FoleyCore", "FoleySession", "FoleyRecording", "FoleyTestSupport", "CFoleySDL2", "CFoleySDL2Mixer",
        "CFoleyCodecs", "CFoleyEBUR128",
      ],
      // A sound shipped as a package resource, found through Bundle.module.
      resources: [.copy("Resources")],
      swiftSettings: swiftSettings
    ),
    // Each module's own tests (they drive it through the engine, so they link the modules below it).
    .testTarget(
      name: "FoleyMusicTests",
      dependencies: [
        "FoleyAudio", "FoleyAudioTesting", "FoleyMusic", "FoleySceneAudio", "FoleyScene", "FoleySession",
        "FoleyTestSupport",
      ],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "FoleySoundMapTests",
      dependencies: [
        "FoleyAudio", "FoleyMusic", "FoleySceneAudio", "FoleySoundMap", "FoleyScene", "FoleySession",
        "FoleyTestSupport",
      ],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "FoleySceneAudioTests",
      dependencies: [
        "FoleyAudio", "FoleyMusic", "FoleySceneAudio", "FoleySoundMap", "FoleyScene", "FoleyCore",
        "FoleySession",
        "FoleyTestSupport",
      ],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "FoleyOfflineTests",
      dependencies: [
        "FoleyOffline", "FoleyAudio", "FoleyMusic", "FoleySceneAudio", "FoleySoundMap", "FoleyScene",
        "FoleyRecording", "FoleySession", "FoleyTestSupport",
      ],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "FoleySessionTests",
      dependencies: [
        "FoleySession", "FoleyAudio", "FoleyAudioTesting", "FoleyMusic", "FoleySceneAudio", "FoleyScene",
        "FoleyPlatform", "FoleyTestSupport",
      ],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "FoleyRecordingTests",
      dependencies: [
        "FoleyRecording", "FoleyCore", "FoleySession", "FoleyAudio", "FoleyTestSupport", "CFoleySDL2",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "DemoTests",
      dependencies: ["FoleyRecording", "FoleyCore", "FoleyTestSupport", "CFoleyEBUR128"],
      swiftSettings: swiftSettings
    ),
    // The examples of README.md and of the DocC articles, compiled and checked word for word.
    .testTarget(
      name: "ReadmeTests",
      dependencies: [
        "Foley", "FoleySpeech", "FoleyOffline", "CFoleySDL2", "FoleySoundMap", "FoleyInspector",
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: swiftSettings
    ),
    // The SpriteKit guide's ported scene, compiled and run as written there.
    .testTarget(
      name: "SpriteKitPortTests",
      dependencies: ["Foley", "FoleyTestSupport"],
      swiftSettings: swiftSettings
    ),
    .target(
      name: "FoleyInspector",
      dependencies: [
        "FoleyAudio", "FoleyMusic", "FoleyScene", "FoleySoundMap", "FoleyCore", "FoleySession",
        .product(name: "FlyingFox", package: "FlyingFox"),
      ],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "FoleyInspectorTests",
      dependencies: [
        "FoleyInspector", "FoleyAudio", "FoleySoundMap", "FoleyCore", "FoleySession", "FoleyTestSupport",
      ],
      swiftSettings: swiftSettings
    ),
    .target(
      name: "FoleySpeech",
      dependencies: [
        "FoleyAudio", "FoleySceneAudio", "FoleyScene", "FoleyCore", "FoleySession", "CFoleyEspeak",
      ],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "FoleySpeechTests",
      dependencies: [
        "FoleySpeech", "FoleyAudio", "FoleyAudioTesting", "FoleyMusic", "FoleySceneAudio", "FoleySoundMap",
        "FoleyScene", "FoleyCore", "FoleySession", "FoleyTestSupport",
      ],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "FoleyPlatformTests",
      dependencies: ["FoleyPlatform", "FoleyCore", "FoleySession", "FoleyAudio", "CFoleySDL2"],
      swiftSettings: swiftSettings
    ),
  ]
)
