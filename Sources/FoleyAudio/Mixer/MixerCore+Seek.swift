/// A voice's seek on the queue: a virtual voice's clock and a waiting one's place move here; one
/// on a channel is moved by the mix (`VoiceMixer+Seek.swift`).
extension MixerCore {
  /// Takes `voice` to sound frame `frame`: a virtual or waiting voice's place is moved on the
  /// queue; one on a channel is moved by the mix, de-clicked (`VoiceMixer+Seek.swift`).
  func seek(_ voice: Voice, toFrame frame: Int) {
    queue.async { [self] in
      guard state.isOpen, voice.state != .finished else { return }
      let id = ObjectIdentifier(voice)
      if let entry = virtualEntry(of: voice) {
        guard entry.slot.stream == nil else { return }
        var moved = entry
        let reached = mixer.framesMixed.load(ordering: .acquiring)
        if let (_, loops) = place(of: entry, at: reached) { moved.slot.loops = loops }
        moved.slot.position = min(max(0, frame), max(0, entry.slot.sound.buffer.frames - 1))
        if !entry.isFrozen { moved.anchor = reached }
        state.virtual.voices[id] = moved
        return
      }
      if let orphan = state.orphans.firstIndex(where: { $0.voice === voice }) {
        guard state.orphans[orphan].stream == nil else { return }
        state.orphans[orphan].position = min(
          max(0, frame), max(0, state.orphans[orphan].sound.buffer.frames - 1))
        return
      }
      if let channel = table.channel(of: voice), table[channel]?.stream != nil { return }
      voice.seekRequest.store(frame, ordering: .relaxed)
    }
  }
}
