import FoleyCore
import Foundation

/// Looks inside a running engine: ``snapshot(window:spectrumOf:)`` gives every voice, every bus's
/// meters (peak and RMS per channel, momentary and short-term loudness) and effects, the master
/// limiter and a spectrum, at the moment it is called. The engine has one
/// (``AudioEngine/inspector``), shared by whoever looks: the demo's panel, the browser inspector
/// (`FoleyInspector`), a test.
///
/// The mixing thread only copies each bus's block into a fixed ring while someone inspects; the
/// meters, the loudness (BS.1770-4, K-weighted) and the spectrum (kissfft) are computed by the thread that
/// asks, from what was copied since it last asked. Copying starts with the first snapshot and
/// stops with ``stop()``: a game that never inspects pays for one flag per buffer.
///
/// ```swift
/// let inspector = engine.inspector
/// let snapshot = inspector.snapshot(window: 0.3)
/// let master = snapshot.buses[0]
/// print("master", master.peakDecibels, master.momentaryLoudness ?? .nan, "LUFS")
/// print(snapshot.voices.count, "voices,", snapshot.census.virtual, "virtual")
/// inspector.stop()
/// ```
///
/// Take snapshots at least every two seconds while inspecting: the ring holds about five
/// seconds of the master and seven stereo buses; blocks beyond it are dropped and counted
/// (``AudioSnapshot/droppedBlocks``).
public final class AudioInspector: Sendable {
  private unowned let engine: AudioEngine
  private let state: Locked<State>

  /// The inspector's own meters, touched only inside `state.withLock`.
  private struct State: @unchecked Sendable {
    var meters: [Int: BusMeter] = [:]
    var analyzer: SpectrumAnalyzer?
    var window: [Float] = []
    var isCopying = false
  }

  init(engine: AudioEngine) {
    self.engine = engine
    state = Locked(State())
  }

  /// The engine now. `window` is the seconds of mix the meters cover, ending at the last frame
  /// mixed (0.3 s suits a meter; clamped to 0.01…5). `spectrumOf` names the bus the spectrum is
  /// of: `"master"` (the default), `"reverb"`, or a category.
  ///
  /// The first snapshot starts the copying: its meters are silent and its spectrum nil, and
  /// loudness needs 0.4 s (momentary) and 3 s (short-term) of inspection before it reads.
  public func snapshot(
    window: Double = 0.3, spectrumOf spectrumBus: SoundCategory = "master"
  ) -> AudioSnapshot {
    let format = engine.deviceFormat
    let core = engine.core
    let windowFrames = UInt64(window.clamped(to: 0.01...5, or: 0.3) * Double(format.sampleRate))
    // Voices first: the meters then cover at least up to the clock they were read at.
    var clock = core.mixer.framesMixed.load(ordering: .acquiring)
    var voices: [VoiceSnapshot] = []
    var effects: [[AudioEffect]] = []
    var census = VoiceCensus()
    if !engine.isClosed {
      // One hop to the audio queue for everything it owns.
      (clock, voices, effects, census) = core.syncOnQueue {
        let (clock, voices) = core.inspectVoices()
        return (clock, voices, core.inspectEffects(), core.census())
      }
    }
    let indices = core.busIndices.withLock { $0 }
    let settings = core.buses.withLock { $0 }
    var names: [Int: SoundCategory] = [0: "master", VoiceMixer.reverbBus: "reverb"]
    for (category, bus) in indices { names[bus] = category }

    let (meters, spectrum, dropped, range) = state.withLock { state in
      if !state.isCopying {
        state.isCopying = true
        core.mixer.tap.discard()
        core.mixer.tap.isEnabled.store(true, ordering: .releasing)
      }
      let tap = core.mixer.tap
      tap.drain(channels: format.channels) { bus, blockClock, samples in
        let meter: BusMeter
        if let made = state.meters[bus] {
          meter = made
        } else {
          meter = BusMeter(channels: format.channels, sampleRate: format.sampleRate)
          state.meters[bus] = meter
        }
        meter.add(samples, at: blockClock)
      }
      // Everything is of one moment: the mix frame the voices were read at (blocks mixed after
      // it wait in the meters for the next snapshot's window).
      let end = engine.isClosed ? max(clock, state.meters[0]?.end ?? 0) : clock
      for meter in state.meters.values { meter.fillSilence(upTo: end) }
      let range = (end - min(end, windowFrames))..<end
      var meters: [Int: (peak: [Float], rms: [Float], active: Bool, loudness: (Double?, Double?))] = [:]
      for (bus, meter) in state.meters {
        let levels = meter.levels(over: range)
        meters[bus] = (levels.peak, levels.rms, levels.active, meter.momentaryAndShortTerm)
      }
      var spectrum: Spectrum?
      let spectrumIndex =
        spectrumBus == "master" ? 0 : spectrumBus == "reverb" ? VoiceMixer.reverbBus : indices[spectrumBus]
      if let spectrumIndex, let meter = state.meters[spectrumIndex] {
        if state.analyzer == nil {
          state.analyzer = SpectrumAnalyzer(size: BusMeter.spectrumFrames, sampleRate: format.sampleRate)
          state.window = [Float](repeating: 0, count: BusMeter.spectrumFrames)
        }
        if let analyzer = state.analyzer, meter.latestMono(into: &state.window) {
          spectrum = Spectrum(
            bus: spectrumBus.name, windowFrames: analyzer.size, frequencies: analyzer.frequencies,
            levels: analyzer.levels(of: state.window))
        }
      }
      return (meters, spectrum, tap.dropped.load(ordering: .relaxed), range)
    }

    func decibels(_ value: Float) -> Double { AudioSnapshot.decibels(Double(value)) }
    let silent = [Double](repeating: AudioSnapshot.floorDecibels, count: format.channels)
    var buses: [BusSnapshot] = []
    let order = [0, VoiceMixer.reverbBus] + indices.values.sorted()
    for bus in order {
      guard let name = names[bus] else { continue }
      let meter = meters[bus]
      let isMaster = bus == 0
      buses.append(
        BusSnapshot(
          name: name.name,
          parent: isMaster || bus == VoiceMixer.reverbBus ? nil : settings.parents[name]?.name,
          volume: isMaster ? settings.masterVolume : settings.volume(for: name),
          isMuted: isMaster ? settings.isMasterMuted : settings.muted.contains(name),
          isSoloed: !isMaster && settings.soloed.contains(name),
          peakDecibels: meter?.peak.map(decibels) ?? silent, rmsDecibels: meter?.rms.map(decibels) ?? silent,
          momentaryLoudness: meter?.loudness.0, shortTermLoudness: meter?.loudness.1,
          isActive: meter?.active ?? false,
          effects: effects.indices.contains(bus) ? effects[bus].map(\.inspection) : []))
    }
    let limiter = engine.masterMeter
    return AudioSnapshot(
      frame: range.upperBound, time: Double(range.upperBound) / Double(format.sampleRate),
      sampleRate: format.sampleRate, channels: format.channels, meterFrames: range, voices: voices,
      buses: buses,
      limiter: LimiterSnapshot(
        gainReductionDecibels: limiter.gainReductionDecibels,
        maximumGainReductionDecibels: limiter.maximumGainReductionDecibels),
      spectrum: spectrum, droppedBlocks: dropped, statistics: engine.statistics,
      census: census, parameters: engine.parameters, snapshots: engine.snapshotStates)
  }

  /// Stops copying the buses (the next snapshot starts again, its meters from silence).
  public func stop() {
    state.withLock { state in
      state.isCopying = false
      engine.core.mixer.tap.isEnabled.store(false, ordering: .releasing)
      engine.core.mixer.tap.discard()
      state.meters = [:]
    }
  }
}

extension AudioEngine {
  /// The engine's inspector: snapshots of its voices, buses, limiter and spectrum (see
  /// ``AudioInspector``). Made on first use; nothing is copied for it until its first snapshot.
  public var inspector: AudioInspector {
    feature(AudioInspector.self) { AudioInspector(engine: self) }
  }
}
