import FoleyAudio
import FoleyAudioTesting
import FoleyMusic
import FoleyScene
import FoleySceneAudio
import FoleyTestSupport
import Foundation
import Testing

/// The engine's logic on the embedded mixer: time advances only when the test mixes frames, so
/// every count and every sample position below is exact, whatever the machine is doing.
@MainActor
@Suite("Mixer logic (embedded mixer)")
struct MixerLogicTests {
  @Test("the same Data played 1,000 times decodes once; at the cap the oldest voices are stolen")
  func decodeOnce() throws {
    let audio = try EmbeddedAudio()
    let tone = makeToneWAV(frequency: 330, duration: 0.05)
    for _ in 0..<1_000 { audio.engine.play(data: tone) }
    audio.engine.waitUntilIdle()
    let stats = audio.engine.statistics
    #expect(stats.decodes == 1)
    #expect(stats.requested == 1_000)
    #expect(stats.started == 1_000)
    #expect(stats.stolen == 1_000 - 256)
    #expect(stats.peakVoices == 256)
  }

  @Test(
    "at the cap, reject refuses and steal-oldest steals", arguments: [ChannelPolicy.reject, .stealOldest])
  func policyAtCap(policy: ChannelPolicy) throws {
    var configuration = AudioConfiguration()
    configuration.maximumChannels = 4
    let audio = try EmbeddedAudio(configuration: configuration)
    var settings = SoundSettings()
    settings.policy = policy
    let sound = try Sound(
      data: makeToneWAV(frequency: 220, duration: 2), name: "hum", engine: audio.engine, settings: settings)
    let voices = (0..<10).map { _ in audio.engine.play(sound) }
    audio.engine.waitUntilIdle()
    let stats = audio.engine.statistics
    #expect(stats.activeVoices == 4)
    if policy == .reject {
      #expect(stats.started == 4 && stats.rejected == 6)
      #expect(voices.prefix(4).allSatisfy { $0.state == .playing })
      #expect(voices.suffix(6).allSatisfy { $0.isFinished })
    } else {
      #expect(stats.started == 10 && stats.stolen == 6)
      #expect(voices.prefix(6).allSatisfy { $0.isFinished })
      #expect(voices.suffix(4).allSatisfy { $0.state == .playing })
    }
  }

  @Test("with every channel ramping out, a new voice takes the one ramping out longest and keeps it")
  func cutAtTheCap() throws {
    var configuration = AudioConfiguration()
    configuration.maximumChannels = 2
    let audio = try EmbeddedAudio(configuration: configuration)
    let sound = try audio.engine.sound(data: makeToneWAV(frequency: 220, duration: 2), name: "hum")
    // Two play, sixteen more steal into the channels kept for ramping out, and the last four
    // find every channel taken: each cuts the voice ramping out longest and starts on its channel.
    let voices = (0..<22).map { _ in audio.engine.play(sound) }
    audio.engine.waitUntilIdle()
    #expect(audio.engine.statistics.started == 22 && audio.engine.statistics.stolen == 20)
    #expect(audio.engine.statistics.rejected == 0)
    // Past every ramp and halt: nothing the cut voices left behind may end the voices after them.
    audio.advance(seconds: 0.5)
    #expect(voices.prefix(20).allSatisfy { $0.isFinished })
    #expect(voices.suffix(2).allSatisfy { $0.state == .playing })
    #expect(audio.engine.statistics.activeVoices == 2)
    #expect(audio.left.peak(in: (audio.frames - 480)..<audio.frames) > 0.4)
  }

  @Test("steal-lowest-priority takes a voice only from a lower priority")
  func lowestPriority() throws {
    var configuration = AudioConfiguration()
    configuration.maximumChannels = 2
    let audio = try EmbeddedAudio(configuration: configuration)
    var low = SoundSettings()
    low.priority = 1
    var high = SoundSettings()
    high.priority = 5
    high.policy = .stealLowestPriority
    let tone = makeToneWAV(frequency: 110, duration: 2)
    let ambience = try Sound(data: tone, name: "amb", engine: audio.engine, settings: low)
    let alarm = try Sound(data: tone, name: "alarm", engine: audio.engine, settings: high)
    let first = audio.engine.play(ambience)
    let second = audio.engine.play(alarm)
    let third = audio.engine.play(alarm)  // steals the ambience
    let fourth = audio.engine.play(alarm)  // nothing below priority 5 left: rejected
    audio.engine.waitUntilIdle()
    #expect(first.isFinished)
    #expect(second.state == .playing && third.state == .playing)
    #expect(fourth.isFinished)
    #expect(audio.engine.statistics.stolen == 1 && audio.engine.statistics.rejected == 1)
  }

  @Test("maximumInstances and minimumInterval stop 1,000 triggers in one frame from taking 1,000 channels")
  func spamLimits() throws {
    let audio = try EmbeddedAudio()
    var limited = SoundSettings()
    limited.maximumInstances = 3
    limited.policy = .reject
    let click = try Sound(
      data: makeToneWAV(frequency: 1000, duration: 1), name: "click", engine: audio.engine, settings: limited)
    for _ in 0..<1_000 { audio.engine.play(click) }
    audio.engine.waitUntilIdle()
    #expect(audio.engine.statistics.activeVoices == 3)
    #expect(audio.engine.statistics.rejected == 997)

    var spaced = SoundSettings()
    spaced.minimumInterval = 0.1
    let thud = try Sound(
      data: makeToneWAV(frequency: 60, duration: 1), name: "thud", engine: audio.engine, settings: spaced)
    for _ in 0..<1_000 { audio.engine.play(thud) }
    audio.engine.waitUntilIdle()
    #expect(audio.engine.statistics.activeVoices == 4)
    #expect(audio.engine.statistics.rejected == 997 + 999)
    // The interval is measured on the mixer's clock: 0.1 s later the sound may start again.
    audio.advance(seconds: 0.05)
    audio.engine.play(thud)
    audio.engine.waitUntilIdle()
    #expect(audio.engine.statistics.rejected == 997 + 1_000)
    audio.advance(seconds: 0.06)
    let later = audio.engine.play(thud)
    audio.engine.waitUntilIdle()
    #expect(later.state == .playing)
  }

  @Test("a stale voice handle never touches the play that reused its channel")
  func staleHandles() throws {
    var configuration = AudioConfiguration()
    configuration.initialChannels = 1
    configuration.maximumChannels = 1
    let audio = try EmbeddedAudio(configuration: configuration)
    let sound = try audio.engine.sound(data: makeToneWAV(frequency: 440, duration: 2), name: "tone")
    let old = audio.engine.play(sound)
    audio.advance(seconds: 0.02)
    old.stop()
    audio.advance(seconds: 0.02)  // the ramp ends and the channel comes free
    let fresh = audio.engine.play(sound)
    audio.engine.waitUntilIdle()
    #expect(fresh.state == .playing)
    old.stop()
    old.pause()
    old.volume = 0
    audio.advance(seconds: 0.05)
    #expect(fresh.state == .playing)
    #expect(old.isFinished)
    #expect(audio.engine.statistics.activeVoices == 1)
    #expect(audio.left.peak(in: (audio.frames - 480)..<audio.frames) > 0.4)
  }

  @Test("waitForCompletion finishes the action at the first update after the sound ends")
  func waitForCompletion() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let scene = Scene()
    audio.engine.attach(to: scene)
    let node = Node()
    scene.addChild(node)
    var finishedAtFrame: Int?
    node.run(.playSound(data: makeToneWAV(frequency: 440, duration: 0.25), waitForCompletion: true)) {
      finishedAtFrame = audio.frames
    }
    #expect(audio.advance(until: { finishedAtFrame != nil }, stepping: scene))
    let frame = try #require(finishedAtFrame)
    // The sound is 12,000 frames; the action ends at the next update after the mix reports it.
    #expect(frame >= 12_000)
    #expect(frame <= 12_000 + 2 * 800 + 512)
  }

  @Test("a stop ramps the gain down over the de-click time, sample by sample, then the voice is gone")
  func stopIsRamped() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let voice = audio.engine.play(
      try audio.engine.sound(data: makeToneWAV(frequency: 0, duration: 2, amplitude: 0.5)))
    audio.advance(seconds: 0.1)
    let stopFrame = audio.frames
    voice.stop()
    audio.advance(seconds: 0.05)
    let left = audio.left
    #expect(abs(left[stopFrame - 1] - 0.5) < 0.001)
    // 5 ms at 48 kHz: 240 frames from full level to silence (the 240th at zero), never more than
    // 1/240 a frame.
    #expect(left[stopFrame + 238] > 0 && left[stopFrame + 239] == 0)
    #expect(left.largestStep <= 0.5 / 240 + 1e-5)
    #expect(voice.isFinished)
    #expect(audio.engine.statistics.activeVoices == 0)
    #expect(audio.engine.voiceCensus() == VoiceCensus())
  }

  @Test("pause and resume keep the sound where it was, click-free; the skip is under one buffer")
  func pauseResume() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let ramp = makeRampWAV(from: 2_000, to: 30_000, duration: 1.0)
    let voice = audio.engine.play(try audio.engine.sound(data: ramp))
    audio.advance(seconds: 0.2)
    voice.pause()
    audio.advance(seconds: 0.2)
    #expect(voice.state == .paused && !voice.isPlaying && !voice.isFinished)
    voice.resume()
    #expect(audio.advance(until: { voice.isFinished }))
    let segments = audio.left.segments(minimumGap: 4_800)
    try #require(segments.count == 2, "\(segments)")
    // Every frame of the sound was heard once, except at most one device buffer at the pause.
    let skipped = 48_000 - (segments[0].count + segments[1].count)
    #expect(skipped >= 0 && skipped < 512)
    // No click at the pause or the resume (the sound's own end, a cut to silence, is left out).
    #expect(audio.left.largestStep(in: 0..<(segments[1].upperBound - 1)) < 0.005)
  }

  @Test("an idle engine does nothing: no wake, no timer, until something plays")
  func idleEngineSleeps() throws {
    let audio = try EmbeddedAudio()
    audio.advance(seconds: 5)
    #expect(audio.mixer.servicesRun == 0)
    #expect(audio.mixer.scheduledDeadline == nil)
    let voice = audio.engine.play(try audio.engine.sound(data: makeToneWAV(frequency: 440, duration: 0.1)))
    voice.stop()
    audio.engine.waitUntilIdle()
    #expect(audio.mixer.scheduledDeadline != nil)  // a ramp is under way: one fallback wake
    audio.advance(seconds: 1)
    let services = audio.mixer.servicesRun
    #expect(services > 0)
    #expect(audio.mixer.scheduledDeadline == nil)
    audio.advance(seconds: 5)
    #expect(audio.mixer.servicesRun == services)
  }

  @Test(
    "bad bytes played by actions are counted failures, decoded (and logged) once, and never stall a sequence")
  func badBytesInActions() throws {
    let audio = try EmbeddedAudio()
    let scene = Scene()
    audio.engine.attach(to: scene)
    let node = Node()
    scene.addChild(node)
    let log = EventLog()
    let garbage = Data(repeating: 0x5A, count: 4_096)
    node.run(.repeat(.playSound(data: garbage, waitForCompletion: true), count: 50)) { log.append("done") }
    #expect(audio.advance(until: { log.entries == ["done"] }, stepping: scene))
    #expect(audio.engine.statistics.failed == 50)
    #expect(audio.engine.statistics.decodes == 1)
  }

  @Test("200 distinct sounds played once each: the cache stays within its limit once their voices end")
  func cacheStaysWithinItsLimit() throws {
    var configuration = AudioConfiguration()
    configuration.soundCacheLimit = 4 << 20
    let audio = try EmbeddedAudio(configuration: configuration)
    for index in 0..<200 {
      // A quarter second each (96 KiB decoded), all different.
      audio.engine.play(data: makeToneWAV(frequency: 200 + Double(index), duration: 0.25))
    }
    audio.engine.waitUntilIdle()
    let statistics = audio.engine.statistics
    #expect(
      statistics.started == 200 && statistics.decodes == 200,
      "started \(statistics.started), decoded \(statistics.decodes), failed \(statistics.failed)")
    #expect(audio.advance(until: { audio.engine.statistics.activeVoices == 0 }))
    // Playing voices keep their sounds; once they end, the least recently used are forgotten.
    audio.engine.play(data: makeToneWAV(frequency: 100, duration: 0.25))
    audio.engine.waitUntilIdle()
    #expect(audio.engine.cachedSoundBytes <= 4 << 20)
    #expect(audio.engine.cachedSoundBytes > 2 << 20)  // it keeps what fits
    // More than 8 MiB of samples were let go: the allocator was asked to hand its free pages
    // back (a cache that turns over would otherwise keep them resident).
    #expect(waitUntil { audio.engine.library.releaser.trims >= 1 })
    #if os(Linux)
      // And it did: glibc gave pages back (a build that cannot see it is on glibc never trims).
      // ThreadSanitizer's allocator is not glibc's: there is nothing of it to trim.
      if !isThreadSanitized { #expect(audio.engine.library.releaser.releasingTrims >= 1) }
    #endif
    audio.engine.removeCachedSounds()
    #expect(audio.engine.cachedSoundBytes == 0)
  }

  @Test("a package's own sounds are found through Bundle.module")
  func bundledAssets() throws {
    let root = try #require(Bundle.module.url(forResource: "Resources", withExtension: nil))
    let engine = try AudioEngine(embedded: EmbeddedMixer(), assetRoots: [root])
    defer { engine.close() }
    #expect(abs(try engine.sound(named: "bundled-tone.wav").duration - 0.25) < 0.001)
  }
}

/// The mailbox between the game thread and the audio queue's hop: plays and placement moves wait
/// in it, and one hop takes them all.
@Suite("Pending requests")
struct PendingRequestsTests {
  @Test(
    "one hop serves everything added until it takes it; hops raise the two signals in turn; a steady run of moves trades the lists' storage"
  )
  func hopsAndStorage() {
    var pending = PendingRequests()
    let voice = Voice.finished(id: 1)
    let unmanaged = Unmanaged.passUnretained(voice)
    var moves: [PlacementMove] = []
    var releases: [Unmanaged<Voice>] = []
    var signals: [Int] = []
    for round in 0..<8 {
      // From the fourth update on, the list the game fills comes back with storage: three lists
      // go round (the game's, the waiting one, the queue's spare), and none is allocated.
      if round >= 3 { #expect(moves.capacity >= 100, "round \(round): the list came back without storage") }
      #expect(!pending.hasWork)
      for index in 0..<100 {
        moves.append(PlacementMove(unmanaged, to: SpatialPlacement(gain: Double(index), pan: 0)))
      }
      pending.add(moves: &moves, releasing: &releases, overFrames: 735)
      #expect(moves.isEmpty && pending.hasWork)
      let signal = pending.scheduleHop()
      #expect(signal != nil)
      // Scheduled: later additions ride the same hop, and no second one is raised.
      #expect(pending.scheduleHop() == nil)
      for index in 100..<120 {
        moves.append(PlacementMove(unmanaged, to: SpatialPlacement(gain: Double(index), pan: 0)))
      }
      releases.append(unmanaged)
      pending.add(moves: &moves, releasing: &releases, overFrames: 800)
      #expect(moves.isEmpty && releases.isEmpty)
      #expect(pending.scheduleHop() == nil)
      signals.append(signal ?? -1)
      var (plays, sources) = pending.take()
      var (taken, released, frames) = pending.takePlacements()
      // Both batches, in the order they were made, gliding over both updates' frames (the newest
      // update's alone would make the way since the last hop in one frame: a step); the release
      // after them.
      #expect(taken.map { $0.placement.gain } == (0..<120).map(Double.init))
      #expect(frames == 735 + 800 && released.count == 1 && plays.isEmpty)
      pending.giveBack(&plays, sources: &sources)
      pending.giveBack(moves: &taken, releases: &released)
    }
    // Each hop raises the signal that is not running: the one before's run ended before it began.
    #expect(signals == [0, 1, 0, 1, 0, 1, 0, 1])
  }

  @Test(
    "a run of plays of one source keeps it once; each play still finds its own source, and a hop starts a new list"
  )
  func sourcesKeptOncePerRun() {
    var pending = PendingRequests()
    let thud = SoundDataReference(data: Data([1]), name: "thud")
    let ping = SoundDataReference(data: Data([2]), name: "ping")
    let voice = Voice.finished(id: 1)
    let asked: [SoundSource] = [
      .data(thud), .data(thud), .data(thud), .data(ping), .data(thud), .named("a"), .named("a"), .data(thud),
    ]
    for source in asked { pending.append(source, voice: voice, loops: 0) }
    // Runs of one object share an entry; a name is kept each time.
    #expect(pending.plays.sources.count == 6)
    func name(_ source: SoundSource) -> String {
      switch source {
      case .data(let reference): reference.name ?? "?"
      case .named(let name): name
      case .sound(let sound): sound.name
      }
    }
    var (plays, sources) = pending.take()
    #expect(plays.map { name(sources[$0.sourceIndex]) } == asked.map(name))
    pending.giveBack(&plays, sources: &sources)
    // After a hop took the list, the next play of the same object starts a new one.
    pending.append(.data(thud), voice: voice, loops: 0)
    #expect(pending.plays.sources.count == 1 && pending.plays.requests.first?.sourceIndex == 0)
  }

  @Test(
    "the voice ring reuses the oldest finished voice nobody holds, in order, past held and unfinished ones, as it grows"
  )
  func voiceRing() {
    var ring = VoiceRecycler()
    var held: [Voice] = []
    var made: [ObjectIdentifier] = []
    // 100 voices: the ring grows from 64 to 128. Every tenth still plays; every third is held.
    for index in 0..<100 {
      let voice = Voice(
        id: UInt64(index), core: nil, state: index % 10 == 9 ? .playing : .finished, volume: 1, pan: 0)
      made.append(ObjectIdentifier(voice))
      if index % 3 == 0 { held.append(voice) }
      ring.keep(voice)
    }
    func pass() -> [Int] {
      var reused: [Int] = []
      for _ in 0..<100 {
        guard let voice = ring.reuse(id: 1_000, volume: 0.5, pan: 0, placement: nil) else { continue }
        #expect(voice.state == .pending && voice.id == 1_000 && voice.volume == 0.5)
        reused.append(made.firstIndex(of: ObjectIdentifier(voice)) ?? -1)
      }
      return reused
    }
    // One look a take, oldest first: a full pass turns the ring over once.
    #expect(pass() == (0..<100).filter { $0 % 3 != 0 && $0 % 10 != 9 })
    #expect(ring.count == 100)
    // The voices reused above are pending now; let the held ones go and only they come round.
    held.removeAll()
    #expect(pass() == (0..<100).filter { $0 % 3 == 0 && $0 % 10 != 9 })
    #expect(pass().isEmpty && ring.count == 100)
    ring.removeAll()
    #expect(ring.count == 0)
  }

  @Test(
    "held requests raise no hop until a forced one, which takes them all; a hop already raised is not raised again"
  )
  func heldRequests() {
    var pending = PendingRequests()
    let unmanaged = Unmanaged.passUnretained(Voice.finished(id: 1))
    var moves = [PlacementMove(unmanaged, to: SpatialPlacement(gain: 0.5, pan: 0))]
    var releases: [Unmanaged<Voice>] = []
    pending.isHeld = true
    pending.add(moves: &moves, releasing: &releases, overFrames: 800)
    #expect(pending.hasWork && pending.scheduleHop() == nil)
    let forced = pending.scheduleHop(evenIfHeld: true)
    #expect(forced == 0)
    #expect(pending.scheduleHop(evenIfHeld: true) == nil)
    _ = pending.take()
    #expect(pending.takePlacements().moves.count == 1)
    // Let go: hops are raised again as requests come.
    pending.isHeld = false
    moves.append(PlacementMove(unmanaged, to: SpatialPlacement(gain: 0.25, pan: 0)))
    pending.add(moves: &moves, releasing: &releases, overFrames: 800)
    #expect(pending.scheduleHop() == 1)
  }
}

extension MixerLogicTests {
  @Test(
    "playing bytes takes the same loops and rate as playing a sound: 0.1 s, looped once at rate 2, sounds for 0.1 s"
  )
  func playDataTakesLoopsAndRate() throws {
    let audio = try EmbeddedAudio(limiter: false)
    let level = makeToneWAV(frequency: 0, duration: 0.1, amplitude: 0.5)
    let looped = audio.engine.play(data: level, name: "level.wav", loops: 1)
    #expect(audio.advance(until: { looped.isFinished }, limit: 2))
    let first = audio.left.samples.filter { $0 != 0 }.count
    #expect(abs(first - 9_600) <= 512, "looped once: \(first) frames")
    let start = audio.frames
    let fast = audio.engine.play(data: level, name: "level.wav", loops: 1, rate: 2)
    #expect(audio.advance(until: { fast.isFinished }, limit: 2))
    let second = audio.left.samples[start...].filter { $0 != 0 }.count
    #expect(abs(second - 4_800) <= 512, "looped once at rate 2: \(second) frames")
  }
}
