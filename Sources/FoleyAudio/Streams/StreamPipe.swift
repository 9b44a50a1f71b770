internal import CFoleySDL2
internal import CFoleySamplerate
import FoleyCore
import Foundation
package import Synchronization

/// What every streamed voice has (music tracks, speech): its voice, the ring its effect plays
/// from, and SDL's converter from the source's float frames to the mix's format. The stream
/// filler moves frames through it; subclasses say where they come from.
///
/// Invariant behind `@unchecked Sendable`: the `var`s belong to the stream filler's queue; the
/// ring and the effect are built for their two threads; `voice` is thread-safe.
@_spi(FoleyStreams) open class StreamPipe: @unchecked Sendable {
  package let ring: StreamRing
  package let effect: StreamEffect
  package let format: AudioDeviceFormat
  /// The stream's voice: pending until the filler has filled the ring and started it.
  package let voice: Voice
  package let category: SoundCategory
  /// Set when the stream is stopped at once: the filler drops it.
  package let isCancelled = Atomic<Bool>(false)
  /// Whether the voice was asked to start (filler's).
  package var isStarted = false
  /// The source has nothing more and the converter was flushed (filler's).
  package var isDrainedOfSource = false
  /// SDL's converter from the source's float frames to the mix's format.
  private(set) var converter: OpaquePointer?
  private(set) var converterRate = 0
  private(set) var converterChannels = 0
  /// Frames the converter had been given, and the ring frame its output began at.
  private var framesIntoConverter = 0
  private(set) var converterStartFrame = 0
  /// Frames taken out of the converter since it began.
  private var framesOutOfConverter = 0
  /// The resampler was told its input ended (until the converter starts over).
  private var resamplerFlushed = false
  /// The resampler, when the source's rate is not the mix's: libsamplerate, whose output keeps
  /// time with its input to the sample. SDL 2's stream (which then only converts channels and
  /// sample format) rounds each put's output down, losing a fraction of a frame per put (57 ppm
  /// at 44.1 kHz: 11 frames by the fourth second), and its filter is off-centre by most of a
  /// frame; the music's beats would drift from its samples.
  private var resampler: OpaquePointer?
  /// The resampler's output before it goes to SDL's stream.
  private var resampled: [Float] = []
  /// The ring total at the last seek (what came before it will be skipped, so it is not
  /// counted as buffered).
  private var seekMarkFrame = 0

  /// What a pipe is built from: the engine's side (``StreamFiller/pipeSetup(volume:category:)``
  /// makes it) and the stream's voice.
  package struct Setup {
    /// The mix's format: what the ring holds.
    package var format: AudioDeviceFormat
    /// Seconds the filler keeps decoded ahead.
    package var bufferedSeconds: Double
    /// Frames of the de-click ramps the effect makes (fades, holds, seeks).
    package var declickFrames: Int
    /// How the effect tells the engine's queue that something happened on the mix thread.
    package var wake: WakeSignal
    /// The stream's voice, pending until the filler starts it.
    package var voice: Voice
    package var category: SoundCategory

    package init(
      format: AudioDeviceFormat, bufferedSeconds: Double, declickFrames: Int, wake: WakeSignal, voice: Voice,
      category: SoundCategory
    ) {
      self.format = format
      self.bufferedSeconds = bufferedSeconds
      self.declickFrames = declickFrames
      self.wake = wake
      self.voice = voice
      self.category = category
    }
  }

  package init(_ setup: Setup) {
    self.format = setup.format
    self.voice = setup.voice
    self.category = setup.category
    // Twice what is kept buffered: after a seek there is room for the new audio at once, while
    // the old is still being skipped.
    let buffered = Int(setup.bufferedSeconds * Double(format.sampleRate))
    ring = StreamRing(capacity: 2 * buffered * format.bytesPerFrame)
    effect = StreamEffect(
      ring: ring, format: format, declickFrames: setup.declickFrames, rewindLimit: buffered, wake: setup.wake)
  }

  deinit {
    if let converter { SDL_FreeAudioStream(converter) }
    if let resampler { src_delete(resampler) }
  }

  /// Frames written to the ring.
  package var framesWritten: Int { ring.totalWritten / format.bytesPerFrame }
  /// Frames the effect has taken from the ring (heard, or skipped by a seek).
  package var framesRead: Int { ring.totalRead / format.bytesPerFrame }
  /// Frames written and not yet heard (after the last seek's mark).
  package var framesBuffered: Int { framesWritten - max(framesRead, seekMarkFrame) }

  /// The ring frame at which source frame `count` (counted since the converter began) comes out.
  package func outputFrame(afterSourceFrames count: Int) -> Int {
    guard converterRate > 0 else { return framesWritten }
    return converterStartFrame
      + Int((Double(count) * Double(format.sampleRate) / Double(converterRate)).rounded())
  }

  package var sourceFramesConverted: Int { framesIntoConverter }

  /// Makes the converter fit a source of `rate` Hz and `channels` (a new one when either differs;
  /// the old one's tail must have been flushed into the ring first).
  package func prepareConverter(rate: Int, channels: Int, name: String) throws(SoundError) {
    if converterFits(rate: rate, channels: channels) { return }
    if let converter { SDL_FreeAudioStream(converter) }
    let target = format.sampleFormat == .float32 ? CFoleySDL2_AUDIO_F32SYS() : CFoleySDL2_AUDIO_S16SYS()
    guard
      let made = SDL_NewAudioStream(
        CFoleySDL2_AUDIO_F32SYS(), UInt8(channels), Int32(format.sampleRate), target, UInt8(format.channels),
        Int32(format.sampleRate))
    else {
      converter = nil
      throw SoundError(.undecodable, asset: name, message: SDLError.fromSDL("SDL_NewAudioStream").message)
    }
    converter = made
    converterRate = rate
    converterChannels = channels
    if let resampler { src_delete(resampler) }
    resampler = nil
    if rate != format.sampleRate {
      var error: Int32 = 0
      guard let made = src_new(Int32(SRC_SINC_MEDIUM_QUALITY), Int32(channels), &error) else {
        SDL_FreeAudioStream(converter)
        self.converter = nil
        throw SoundError(
          .undecodable, asset: name, message: "no resampler: \(String(cString: src_strerror(error)))")
      }
      resampler = made
    }
    framesIntoConverter = 0
    framesOutOfConverter = 0
    resamplerFlushed = false
    converterStartFrame = framesWritten
  }

  /// Whether the converter takes frames of `rate` and `channels` as they are.
  package func converterFits(rate: Int, channels: Int) -> Bool {
    converter != nil && converterRate == rate && converterChannels == channels
  }

  /// Hands source frames to the converter (through the resampler when there is one).
  package func convert(_ samples: UnsafePointer<Float>, frames: Int) {
    guard let converter, frames > 0 else { return }
    framesIntoConverter += frames
    guard resampler != nil else {
      _ = SDL_AudioStreamPut(converter, samples, Int32(frames * converterChannels * 4))
      return
    }
    resample(samples, frames: frames, ending: false)
  }

  /// What the resampler's input points at when there is none: never read (0 frames) nor written.
  nonisolated(unsafe) private static let noInput: UnsafeMutablePointer<Float> = {
    let pointer = UnsafeMutablePointer<Float>.allocate(capacity: 1)
    pointer.initialize(to: 0)
    return pointer
  }()

  /// Runs `frames` source frames (none, ending: the resampler's last) through the resampler
  /// into SDL's stream.
  private func resample(_ samples: UnsafePointer<Float>?, frames: Int, ending: Bool) {
    guard let resampler, let converter else { return }
    let ratio = Double(format.sampleRate) / Double(converterRate)
    let room = Int(Double(frames) * ratio) + 64
    if resampled.count < room * converterChannels {
      resampled = [Float](repeating: 0, count: room * converterChannels)
    }
    var consumed = 0
    while true {
      var data = SRC_DATA()
      data.input_frames = samples == nil ? 0 : frames - consumed
      data.end_of_input = ending ? 1 : 0
      data.src_ratio = ratio
      let produced = resampled.withUnsafeMutableBufferPointer { buffer -> Int in
        data.data_out = buffer.baseAddress
        // libsamplerate wants an input pointer even when there is no input (the end's flush).
        data.data_in = samples.map { $0 + consumed * converterChannels } ?? UnsafePointer(Self.noInput)
        data.output_frames = buffer.count / converterChannels
        guard src_process(resampler, &data) == 0 else { return 0 }
        _ = SDL_AudioStreamPut(
          converter, buffer.baseAddress!, Int32(Int(data.output_frames_gen) * converterChannels * 4))
        return Int(data.output_frames_gen)
      }
      consumed += Int(data.input_frames_used)
      // Done when the input is used up and nothing more comes out.
      if produced == 0 && (samples == nil || consumed >= frames) { break }
    }
  }

  /// Pushes the converter's last frames out (the stream ended, or the format changes): the
  /// resampler is told its input has ended, and gives the rest of its output, so a resampled
  /// track loses none of its end.
  package func flushConverter() {
    guard let converter else { return }
    if resampler != nil, !resamplerFlushed {
      resample(nil, frames: 0, ending: true)
      resamplerFlushed = true
    }
    _ = SDL_AudioStreamFlush(converter)
  }

  /// Forgets what the converter holds and marks everything in the ring as old (a seek).
  package func startOver() {
    if let converter { SDL_AudioStreamClear(converter) }
    if let resampler { src_reset(resampler) }
    framesOutOfConverter = 0
    resamplerFlushed = false
    ring.markSeek()
    seekMarkFrame = framesWritten
    framesIntoConverter = 0
    converterStartFrame = framesWritten
    isDrainedOfSource = false
  }

  /// Bytes the converter has ready.
  package var converted: Int {
    guard let converter else { return 0 }
    return Int(SDL_AudioStreamAvailable(converter))
  }

  /// Takes up to `count` converted bytes into `buffer`.
  package func takeConverted(into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
    guard let converter else { return 0 }
    let got = max(0, Int(SDL_AudioStreamGet(converter, buffer, Int32(count))))
    framesOutOfConverter += got / format.bytesPerFrame
    return got
  }

  /// Moves what the converter has ready into the ring, as far as `room` bytes; returns the bytes
  /// moved.
  func moveConverted(room: Int, scratch: inout [UInt8]) -> Int {
    let frameBytes = format.bytesPerFrame
    let taken = scratch.withUnsafeMutableBytes { buffer in
      takeConverted(into: buffer.baseAddress!, count: min(room, buffer.count / frameBytes * frameBytes))
    }
    if taken > 0 { scratch.withUnsafeBytes { ring.write($0.baseAddress!, count: taken) } }
    return taken
  }
}
