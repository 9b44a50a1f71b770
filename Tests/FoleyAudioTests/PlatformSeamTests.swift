import CFoleyCodecs
import FoleyAudio
import FoleyTestSupport
import Foundation
import Testing

/// The platform seam: Linux's own calls in one C file and one Swift file, the POSIX build the one
/// CI also runs (`FOLEY_PORTABLE=1`).
@Suite("The platform seam")
struct PlatformSeamTests {
  /// The package's root, from this file's place in it.
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// The Linux implementation of the seam and the Swift file that names the C library: the only
  /// places Linux-only calls may be.
  static let linuxFiles: Set<String> = [
    "Sources/CFoleyCodecs/foley_platform_linux.c", "Sources/FoleyCore/Platform.swift",
  ]

  static let linuxOnly = ["memfd_create", "eventfd", "/proc/", "addclosefrom", "prctl", "Glibc"]

  @Test("Linux-only calls appear only in the Linux platform files (the product's sources and the demo)")
  func linuxOnlyCallsStayInTheSeam() throws {
    var offending: [String] = []
    var read = 0
    for folder in ["Sources", "Demo"] {
      let enumerator = try #require(
        FileManager.default.enumerator(
          at: Self.root.appendingPathComponent(folder), includingPropertiesForKeys: nil))
      for case let file as URL in enumerator where ["c", "h", "swift"].contains(file.pathExtension) {
        let relative = String(file.path.dropFirst(Self.root.path.count + 1))
        guard !Self.linuxFiles.contains(relative) else { continue }
        let text = try String(contentsOf: file, encoding: .utf8)
        read += 1
        for symbol in Self.linuxOnly where text.contains(symbol) {
          offending.append("\(relative): \(symbol)")
        }
      }
    }
    #expect(read > 100, "only \(read) files read under \(Self.root.path)")
    #expect(offending.isEmpty, "Linux-only calls outside the platform files: \(offending)")
  }

  @Test("the build has the seam FOLEY_PORTABLE asked for: POSIX with it, Linux's own without")
  func theSeamAskedFor() {
    let portable = ProcessInfo.processInfo.environment["FOLEY_PORTABLE"] == "1"
    #expect(String(cString: foley_platform_name()) == (portable ? "posix" : "linux"))
  }

  @Test("shared memory from the seam is closed on exec, sized and mapped, and holds what is written")
  func sharedMemory() throws {
    let descriptor = foley_shared_memory("seam-test")
    try #require(descriptor >= 0)
    defer { close(descriptor) }
    #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0)
    #expect(ftruncate(descriptor, 1 << 16) == 0)
    let bytes: [UInt8] = Array("shared".utf8)
    #expect(pwrite(descriptor, bytes, bytes.count, 4_096) == bytes.count)
    let mapped = try #require(mmap(nil, 1 << 16, PROT_READ, MAP_SHARED, descriptor, 0))
    defer { munmap(mapped, 1 << 16) }
    #expect(Array(UnsafeRawBufferPointer(start: mapped + 4_096, count: bytes.count)) == bytes)
  }
}

extension DecodingServiceTests {
  @Test(
    "POSIX build, the program's executable not found: no service starts, and each decode runs in a forked child and succeeds",
    .enabled(if: String(cString: foley_platform_name()) == "posix", "Linux finds its executable itself"))
  func withoutTheServiceExecutable() throws {
    let audio = try EmbeddedAudio()
    Self.settle()
    foley_set_service_executable("/nonexistent/foley-game")
    defer { foley_set_service_executable(Bundle.main.executablePath) }
    Self.crashService(audio.engine, frequency: 530)
    #expect(waitUntil { foley_service_pid() == 0 })
    let sound = try audio.engine.sound(data: makeToneWAV(frequency: 520, duration: 0.1), name: "forked.wav")
    #expect(abs(sound.duration - 0.1) < 0.01)
    #expect(foley_service_pid() == 0, "a service started without its executable")
  }
}
