import FoleyAudio
import FoleyAudioTesting
import FoleyTestSupport
import Foundation
import Testing

/// What a voice takes with it while it is virtual besides its place: a seek the mix had not
/// taken yet, and its modulators' clocks (an envelope goes on from where it was, not from its
/// attack).
@MainActor
@Suite("Virtual voices: seeks and modulators through a return", .serialized)
struct VirtualVoiceReturnTests {
  @Test("an envelope's slow attack goes on while its voice is virtual: back, level with one that stayed")
  func envelopeGoesOnWhileVirtual() throws {
    // 2 s of a constant 0.25 under a 1.5 s attack, twice from one frame: hard left stays, hard
    // right goes virtual 0.2 s in and comes back 0.3 s later, still in the attack.
    let capture = try captureDiskOutput { engine, output in
      let level = try engine.sound(
        data: makeFloatWAV(samples: [Float](repeating: 0.25, count: 96_000), sampleRate: 48_000, channels: 1),
        name: "level.wav")
      #expect(output.waitForMore(frames: 4_800))
      let first = engine.audioFrame + 9_600
      let stayer = engine.play(level, pan: -1, start: .frame(first))
      let wanderer = engine.play(level, pan: 1, start: .frame(first))
      for voice in [stayer, wanderer] { try voice.setModulators([.envelope(attack: 1.5)]) }
      #expect(waitUntil { wanderer.startFrame != nil && engine.audioFrame.index > first.index })
      #expect(output.waitForMore(seconds: 0.2))
      wanderer.volume = 0
      #expect(waitUntil { wanderer.isVirtual })
      #expect(output.waitForMore(seconds: 0.3))
      wanderer.volume = 1
      #expect(waitUntil { !wanderer.isVirtual })
      #expect(output.waitForMore(seconds: 0.3))
    }
    let left = capture.left.samples
    let right = capture.right.samples
    let start = try #require(left.firstIndex { $0 != 0 })
    let silent = try #require((start..<right.count).first { right[$0] == 0 && right[$0 + 1] == 0 })
    let back = try #require((silent..<right.count).first { right[$0] != 0 })
    #expect(back - silent > 9_600, "virtual for \(back - silent) frames")
    // After the 5 ms ramp-in the two sides are one envelope: at 0.5 s into the attack, not 0.
    let after = (back + 240)..<min(back + 9_600, left.count)
    #expect(after.count > 4_800)
    let worst = after.map { abs(right[$0] - left[$0]) }.max() ?? 1
    #expect(worst < 1e-4, "right \(right[back + 240]) against left \(left[back + 240]); worst \(worst)")
    #expect(left[back + 240] > 0.25 * 0.3, "the attack had got a third of the way: \(left[back + 240])")
  }

  @Test("a seek asked for just before the voice goes virtual is where it goes on from when it is back")
  func seekTakenIntoVirtual() throws {
    // Noise, so where the returned voice is in its sound shows. It seeks to 1 s and goes virtual
    // in the same moment, 0.2 s after its start; back 0.45 s later, it is 1 s plus the time since
    // the seek into its sound.
    let frames = 144_000
    let noise = noiseSamples(frames: frames)
    var asked = 0
    let capture = try captureDiskOutput { engine, output in
      let sound = try engine.sound(data: makeNoiseWAV(frames: frames), name: "noise.wav")
      #expect(output.waitForMore(frames: 4_800))
      let first = engine.audioFrame + 9_600
      let voice = engine.play(sound, pan: 1, start: .frame(first))
      #expect(waitUntil { voice.startFrame != nil && engine.audioFrame.index > first.index })
      #expect(output.waitForMore(seconds: 0.2))
      asked = Int(engine.audioFrame.index - first.index)
      voice.seek(to: 1)
      voice.volume = 0
      #expect(waitUntil { voice.isVirtual })
      #expect(output.waitForMore(seconds: 0.45))
      voice.volume = 1
      #expect(waitUntil { !voice.isVirtual })
      #expect(output.waitForMore(seconds: 0.3))
    }
    let right = capture.right.samples
    let start = try #require(right.firstIndex { $0 != 0 })
    let silent = try #require((start..<right.count).first { right[$0] == 0 && right[$0 + 1] == 0 })
    let back = try #require((silent..<right.count).first { right[$0] != 0 })
    // Where in the noise the returned voice is, 10 ms after its ramp-in.
    let probe = back + 720
    let window = 64
    #expect(probe + window < right.count)
    let place = (0..<(frames - window)).first { candidate in
      (0..<window).allSatisfy { abs(right[probe + $0] - noise[candidate + $0]) < 1e-6 }
    }
    let found = try #require(place, "the returned voice's samples are nowhere in its sound")
    // It seeked to 48,000 on the frame `probe - (found - 48,000)` after its start, which is when
    // it was asked (give or take the buffers in flight), not when it came back.
    let seekedAt = (probe - start) - (found - 48_000)
    #expect(abs(seekedAt - asked) < 4_800, "seeked \(seekedAt) frames in, asked \(asked) frames in")
  }
}
