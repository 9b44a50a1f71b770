#!/usr/bin/env bash
# Regenerates Foley's sound assets with sox. The results are committed, so only run this to
# change them. All are synthesised here: no third-party recordings, no licence questions.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v sox >/dev/null || { echo "make-assets: needs sox (apt-get install sox)" >&2; exit 1; }
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
# A soft looping ambience (wind-like filtered noise).
sox -n -r 48000 -c 2 -b 16 "$out/ambience.wav" synth 4 brownnoise lowpass 500 fade 0.3 4 0.3 vol 0.25
echo "make-assets: wrote $(ls "$out" | grep -v README | tr '\n' ' ')"
