// swift-tools-version: 6.1
import PackageDescription

/// One set of Swift settings for every Foley target, so the language mode and the
/// strictness cannot drift between modules.
let swiftSettings: [SwiftSetting] = [
  .swiftLanguageMode(.v6),
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
  name: "Foley",
  products: [
    .library(name: "Foley", targets: ["Foley"]),
    .library(name: "FoleyScene", targets: ["FoleyScene"]),
    .library(name: "FoleyAudio", targets: ["FoleyAudio"]),
    .library(name: "FoleyRecording", targets: ["FoleyRecording"]),
    .library(name: "FoleyPlatform", targets: ["FoleyPlatform"]),
    .executable(name: "foley-demo", targets: ["FoleyDemo"]),
    .executable(name: "foley-bench", targets: ["FoleyBench"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
  ],
  targets: [
    // C boundary: Debian's libsdl2-dev and libsdl2-mixer-dev, found through pkg-config.
    .systemLibrary(
      name: "CSDL2",
      pkgConfig: "sdl2",
      providers: [.apt(["libsdl2-dev"])]
    ),
    .systemLibrary(
      name: "CSDL2Mixer",
      pkgConfig: "SDL2_mixer",
      providers: [.apt(["libsdl2-mixer-dev"])]
    ),

    .target(
      name: "FoleyScene",
      swiftSettings: swiftSettings
    ),
    .target(
      name: "FoleyAudio",
      dependencies: [
        "FoleyScene", "CSDL2", "CSDL2Mixer",
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: swiftSettings
    ),
    .target(
      name: "FoleyRecording",
      dependencies: [
        "FoleyAudio", "CSDL2",
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: swiftSettings
    ),
    .target(
      name: "FoleyPlatform",
      dependencies: [
        "FoleyScene", "FoleyAudio", "CSDL2",
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: swiftSettings
    ),
    .target(
      name: "Foley",
      dependencies: ["FoleyScene", "FoleyAudio", "FoleyRecording", "FoleyPlatform"],
      swiftSettings: swiftSettings
    ),
    .executableTarget(
      name: "FoleyDemo",
      dependencies: [
        "Foley", "CSDL2",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Demo",
      swiftSettings: swiftSettings
    ),

    // Benchmarks: built in release by Scripts/bench.sh; never part of the tests.
    .executableTarget(
      name: "FoleyBench",
      dependencies: ["Foley", .product(name: "Logging", package: "swift-log")],
      path: "Benchmarks/FoleyBench",
      swiftSettings: swiftSettings
    ),

    .testTarget(
      name: "FoleySceneTests",
      dependencies: [
        "FoleyScene",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ],
      swiftSettings: swiftSettings
    ),
    // Helpers shared by the test targets: generated sounds, disk-driver capture, environment.
    .target(
      name: "FoleyTestSupport",
      dependencies: ["FoleyAudio", "FoleyScene", "FoleyPlatform"],
      path: "Tests/FoleyTestSupport",
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "FoleyAudioTests",
      dependencies: ["FoleyAudio", "FoleyScene", "FoleyPlatform", "FoleyTestSupport"],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "FoleyRecordingTests",
      dependencies: ["FoleyRecording", "FoleyAudio", "FoleyTestSupport", "CSDL2"],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "DemoTests",
      dependencies: ["FoleyRecording", "FoleyTestSupport"],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "FoleyPlatformTests",
      dependencies: ["FoleyPlatform", "FoleyAudio", "CSDL2"],
      swiftSettings: swiftSettings
    ),
  ]
)
