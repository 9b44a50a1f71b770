#!/usr/bin/env bash
# Regenerates the small decoder fixtures in Tests/Fixtures (committed; only run this to change
# them): the same 0.25 s, 440 Hz tone at -6 dBFS in every format and encoding Foley decodes.
# Needs sox (with libsox-fmt-all), lame, opusenc, oggenc and flac.
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in sox lame opusenc oggenc flac; do
  command -v "$tool" >/dev/null || { echo "make-fixtures: needs $tool (apt-get install sox libsox-fmt-all lame opus-tools vorbis-tools flac)" >&2; exit 1; }
done
out=Tests/Fixtures
mkdir -p "$out"
tone() { sox -n -r "${2:-48000}" -c "${3:-1}" -b 16 "$1" synth 0.25 sine 440 vol 0.5; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tone "$work/mono48.wav"
tone "$work/stereo44.wav" 44100 2
cp "$work/mono48.wav" "$out/tone-s16.wav"
cp "$work/stereo44.wav" "$out/tone-stereo-44k.wav"
sox "$work/mono48.wav" -b 8 -e unsigned-integer "$out/tone-u8.wav"
sox "$work/mono48.wav" -b 24 "$out/tone-s24.wav"
sox "$work/mono48.wav" -b 32 -e floating-point "$out/tone-f32.wav"
sox "$work/mono48.wav" -e ima-adpcm "$out/tone-ima-adpcm.wav"
sox "$work/mono48.wav" -e ms-adpcm "$out/tone-ms-adpcm.wav"
sox "$work/mono48.wav" -e u-law "$out/tone-ulaw.wav"
sox "$work/mono48.wav" "$out/tone.aiff"
sox "$work/mono48.wav" -C 3 "$out/tone.ogg"
flac --silent --force -o "$out/tone.flac" "$work/mono48.wav"
opusenc --quiet --bitrate 64 "$work/mono48.wav" "$out/tone.opus"
lame --quiet -b 128 "$work/mono48.wav" "$out/tone.mp3"
# Music: a 1.5 s chirp (every stretch of it distinct, so a repeated or skipped sample shows),
# with a loop region of 0.5 s ..< 1.2 s (frames 24000 ..< 57600) in the tags of the formats
# that have them.
sox -n -r 48000 -c 1 -b 16 "$work/chirp.wav" synth 1.5 sine 200-2000 vol 0.5
cp "$work/chirp.wav" "$out/loop-chirp.wav"
oggenc --quiet -q 6 -c LOOPSTART=24000 -c LOOPLENGTH=33600 -o "$out/loop-chirp.ogg" "$work/chirp.wav"
flac --silent --force -T LOOPSTART=24000 -T LOOPLENGTH=33600 -o "$out/loop-chirp.flac" "$work/chirp.wav"
opusenc --quiet --bitrate 96 --comment LOOPSTART=24000 --comment LOOPLENGTH=33600 "$work/chirp.wav" "$out/loop-chirp.opus"
lame --quiet -b 192 "$work/chirp.wav" "$out/loop-chirp.mp3"
# Music that says its tempo: 5 s of silence with a click (0.5) on every bar line at 120 bpm in
# 4/4 (every 96,000 frames), and a BPM=120 tag.
python3 - "$work/bars.wav" <<'PY'
import struct, sys
frames = [0] * (48000 * 5)
for bar in range(0, len(frames), 96000): frames[bar] = 16384
data = b''.join(struct.pack('<h', value) for value in frames)
with open(sys.argv[1], 'wb') as out:
    out.write(b'RIFF' + struct.pack('<I', 36 + len(data)) + b'WAVEfmt ' + struct.pack('<IHHIIHH', 16, 1, 1, 48000, 96000, 2, 16) + b'data' + struct.pack('<I', len(data)) + data)
PY
flac --silent --force -T BPM=120 -o "$out/bars-120bpm.flac" "$work/bars.wav"
echo "make-fixtures: wrote $(ls "$out" | tr '\n' ' ')"
