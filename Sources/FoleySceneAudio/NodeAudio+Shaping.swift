import FoleyAudio
import Foundation

/// A node's playback rate, reverb send, obstruction and occlusion, applied to its voices now and
/// to come (SpriteKit's `changePlaybackRate`, `changeReverb`, `changeObstruction`,
/// `changeOcclusion`).
///
/// Obstruction and occlusion are decibels in -100…0, as AVAudio3DMixing has them (0: nothing in
/// the way). Foley hears `d` dB as a low-pass at 20 kHz × 2^(d/6) (-12 dB: 5 kHz, -24 dB:
/// 1.25 kHz, -36 dB: 310 Hz) and a broadband gain of d/4 dB. Obstruction blocks the direct path
/// only: the reverb send is unchanged (the sound still fills the room). Occlusion blocks both:
/// the send drops by d/2 dB too. With both, the stronger filter applies and the gains multiply.
extension NodeAudio {
  /// The node's volume with its obstruction and occlusion gains.
  var effectiveVolume: Double {
    volume * Self.gain(obstruction) * Self.gain(occlusion)
  }

  // 0 dB (nothing in the way, the usual case) without a `pow`: both are read on every trigger.
  private static func gain(_ decibels: Double) -> Double { decibels == 0 ? 1 : pow(10, decibels / 80) }

  private var cutoff: Double {
    let strongest = min(obstruction, occlusion)
    return strongest >= 0 ? 20_000 : max(20, 20_000 * exp2(strongest / 6))
  }

  private var effectiveSend: Double {
    reverbSend == 0 || occlusion == 0 ? reverbSend : reverbSend * pow(10, occlusion / 40)
  }

  /// A voice the node just started takes on its shaping (its rate was given at the request).
  func shapeNew(_ voice: Voice) {
    if effectiveSend > 0 { voice.setReverbSend(effectiveSend) }
    if cutoff < 20_000 { voice.setLowPassCutoff(cutoff) }
  }

  package func setPlaybackRate(_ rate: Double, over duration: Double) {
    playbackRate = rate.clamped(to: VoiceShaping.rates, or: playbackRate)
    for voice in liveVoices { voice.setPlaybackRate(playbackRate, tween: Tween(duration: duration)) }
  }

  package func setReverbSend(_ level: Double, over duration: Double) {
    reverbSend = level.clamped(to: 0...1, or: reverbSend)
    for voice in liveVoices { voice.setReverbSend(effectiveSend, tween: Tween(duration: duration)) }
  }

  func setObstruction(_ decibels: Double, over duration: Double) {
    obstruction = decibels.clamped(to: -100...0, or: obstruction)
    applyFiltering(over: duration)
  }

  func setOcclusion(_ decibels: Double, over duration: Double) {
    occlusion = decibels.clamped(to: -100...0, or: occlusion)
    applyFiltering(over: duration)
  }

  private func applyFiltering(over duration: Double) {
    let volume = effectiveVolume
    for voice in liveVoices {
      voice.groupVolume = volume
      voice.setLowPassCutoff(cutoff, tween: Tween(duration: duration))
      voice.setReverbSend(effectiveSend, tween: Tween(duration: duration))
    }
  }
}
