import CFoleyEBUR128
import FoleyAudio
import FoleyTestSupport
import Foundation
import Testing

/// Range modes on the master: a programme swinging between quiet and loud passages comes out
/// with a smaller loudness range (libebur128's LRA), and neither the levelling nor a switch
/// between modes makes a sample step larger than the programme's own.
@MainActor
@Suite("Dynamic range modes", .serialized)
struct DynamicRangeTests {
  /// Mono 16-bit: a 440 Hz sine in passages of `passage` seconds alternating `quiet` and `loud`
  /// dBFS (RMS), each faded in and out over 20 ms, as a mixed programme would be.
  static func programme(
    passages: Int, passage: Double, quiet: Double = -40, loud: Double = -10
  ) -> (wav: Data, peakStep: Float) {
    let frames = Int(passage * 48_000)
    let fade = 960
    var samples: [Int16] = []
    samples.reserveCapacity(passages * frames)
    for index in 0..<passages {
      let rms = pow(10, (index % 2 == 0 ? quiet : loud) / 20)
      for frame in 0..<frames {
        let edge = min(frame, frames - 1 - frame)
        let envelope = edge < fade ? 0.5 - 0.5 * cos(Double.pi * Double(edge) / Double(fade)) : 1
        let phase = 2 * Double.pi * 440 * Double(index * frames + frame) / 48_000
        samples.append(Int16((rms * 2.0.squareRoot() * envelope * sin(phase) * 32_767).rounded()))
      }
    }
    var step: Float = 0
    for index in 1..<samples.count {
      step = max(step, abs(Float(samples[index]) - Float(samples[index - 1])) / 32_768)
    }
    return (makeWAV(samples: samples, sampleRate: 48_000, channels: 1), step)
  }

  /// The loudness range of the left channel (the sound is centred: both are alike), in LU.
  static func loudnessRange(_ signal: [Float]) throws -> Double {
    let state = try #require(ebur128_init(1, 48_000, Int32(EBUR128_MODE_LRA.rawValue)))
    defer {
      var handle: UnsafeMutablePointer<ebur128_state>? = state
      ebur128_destroy(&handle)
    }
    _ = signal.withUnsafeBufferPointer { ebur128_add_frames_float(state, $0.baseAddress, $0.count) }
    var range = 0.0
    _ = ebur128_loudness_range(state, &range)
    return range
  }

  static func render(_ mode: DynamicRange, wav: Data) throws -> [Float] {
    let audio = try EmbeddedAudio()
    audio.engine.dynamicRange = mode
    let sound = try Sound(data: wav, name: "programme.wav", engine: audio.engine)
    audio.engine.play(sound)
    audio.advance(seconds: sound.duration + 0.1)
    return audio.left.samples
  }

  /// The programme swings 20 dB, between -30 and -10 dBFS: -40 and -10 would measure a loudness
  /// range of 4.8 LU in full, since the range's relative gate (20 LU under the programme's
  /// loudness) leaves the -40 passages out; night lifts them back inside it.
  @Test("night halves the loudness range of a -30/-10 dBFS programme, with no step beyond the programme's")
  func nightShrinksTheRange() throws {
    let (wav, sourceStep) = Self.programme(passages: 8, passage: 4, quiet: -30)
    let full = try Self.render(.full, wav: wav)
    let night = try Self.render(.night, wav: wav)
    let headphones = try Self.render(.headphones, wav: wav)
    let fullRange = try Self.loudnessRange(full)
    let nightRange = try Self.loudnessRange(night)
    let headphonesRange = try Self.loudnessRange(headphones)
    #expect(fullRange > 18, "full: \(fullRange) LU")
    #expect(nightRange < fullRange / 2, "night: \(nightRange) LU against \(fullRange)")
    #expect(
      headphonesRange < fullRange * 0.75 && headphonesRange > nightRange, "headphones: \(headphonesRange)")
    // A mono sound at the centre is in each channel at its own level.
    let panned = sourceStep
    for (name, output) in [("full", full), ("night", night), ("headphones", headphones)] {
      let step = Signal(output).largestStep(in: 0..<output.count)
      #expect(step <= panned * 1.01, "\(name): a step of \(step) against the programme's \(panned)")
    }
  }

  @Test("on the device: night lifts a quiet passage and turns a loud one down; switching back ramps")
  func nightOnTheDevice() throws {
    let (wav, sourceStep) = Self.programme(passages: 2, passage: 1)
    let capture = try captureDiskOutput { engine, output in
      let sound = try Sound(data: wav, name: "programme.wav", engine: engine)
      engine.dynamicRange = .night
      let voice = engine.play(sound)
      #expect(waitUntil { voice.isFinished })
      output.waitForMore(seconds: 0.3)
      // Back to full while a loud tone plays: a 50 ms fade from the curve's gain to none.
      let tone = try Sound(
        data: makeToneWAV(
          frequency: 440, duration: 1.5, amplitude: pow(10, -10.0 / 20) * 2.0.squareRoot(), channels: 1),
        name: "tone.wav", engine: engine)
      let loud = engine.play(tone)
      #expect(waitUntil { loud.state == .playing })
      output.waitForMore(seconds: 0.5)
      engine.dynamicRange = .full
      #expect(waitUntil { loud.isFinished })
      output.waitForMore(seconds: 0.2)
    }
    let left = capture.left
    let segments = left.segments(minimumGap: 4_800, threshold: 0.0005)
    try #require(segments.count >= 2, "\(segments)")
    let programme = segments[0]
    // 4:1 towards -24 dBFS (peak), lifts up to 12 dB and cuts up to 24: the -40 dBFS passage
    // (peak -37) comes out about 9.75 dB up, the -10 dBFS one (peak -7) about 12.75 dB down.
    let quiet = (programme.lowerBound + 9_600)..<(programme.lowerBound + 38_400)
    let loud = (programme.lowerBound + 57_600)..<(programme.lowerBound + 86_400)
    let centre = 0.0  // a mono sound at the centre: each channel at its own level
    let quietLevel = 20 * log10(left.rms(in: quiet)) - centre
    let loudLevel = 20 * log10(left.rms(in: loud)) - centre
    #expect(abs(quietLevel - (-40 + 9.75)) < 1, "quiet passage: \(quietLevel) dBFS")
    #expect(abs(loudLevel - (-10 - 12.75)) < 1, "loud passage: \(loudLevel) dBFS")
    // The tone: cut as the loud passage was, then, once the mode is back to full, as it is.
    let tone = segments[1]
    let before = 20 * log10(left.rms(in: (tone.lowerBound + 4_800)..<(tone.lowerBound + 19_200))) - centre
    let after = 20 * log10(left.rms(in: (tone.upperBound - 16_800)..<(tone.upperBound - 2_400))) - centre
    #expect(abs(before - (-10 - 12.75)) < 1, "tone in night mode: \(before) dBFS")
    #expect(abs(after - -10) < 0.2, "tone back in full: \(after) dBFS")
    let step = left.largestStep(in: 0..<left.samples.count)
    #expect(step <= sourceStep * 1.01, "step \(step)")
  }
}
