@_spi(FoleyStreams) import FoleyAudio
import FoleyAudioTesting
import FoleyMusic
import FoleySession
import FoleyTestSupport
import Foundation
import Testing

/// Streamed voices (music) nobody can hear go virtual like any voice: the channel is given back,
/// the stream is read on at the mix's pace and thrown away, and heard again it continues on the
/// sample its clock reached.
@MainActor
@Suite("Virtual streams", .serialized)
struct VirtualStreamTests {
  @Test("music nobody hears goes virtual, keeps time, and comes back on the predicted sample: 0 off")
  func musicComesBackOnTheSample() throws {
    // Four seconds of noise, never zero, so a frame out of place shows.
    let frames = 192_000
    let wav = makeNoiseWAV(frames: frames, seed: 777)
    let source = noiseSamples(frames: frames, seed: 777)
    var census = VoiceCensus()
    var underruns = -1
    var virtualizations = 0
    // The frames written before the engine closes: closing stops the music with a de-click
    // ramp, which a loaded machine may get into the file (a run saw 238 samples of it differ).
    var observed = 0
    let capture = try captureDiskOutput { engine, output in
      let music = engine.music
      music.play(Track(data: wav, name: "noise.wav"))
      #expect(waitUntil { (music.currentTime ?? 0) >= 0.4 })
      engine.bus(.music).volume = 0
      #expect(waitUntil { engine.voiceCensus().virtual == 1 })
      census = engine.voiceCensus()
      // Away for longer than the half second a stream's ring holds: it must be read on.
      #expect(output.waitForMore(seconds: 0.8))
      engine.bus(.music).volume = 1
      #expect(waitUntil { engine.voiceCensus().virtual == 0 && engine.voiceCensus().audible == 1 })
      #expect(output.waitForMore(seconds: 0.4))
      observed = output.framesWritten
      underruns = music.underrunFrames
      virtualizations = engine.statistics.virtualizations
      #expect(music.isPlaying)
    }
    #expect(census.virtual == 1 && census.audible == 0)
    #expect(virtualizations == 1)
    #expect(underruns == 0, "the stream ran dry: the comparison below would not mean anything")
    let left = capture.left.samples
    let right = capture.right.samples
    let start = try #require(left.firstIndex { $0 != 0 })
    // Where the music fell silent (virtual) and came back.
    let silent = try #require((start..<left.count).first { left[$0] == 0 && left[$0 + 1] == 0 })
    let back = try #require((silent..<left.count).first { left[$0] != 0 })
    #expect(back - silent > 24_000, "virtual for \(back - silent) frames")
    // Before: the track itself, sample for sample, up to the fade-out.
    let before = start..<max(start, silent - 480)
    #expect(before.count > 9_600)
    #expect(before.allSatisfy { left[$0] == source[$0 - start] && right[$0] == left[$0] })
    // After the 5 ms ramp-in the track is where it would have been had it played on.
    let last = min(left.lastIndex { $0 != 0 } ?? back, start + frames - 1, observed)
    let after = (back + 240)..<last
    #expect(after.count > 9_600)
    let mismatched = after.filter { left[$0] != source[$0 - start] }
    #expect(
      mismatched.isEmpty,
      "\(mismatched.count) of \(after.count) samples differ after the return, from \(mismatched.first ?? 0) to \(mismatched.last ?? 0) (\(after))"
    )
    // During the ramp it is already on its frame: each sample a fraction of the track's.
    #expect(
      (back..<(back + 240)).allSatisfy { (0...1.0001).contains(left[$0] / source[$0 - start]) })
  }

  @Test("a virtual track's clock runs on, stops while paused, and the track ends (and moves on) unheard")
  func virtualMusicKeepsItsClockAndEnds() throws {
    let mixer = EmbeddedMixer()
    let engine = try AudioEngine(embedded: mixer, session: AudioSession())
    defer { engine.close() }
    let music = engine.music
    let first = makeNoiseWAV(frames: 48_000, seed: 1)
    let second = makeNoiseWAV(frames: 96_000, seed: 2)
    music.play([Track(data: first, name: "one.wav"), Track(data: second, name: "two.wav")])
    mixer.advance(seconds: 0.2)
    #expect(engine.voiceCensus().audible == 1)
    let channelsBefore = engine.statistics.activeVoices
    engine.bus(.music).volume = 0
    mixer.advance(seconds: 0.1)
    #expect(engine.voiceCensus().virtual == 1 && engine.voiceCensus().audible == 0)
    #expect(channelsBefore == 1 && engine.statistics.activeVoices == 1)
    // Nothing of it is mixed.
    _ = mixer.takeOutput()
    mixer.advance(seconds: 0.1)
    #expect(mixer.takeOutput().allSatisfy { $0 == 0 })
    // Its clock runs on while virtual.
    let reached = try #require(music.currentTime)
    mixer.advance(seconds: 0.3)
    let later = try #require(music.currentTime)
    #expect(abs((later - reached) - 0.3) < 0.03, "moved \(later - reached) s in 0.3 s")
    // Paused, it stops; resumed, it runs on, still virtual.
    music.pause()
    mixer.advance(seconds: 0.3)
    let paused = try #require(music.currentTime)
    mixer.advance(seconds: 0.3)
    #expect(music.currentTime == paused)
    #expect(engine.voiceCensus().pausedByGame == 1)
    music.play()
    mixer.advance(seconds: 0.1)
    #expect(engine.voiceCensus().virtual == 1)
    // The first track (1 s) ends unheard, and the queue moves on to the second, still unheard.
    mixer.advance(seconds: 0.6)
    let playing = music.nowPlaying?.track.name
    #expect(playing == "two.wav")
    #expect(engine.voiceCensus().virtual == 1)
    // The second (2 s) plays out unheard: the music is over.
    mixer.advance(seconds: 2.2)
    #expect(!music.isPlaying)
    #expect(engine.statistics.activeVoices == 0 && engine.statistics.virtualVoices == 0)
  }

  @Test("a virtual track stopped, or faded out, ends; a music stream that starts unheard goes virtual")
  func virtualMusicStopsAndStartsUnheard() throws {
    let mixer = EmbeddedMixer()
    let engine = try AudioEngine(embedded: mixer, session: AudioSession())
    defer { engine.close() }
    let music = engine.music
    let track = Track(data: makeNoiseWAV(frames: 480_000, seed: 3), name: "long.wav")
    engine.bus(.music).volume = 0
    music.play(track)
    mixer.advance(seconds: 0.2)
    #expect(engine.voiceCensus().virtual == 1 && engine.voiceCensus().audible == 0)
    music.stop(tween: 0.5)
    mixer.advance(seconds: 0.3)
    #expect(engine.statistics.virtualVoices == 1, "the fade is still under way")
    mixer.advance(seconds: 0.4)
    #expect(!music.isPlaying && engine.statistics.virtualVoices == 0 && engine.statistics.activeVoices == 0)
    // Played again, then stopped at once while virtual.
    music.play(track)
    mixer.advance(seconds: 0.2)
    #expect(engine.voiceCensus().virtual == 1)
    music.stop()
    mixer.advance(seconds: 0.05)
    #expect(engine.statistics.virtualVoices == 0 && engine.statistics.activeVoices == 0)
  }

  @Test("a generator's stream (speech) held at a frame while virtual stops there, and released plays out")
  func virtualStreamHoldsAndEnds() throws {
    let mixer = EmbeddedMixer()
    let engine = try AudioEngine(embedded: mixer, session: AudioSession())
    defer { engine.close() }
    let source = NoiseSource(samples: noiseSamples(frames: 48_000, seed: 99))
    engine.bus(.speech).volume = 0
    let stream = engine.playStream(source, name: "line", category: .speech, volume: 1)
    mixer.advance(seconds: 0.1)
    #expect(stream.voice.isVirtual)
    stream.hold(atSourceFrame: 24_000)
    mixer.advance(seconds: 0.6)
    #expect(stream.isHolding && stream.heardSourceFrame == 24_000)
    // Held, it stays there however long the wait.
    mixer.advance(seconds: 0.5)
    #expect(stream.isHolding && stream.heardSourceFrame == 24_000 && stream.voice.isVirtual)
    stream.release()
    mixer.advance(seconds: 0.3)
    #expect(!stream.isFinished && stream.heardSourceFrame > 24_000)
    mixer.advance(seconds: 0.3)
    #expect(stream.isFinished && engine.statistics.virtualVoices == 0)
  }
}
