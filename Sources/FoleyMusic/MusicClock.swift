@_spi(FoleyStreams) import FoleyAudio
import Foundation

/// Where a music stream's musical moments fall in the engine's output: the tempo map of the
/// track each stretch of the ring came from, laid on the frames the mixer plays it on.
///
/// It reads only what other threads may read (the stream's segments under their lock, the
/// mixer's atomics), so the audio queue can ask it again when a scheduled start comes late.
struct MusicClock: Sendable {
  let stream: MusicStream
  let sampleRate: Double
  let rate: Double
  /// The engine's mixer, for the frame about to be mixed.
  let mixer: VoiceMixer

  /// The ring frame mixed last and the mix frame after it; nil until the stream has played. A
  /// stream paused with the session or the game, and not played since, plays its next ring frame
  /// no earlier than the frame about to be mixed: its moments are counted from there, so they are
  /// right from the first frame after a resume. (An ended stream's moments stay where they were.)
  private var anchor: (ring: Int, mix: Int)? {
    let origin = stream.effect.ringOrigin.load(ordering: .acquiring)
    guard origin != Int.min else { return nil }
    let ring = stream.framesRead
    guard stream.effect.isPaused.load(ordering: .acquiring) else { return (ring, origin + ring) }
    let mixed = Int(truncatingIfNeeded: mixer.framesMixed.load(ordering: .acquiring))
    return (ring, max(origin + ring, mixed))
  }

  /// The mix frame ring frame `ring` is heard on (at the music's rate).
  private func mixFrame(ofRing ring: Int, anchor: (ring: Int, mix: Int)) -> Int {
    anchor.mix + Int((Double(ring - anchor.ring) / rate).rounded())
  }

  /// The ring frame heard on mix frame `mix`, by where the stream is now; nil before it plays.
  func ringFrame(ofMix mix: Int) -> Int? { anchor.map { ringFrame(ofMix: mix, anchor: $0) } }

  /// The mix frame ring frame `ring` is heard on, by where the stream is now (a paused stream's
  /// from the frame about to be mixed); nil before it plays.
  func mixFrame(ofRing ring: Int) -> Int? { anchor.map { mixFrame(ofRing: ring, anchor: $0) } }

  /// The ring frame heard on mix frame `mix`.
  private func ringFrame(ofMix mix: Int, anchor: (ring: Int, mix: Int)) -> Int {
    anchor.ring + Int((Double(mix - anchor.mix) * rate).rounded(.up))
  }

  /// Where in its track the ring frame `ring` of `segment` is.
  private func trackTime(_ segment: MusicStream.Segment, ring: Int) -> Double {
    segment.trackTime + Double(ring - segment.startFrame) / sampleRate
  }

  /// The ring frame of `seconds` of track in `segment`.
  private func ring(_ segment: MusicStream.Segment, seconds: Double) -> Int {
    segment.startFrame + Int(((seconds - segment.trackTime) * sampleRate).rounded())
  }

  /// Where a segment's track ends or loops, in ring frames, when it is known: the next
  /// segment's start once written, else the loop seam or the end the track declares.
  private func end(
    of segment: MusicStream.Segment, next: MusicStream.Segment?
  ) -> (frame: Int, loopsTo: Double?)? {
    if let next { return (next.startFrame, nil) }
    let playing = segment.nowPlaying
    if playing.track.loopCount != 0, let loop = playing.loopRegion {
      return (ring(segment, seconds: loop.upperBound), loop.lowerBound)
    }
    if let duration = playing.duration { return (ring(segment, seconds: duration), nil) }
    return nil
  }

  /// The mix frame of the second of track `seconds(tempo)` gives, in the stretch of the ring being
  /// heard (the pass of a looping track now playing) and by that stretch's tempo map, past or to
  /// come; nil before the stream plays, or when what is heard has no tempo map.
  func frameHeard(at seconds: (TempoMap) -> Double) -> Int? {
    guard let anchor, let segment = stream.segments(from: anchor.ring).first,
      let tempo = segment.nowPlaying.tempo
    else { return nil }
    let second = seconds(tempo)
    guard second.isFinite else { return nil }
    return mixFrame(ofRing: ring(segment, seconds: second), anchor: anchor)
  }

  /// The musical time on mix frame `mix`, with the tempo map it was read from.
  func musicalTime(atMix mix: Int) -> MusicalTime? {
    guard let anchor else { return nil }
    let ring = ringFrame(ofMix: mix, anchor: anchor)
    guard let segment = stream.segments(from: ring).first, let tempo = segment.nowPlaying.tempo
    else { return nil }
    return tempo.musicalTime(at: trackTime(segment, ring: ring))
  }

  /// The first mix frame at or after `earliest` where `moment` falls; nil when the music has no
  /// such moment ahead that can be known (no tempo map, no such cue, an end not declared).
  func frame(of moment: MusicMoment, atOrAfter earliest: Int) -> Int? {
    guard let anchor else { return nil }
    switch moment {
    case .now: return max(earliest, anchor.mix)
    case .frame(let frame): return max(earliest, frame.index)
    default: break
    }
    let start = max(ringFrame(ofMix: earliest, anchor: anchor), anchor.ring)
    var segments = Array(stream.segments(from: start))
    var index = 0
    // Two passes over a loop at most: the moment is in this stretch, or after its seam.
    for _ in 0..<(segments.count + 2) {
      guard index < segments.count else { return nil }
      let segment = segments[index]
      let next = index + 1 < segments.count ? segments[index + 1] : nil
      let from = max(start, segment.startFrame)
      let ending = end(of: segment, next: next)
      let seconds: Double?
      switch moment {
      case .end: seconds = nil
      case .nextGrid:
        seconds = segment.nowPlaying.tempo?.next(.grid, atOrAfter: trackTime(segment, ring: from))
      case .nextBeat:
        seconds = segment.nowPlaying.tempo?.next(.beat, atOrAfter: trackTime(segment, ring: from))
      case .nextBar:
        seconds = segment.nowPlaying.tempo?.next(.bar, atOrAfter: trackTime(segment, ring: from))
      case .cue(let name):
        seconds = segment.nowPlaying.tempo?.next(.cue(name), atOrAfter: trackTime(segment, ring: from))
      case .now, .frame: seconds = nil
      }
      if let seconds {
        let frame = ring(segment, seconds: seconds)
        if ending == nil || frame < ending!.frame { return mixFrame(ofRing: frame, anchor: anchor) }
      } else if moment != .end, segment.nowPlaying.tempo == nil {
        return nil
      }
      guard let ending else { return nil }
      if moment == .end {
        return ending.frame >= start ? mixFrame(ofRing: ending.frame, anchor: anchor) : nil
      }
      if next == nil {
        // Not written yet: the loop's next pass, as the filler will write it.
        guard let loopStart = ending.loopsTo else { return nil }
        segments.append(
          MusicStream.Segment(
            startFrame: ending.frame, trackTime: loopStart, nowPlaying: segment.nowPlaying,
            kind: .loop(pass: 0), queuePosition: segment.queuePosition))
      }
      index += 1
    }
    return nil
  }

  /// The beats (and cues) mixed in the ring frames after `after` up to what has been mixed, on
  /// their mix frames; at most `limit`.
  func beats(after: Int, limit: Int) -> (beats: [MusicBeat], cues: [(String, Int)], through: Int) {
    guard let anchor else { return ([], [], after) }
    var beats: [MusicBeat] = []
    var cues: [(String, Int)] = []
    let segments = Array(stream.segments(from: after + 1))
    for (index, segment) in segments.enumerated() {
      guard let tempo = segment.nowPlaying.tempo else { continue }
      let end = min(anchor.ring, index + 1 < segments.count ? segments[index + 1].startFrame : .max)
      let from = max(after + 1, segment.startFrame)
      guard from < end else { continue }
      var (beat, fraction) = tempo.beat(at: trackTime(segment, ring: from))
      if fraction > 1e-9 { beat += 1 }
      while beats.count < limit {
        let frame = ring(segment, seconds: tempo.seconds(ofBeat: beat))
        guard frame < end else { break }
        if frame >= from {
          let (bar, inBar) = tempo.barAndBeat(ofBeat: beat)
          beats.append(
            MusicBeat(
              time: MusicalTime(bar: bar, beat: inBar, absoluteBeat: beat),
              frame: AudioFrame(mixFrame(ofRing: frame, anchor: anchor))))
        }
        beat += 1
      }
      for (name, seconds) in tempo.cues {
        let frame = ring(segment, seconds: seconds)
        if frame >= from, frame < end { cues.append((name, mixFrame(ofRing: frame, anchor: anchor))) }
      }
    }
    cues.sort { $0.1 < $1.1 }
    let through =
      beats.count < limit
      ? anchor.ring - 1
      : (beats.last.map { ringFrame(ofMix: $0.frame.index, anchor: anchor) } ?? anchor.ring - 1)
    return (beats, cues, through)
  }
}
