@_spi(FoleyStreams) public import FoleyAudio
public import Foundation

/// A piece of music to stream: a file, an asset name or bytes, in any format Foley decodes, with
/// optional loop points (overriding the file's own `LOOPSTART`/`LOOPEND`/`LOOPLENGTH` tags or WAV
/// sampler loop) and a loop count. Only about a second of it is ever decoded ahead, however long
/// it is.
///
/// ```swift
/// let theme = Track(named: "Music/theme.ogg")              // found in the engine's asset roots
/// var battle = Track(url: battleURL, loopCount: -1)       // its loop region again and again
/// battle.loopRegion = 12.0..<96.5                          // seconds: intro, then the loop
/// music.play(battle)
/// ```
public struct Track: Sendable, Hashable, CustomStringConvertible {
  /// Where the track's bytes come from.
  public enum Origin: Sendable, Hashable {
    case file(URL)
    /// A name inside the engine's asset roots (the same rule as `AudioEngine.sound(named:)`).
    case named(String)
    case data(Data, name: String)
  }

  public var origin: Origin
  /// Passes of the loop region after the first play through: 0 plays once, n plays the loop
  /// region n more times (as `AVAudioPlayer.numberOfLoops`), -1 loops until stopped.
  public var loopCount: Int
  /// The loop region in seconds of the track; nil uses the file's loop tags, or the whole track.
  public var loopRegion: Range<Double>?
  /// A title to show instead of the file's own.
  public var title: String?
  /// Where its beats and bars fall, for the music's clock (``MusicPlayer/musicalTime``, beat
  /// events, stingers and transitions on the next beat or bar); nil: it keeps time in seconds
  /// only.
  public var tempo: TempoMap?

  public init(url: URL, loopCount: Int = 0, loopRegion: Range<Double>? = nil, title: String? = nil) {
    self.init(origin: .file(url), loopCount: loopCount, loopRegion: loopRegion, title: title)
  }

  public init(named name: String, loopCount: Int = 0, loopRegion: Range<Double>? = nil, title: String? = nil)
  {
    self.init(origin: .named(name), loopCount: loopCount, loopRegion: loopRegion, title: title)
  }

  public init(
    data: Data, name: String, loopCount: Int = 0, loopRegion: Range<Double>? = nil, title: String? = nil
  ) {
    self.init(origin: .data(data, name: name), loopCount: loopCount, loopRegion: loopRegion, title: title)
  }

  public init(origin: Origin, loopCount: Int = 0, loopRegion: Range<Double>? = nil, title: String? = nil) {
    self.origin = origin
    self.loopCount = loopCount
    self.loopRegion = loopRegion
    self.title = title
  }

  /// The file's name, the asset name, or the name given with the bytes.
  public var name: String {
    switch origin {
    case .file(let url): url.lastPathComponent
    case .named(let name): name
    case .data(_, let name): name
    }
  }

  public var description: String { name }
}

/// What is playing: the track and what its file says about itself.
public struct NowPlaying: Sendable, Hashable {
  public var track: Track
  /// The track's title (the one given, the file's tag, or the file name).
  public var title: String
  public var artist: String?
  public var album: String?
  /// The track's length in seconds, when the file says.
  public var duration: Double?
  /// The loop region in seconds, when there is one (the given one, the file's tags, or the whole
  /// track for a track that loops).
  public var loopRegion: Range<Double>?
  /// The format's name ("OGG Vorbis", "FLAC", ...).
  public var format: String
  /// Where its beats and bars fall: the track's ``Track/tempo``, else a `BPM` tag in the file
  /// (Vorbis comments: Ogg Vorbis, Opus, FLAC) read as 4/4 from the first sample; nil when
  /// neither says.
  public var tempo: TempoMap?
  /// Its integrated loudness and true peak, measured by the check that reads every track to its
  /// end before it streams (range not measured: 0); nil when tracks are not checked
  /// (`isolatesDecoders` off).
  public var loudness: Loudness?
}

/// Something that happened to the music, delivered on the game thread (the main actor) when it is
/// heard, not when it was decoded.
public enum MusicEvent: Sendable, Hashable {
  /// A track began to be heard: the first, a skip, a crossfade's incoming track, or the next one
  /// in the queue (at its first sample, gaplessly).
  case trackChanged(NowPlaying)
  /// The loop region came round again; `pass` counts from 1.
  case looped(NowPlaying, pass: Int)
  /// A track could not be played; the player went on to the next one, if any.
  case failed(Track, SoundError)
  /// Nothing plays any more: the queue ran out, or the music was stopped.
  case finished
  /// A beat of a track with a ``TempoMap`` was mixed (delivered when it is, within a frame).
  case beat(MusicBeat)
  /// A cue of the track's ``TempoMap`` was mixed, on `frame`.
  case cue(String, frame: AudioFrame)
  /// A stinger or transition asked for at a musical moment could not make it (its track was not
  /// ready, or the request came too late): it moved to the moment's next occurrence.
  case momentMoved(MusicMoment, from: AudioFrame, to: AudioFrame)
}

/// One beat of the music, on the frame of output it starts on.
public struct MusicBeat: Sendable, Hashable, CustomStringConvertible {
  /// Its bar and beat (fraction 0).
  public var time: MusicalTime
  /// The frame of output it falls on (`AudioEngine/audioFrame`'s count).
  public var frame: AudioFrame
  /// The first beat of a bar.
  public var isDownbeat: Bool { time.beat == 1 && time.bar > 0 }

  public var description: String { "\(time.bar):\(time.beat) at \(frame)" }
}

/// When, in the music, something asked for happens.
public enum MusicMoment: Sendable, Hashable, CustomStringConvertible {
  /// As soon as it can.
  case now
  /// The next step of the grid its tempo map lays on each beat (``TempoMap/grid``).
  case nextGrid
  case nextBeat
  case nextBar
  /// The next time the music reaches this cue of its ``TempoMap``.
  case cue(String)
  /// The end of what plays: the end of the track, or the loop seam of a looping one.
  case end
  /// An exact frame of output.
  case frame(AudioFrame)

  public var description: String {
    switch self {
    case .now: "now"
    case .nextGrid: "next grid step"
    case .nextBeat: "next beat"
    case .nextBar: "next bar"
    case .cue(let name): "cue \(name)"
    case .end: "end"
    case .frame(let frame): "\(frame)"
    }
  }
}
