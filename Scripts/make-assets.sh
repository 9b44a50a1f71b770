#!/usr/bin/env bash
# Regenerates Foley's sound assets with sox. The results are committed, so only run this to
# change them. All are synthesised here: no third-party recordings, no licence questions.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v sox >/dev/null || { echo "make-assets: needs sox (apt-get install sox)" >&2; exit 1; }
command -v oggenc >/dev/null || { echo "make-assets: needs oggenc (apt-get install vorbis-tools)" >&2; exit 1; }
out=Assets
mkdir -p "$out"
# A short percussive blip for collisions.
sox -n -r 48000 -c 2 -b 16 "$out/blip.wav" synth 0.09 sine 880:440 fade q 0.002 0.09 0.06 vol 0.6
# A low thud.
sox -n -r 48000 -c 2 -b 16 "$out/thud.wav" synth 0.18 sine 120:50 fade q 0.002 0.18 0.15 vol 0.8
# A bright chime in three formats, to show the decoders.
sox -n -r 48000 -c 2 -b 16 "$out/chime.wav" synth 0.5 pluck C5 pluck E5 pluck G5 remix - fade 0 0.5 0.3 vol 0.5 channels 2
sox "$out/chime.wav" "$out/chime.ogg" 2>/dev/null || echo "make-assets: no OGG support in this sox"
sox "$out/chime.wav" "$out/chime.flac"
# Five ball hums, one per ball, each a second of a triangle wave at a whole number of hertz (so
# it loops without a click) and at its own pitch, far enough apart (17 % and more) that a listener —
# or a test — can tell the balls apart.
index=1
for hertz in 180 230 270 330 400; do
  sox -n -r 48000 -c 1 -b 16 "$out/hum$index.wav" synth 1 triangle "$hertz" tremolo 4 25 vol 0.35
  index=$((index + 1))
done
# A soft looping ambience (wind-like filtered noise).
sox -n -r 48000 -c 2 -b 16 "$out/ambience.wav" synth 4 brownnoise lowpass 500 fade 0.3 4 0.3 vol 0.25
# Two pieces of background music, streamed by the demo and crossfaded on a key.
mkdir -p "$out/Music"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# phrase OUT NOTE_SECONDS NOTE...: plucked notes one after another.
phrase() {
  local name=$1 length=$2
  shift 2
  local files=() index=0
  for note in "$@"; do
    sox -n -r 48000 -c 2 -b 16 "$work/n$index.wav" synth "$length" pluck "$note" fade 0.005 "$length" 0.05 vol 0.5
    files+=("$work/n$index.wav")
    index=$((index + 1))
  done
  sox "${files[@]}" "$name"
  rm -f "$work"/n*.wav
}
# "Calm Waters": C major arpeggios over a soft pad; a 2 s intro, then a 12 s loop region
# (LOOPSTART/LOOPLENGTH tags, so it loops seamlessly without replaying the intro).
phrase "$work/arp.wav" 0.25 C4 E4 G4 C5 G4 E4 C4 E4 A3 C4 E4 A4 E4 C4 A3 C4 F3 A3 C4 F4 C4 A3 F3 A3 G3 B3 D4 G4 D4 B3 G3 B3
sox "$work/arp.wav" "$work/arp.wav" "$work/arp2.wav"
sox "$work/arp2.wav" "$work/arp12.wav" trim 0 12
sox -n -r 48000 -c 2 -b 16 "$work/pad.wav" synth 12 sine C3 sine G3 sine E4 tremolo 0.2 40 vol 0.12
sox -m "$work/arp12.wav" "$work/pad.wav" "$work/loop.wav"
sox -n -r 48000 -c 2 -b 16 "$work/intro.wav" synth 2 sine C3 sine G3 sine E4 fade 1.8 2 0 vol 0.12
sox "$work/intro.wav" "$work/loop.wav" "$work/calm.wav"
oggenc --quiet -q 2 -t "Calm Waters" -a "Foley" -l "Foley demo" -c LOOPSTART=96000 -c LOOPLENGTH=576000 \
  -o "$out/Music/calm.ogg" "$work/calm.wav"
# "Tension": A minor, twice as fast, over a pulsing bass; loops whole.
phrase "$work/t.wav" 0.125 A3 C4 E4 A4 G4 E4 C4 E4 A3 C4 F4 A4 F4 C4 A3 C4 G3 B3 D4 G4 D4 B3 G3 B3 E3 G#3 B3 E4 B3 G#3 E3 G#3
sox "$work/t.wav" "$work/t.wav" "$work/t.wav" "$work/t12.wav"
sox -n -r 48000 -c 2 -b 16 "$work/bass.wav" synth 12 square A1 vol 0.25 tremolo 4 90 lowpass 300
sox -m "$work/t12.wav" "$work/bass.wav" "$work/tense.wav"
oggenc --quiet -q 2 -t "Tension" -a "Foley" -l "Foley demo" -o "$out/Music/tense.ogg" "$work/tense.wav"
# "Calm Waters (pulse)": the calm piece's intensity stem, a kick on every beat and a hat between, at
# its tempo (120 bpm, 4/4) and with its length and loop region, so the two loop sample-together.
command -v flac >/dev/null || { echo "make-assets: needs flac (apt-get install flac)" >&2; exit 1; }
sox -n -r 48000 -c 2 -b 16 "$work/beat.wav" synth 0.12 sine 90:45 fade q 0.002 0.12 0.1 vol 0.5 pad 0 0.38
sox -n -r 48000 -c 2 -b 16 "$work/hat.wav" synth 0.04 whitenoise highpass 6000 fade q 0.001 0.04 0.035 vol 0.1 pad 0 0.46
sox "$work/beat.wav" "$work/hat.wav" "$work/beat.wav" "$work/hat.wav" "$work/bar.wav"
sox "$work/bar.wav" "$work/bar.wav" "$work/bar.wav" "$work/bar.wav" "$work/bar.wav" "$work/bar.wav" "$work/bar.wav" "$work/pulse.wav"
flac --silent --force -T LOOPSTART=96000 -T LOOPLENGTH=576000 -T TITLE="Calm Waters (pulse)" \
  -o "$out/Music/calm-pulse.flac" "$work/pulse.wav"
echo "make-assets: wrote $(ls "$out" "$out/Music" | grep -v README | tr '\n' ' ')"
