public import FoleyAudio
public import FoleyMusic
public import FoleyScene
public import Foundation

extension Action {
  /// Plays sound bytes on a channel of their own, so the same sound overlaps itself.
  ///
  /// The bytes are decoded once per engine however often the action runs (the cache is keyed on
  /// the bytes). While the audio session is inactive the action does nothing, finishes at once
  /// and counts as suppressed.
  ///
  /// ```swift
  /// let boom = try Data(contentsOf: URL(fileURLWithPath: "Assets/boom.wav"))
  /// sprite.run(.sequence([.playSound(data: boom, waitForCompletion: true), .removeFromParent()]))
  /// ```
  ///
  /// - Parameters:
  ///   - data: the sound's bytes, decoded once per engine and then reused.
  ///   - name: the asset's name for logs and errors.
  ///   - volume: this play's gain in 0...1, times the node's volume.
  ///   - pan: this play's stereo position, added to the node's.
  ///   - loops: extra passes after the first; -1 loops until the voice is stopped.
  ///   - rate: the playback rate it starts at, times the node's.
  ///   - start: when it starts: now, or on a frame of the engine's clock, to the sample.
  ///   - fadeIn: how it comes in, from silence, along a tween (at once unless given). The same
  ///     options as `AudioEngine.play(_:volume:pan:loops:rate:start:fadeIn:)`.
  ///   - waitForCompletion: true to finish when the sound ends (seen at the next scene update);
  ///     false to finish at once.
  ///   - engine: the engine to play through; by default the one attached to the node's scene
  ///     (`AudioEngine.attach(to:)`). Without one the action does nothing.
  public static func playSound(
    data: Data, name: String? = nil, volume: Double = 1, pan: Double = 0, loops: Int = 0, rate: Double = 1,
    start: Tween.Start = .now, fadeIn: Tween = .immediate, waitForCompletion: Bool = false,
    engine: AudioEngine? = nil
  ) -> Action {
    .behavior(
      PlaySoundBehavior(
        source: .data(SoundDataReference(data: data, name: name)), waitForCompletion: waitForCompletion,
        engine: engine, volume: volume, loops: loops,
        options: .given(pan: pan, rate: rate, start: start, fadeIn: fadeIn)))
  }

  /// Plays a sound file from the engine's asset root (`Assets/` by default), loaded and decoded
  /// once by name. SpriteKit's `playSoundFileNamed(_:waitForCompletion:)`, with the play options
  /// every other way to play takes.
  ///
  /// ```swift
  /// ball.run(.playSoundFileNamed("hit.wav", waitForCompletion: false))
  /// ball.run(.playSoundFileNamed("hit.wav", volume: 0.6, rate: 1.2, waitForCompletion: false))
  /// ```
  ///
  /// - Parameters:
  ///   - name: the file's name under the asset root.
  ///   - volume: this play's gain in 0...1, times the node's volume.
  ///   - pan: this play's stereo position, added to the node's.
  ///   - loops: extra passes after the first; -1 loops until the voice is stopped.
  ///   - rate: the playback rate it starts at, times the node's.
  ///   - start: when it starts: now, or on a frame of the engine's clock, to the sample.
  ///   - fadeIn: how it comes in, from silence, along a tween (at once unless given). The same
  ///     options as `AudioEngine.play(_:volume:pan:loops:rate:start:fadeIn:)`.
  ///   - waitForCompletion: true to finish when the sound ends; false to finish at once.
  ///   - engine: the engine to play through; by default the one attached to the node's scene
  ///     (nil: that one).
  public static func playSoundFileNamed(
    _ name: String, volume: Double = 1, pan: Double = 0, loops: Int = 0, rate: Double = 1,
    start: Tween.Start = .now, fadeIn: Tween = .immediate, waitForCompletion: Bool,
    engine: AudioEngine? = nil
  ) -> Action {
    .behavior(
      PlaySoundBehavior(
        source: .named(name), waitForCompletion: waitForCompletion, engine: engine, volume: volume,
        loops: loops, options: .given(pan: pan, rate: rate, start: start, fadeIn: fadeIn)))
  }

  /// Plays an already decoded `Sound` (its settings: volume, pitch, category, limits) on a
  /// channel of its own, as the other sound actions do.
  ///
  /// ```swift
  /// let chime = try engine.sound(named: "chime.wav")
  /// node.run(.repeatForever(.sequence([.playSound(chime), .wait(forDuration: 2)])))
  /// node.run(.playSound(chime, volume: 0.5, rate: 1.5, fadeIn: 0.2))
  /// ```
  ///
  /// - Parameters:
  ///   - sound: what to play.
  ///   - volume: this play's gain in 0...1, times the node's volume.
  ///   - pan: this play's stereo position, added to the node's.
  ///   - loops: extra passes after the first; -1 loops until the voice is stopped.
  ///   - rate: the playback rate it starts at, times the node's.
  ///   - start: when it starts: now, or on a frame of the engine's clock, to the sample.
  ///   - fadeIn: how it comes in, from silence, along a tween (at once unless given). The same
  ///     options as `AudioEngine.play(_:volume:pan:loops:rate:start:fadeIn:)`.
  ///   - waitForCompletion: true to finish when the sound ends; false to finish at once.
  ///   - engine: the engine to play through; by default the one attached to the node's scene.
  public static func playSound(
    _ sound: Sound, volume: Double = 1, pan: Double = 0, loops: Int = 0, rate: Double = 1,
    start: Tween.Start = .now, fadeIn: Tween = .immediate, waitForCompletion: Bool = false,
    engine: AudioEngine? = nil
  ) -> Action {
    .behavior(
      PlaySoundBehavior(
        source: .sound(sound), waitForCompletion: waitForCompletion, engine: engine, volume: volume,
        loops: loops,
        options: .given(pan: pan, rate: rate, start: start, fadeIn: fadeIn)))
  }

  /// Changes the volume of the voices the node started (and will start) to `volume` over
  /// `duration` seconds.
  public static func changeVolume(to volume: Double, duration: TimeInterval) -> Action {
    .behavior(
      NodeAudioChangeBehavior(property: .volume, target: volume, relative: false, duration: duration))
  }

  /// Changes the volume of the node's voices by `delta` over `duration` seconds.
  public static func changeVolume(by delta: Double, duration: TimeInterval) -> Action {
    .behavior(NodeAudioChangeBehavior(property: .volume, target: delta, relative: true, duration: duration))
  }

  /// Plays `track` on the engine's music player (`AudioEngine/music`) in place of what plays,
  /// crossfading over `crossfade` seconds (both heard at once, on equal-power curves). The action
  /// finishes at once; the music plays on.
  ///
  /// ```swift
  /// let boss = Track(named: "Music/boss.ogg", loopCount: -1)
  /// scene.run(.sequence([.wait(forDuration: 2), .playMusic(boss, tween: 1.5)]))
  /// ```
  ///
  /// - Parameters:
  ///   - track: what to play.
  ///   - tween: how the new track comes in as the old one goes (a crossfade along its easing).
  ///   - engine: the engine whose music it is; by default the one attached to the
  ///     node's scene. Without one the action does nothing.
  public static func playMusic(
    _ track: Track, tween: Tween = .immediate, engine: AudioEngine? = nil
  ) -> Action {
    .behavior(MusicBehavior(command: .play(track, tween: tween), engine: engine))
  }

  /// Stops the engine's music, fading out along `tween`. The action finishes at once.
  public static func stopMusic(tween: Tween = .immediate, engine: AudioEngine? = nil) -> Action {
    .behavior(MusicBehavior(command: .stop(tween: tween), engine: engine))
  }

  /// Starts an ``AudioNode``'s sound (or resumes it); on another node, resumes the voices its
  /// sound actions started. SpriteKit's `SKAction.play()`.
  public static func play() -> Action {
    .behavior(PlaybackBehavior(command: .play))
  }

  /// Pauses an ``AudioNode``'s sound, or the voices a node's sound actions started.
  public static func pause() -> Action {
    .behavior(PlaybackBehavior(command: .pause))
  }

  /// Stops an ``AudioNode``'s sound (with a short ramp), or the voices a node's sound actions
  /// started.
  public static func stop() -> Action {
    .behavior(PlaybackBehavior(command: .stop))
  }

  /// Moves the stereo pan of the node's voices to `pan` (-1 left ... 1 right) over `duration`.
  /// On a positional voice it shifts the pan its place gives it.
  public static func stereoPan(to pan: Double, duration: TimeInterval) -> Action {
    .behavior(
      NodeAudioChangeBehavior(
        property: .pan, target: min(1, max(-1, pan)), relative: false, duration: duration))
  }

  /// Changes the playback rate of the node's voices (now and to come) to `rate` over `duration`
  /// seconds: pitch and tempo together, as SpriteKit's `changePlaybackRate(to:duration:)`.
  /// Rates are clamped to 0.25…4; every kind of voice follows, looped sounds and audio nodes
  /// included.
  ///
  /// ```swift
  /// engine.run(.changePlaybackRate(to: 1.5, duration: 0.8))   // spin up
  /// ```
  public static func changePlaybackRate(to rate: Double, duration: TimeInterval) -> Action {
    .behavior(
      NodeAudioChangeBehavior(property: .playbackRate, target: rate, relative: false, duration: duration))
  }

  /// Changes the playback rate of the node's voices by `delta` over `duration` seconds.
  public static func changePlaybackRate(by delta: Double, duration: TimeInterval) -> Action {
    .behavior(
      NodeAudioChangeBehavior(property: .playbackRate, target: delta, relative: true, duration: duration))
  }

  /// Changes how much of the node's voices goes to the engine's reverb (`AudioEngine/reverb`),
  /// 0…1, over `duration` seconds: SpriteKit's `changeReverb(to:duration:)`.
  ///
  /// ```swift
  /// engine.reverb.apply(.cave)
  /// player.run(.changeReverb(to: 0.6, duration: 0.5))        // walks into the cave
  /// ```
  public static func changeReverb(to level: Double, duration: TimeInterval) -> Action {
    .behavior(NodeAudioChangeBehavior(property: .reverb, target: level, relative: false, duration: duration))
  }

  /// Changes the node's obstruction (something between it and the listener, the room around it
  /// still open) to `decibels` (-100…0; 0: none) over `duration` seconds, as AVAudio3DMixing
  /// measures it: the direct sound is low-passed and lowered, its reverb send is not.
  ///
  /// ```swift
  /// ball.run(.changeObstruction(to: -24, duration: 0.2))      // rolls behind a pillar
  /// ```
  public static func changeObstruction(to decibels: Double, duration: TimeInterval) -> Action {
    .behavior(
      NodeAudioChangeBehavior(property: .obstruction, target: decibels, relative: false, duration: duration))
  }

  /// Changes the node's occlusion (it is in another room, behind a wall) to `decibels` (-100…0)
  /// over `duration` seconds: the direct sound and its reverb send are both low-passed and
  /// lowered.
  public static func changeOcclusion(to decibels: Double, duration: TimeInterval) -> Action {
    .behavior(
      NodeAudioChangeBehavior(property: .occlusion, target: decibels, relative: false, duration: duration))
  }

  /// Moves the stereo pan of the node's voices by `delta` over `duration`.
  public static func stereoPan(by delta: Double, duration: TimeInterval) -> Action {
    .behavior(NodeAudioChangeBehavior(property: .pan, target: delta, relative: true, duration: duration))
  }
}
