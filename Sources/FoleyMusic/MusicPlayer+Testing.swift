// What the tests and the benchmark read and a game has no use for: package members, out of the
// music's production files.
@_spi(FoleyStreams) import FoleyAudio

extension MusicPlayer {
  /// What the player's streams hold now: the streams, their rings' bytes and the segments kept
  /// to place "now playing". For tests and the benchmark: none of it grows with a track's length.
  package var footprint: (streams: Int, ringBytes: Int, segments: Int) {
    let streams = liveStreams
    return (
      streams.count, streams.reduce(0) { $0 + $1.ring.capacity }, streams.reduce(0) { $0 + $1.keptSegments }
    )
  }
}
