#!/usr/bin/env bash
# Fuzzes Foley's sound loading: N mutated files (default 100,000) made from a seed corpus that is
# generated here with sox, lame, opusenc and flac (nothing downloaded, nothing committed), through
# Sound(data:), engine.sound(data:) and the playSound(data:) action. Prints the figures, writes
# fuzz-report.json, saves blobs that crashed or hung the game process in fuzz-findings/.
#   Scripts/fuzz.sh [N] [--seed S] [extra foley-fuzz options]
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-100000}"
[ $# -gt 0 ] && shift
FOLEY_EXTRA_PACKAGES="sox libsox-fmt-all lame opus-tools flac" Scripts/setup.sh
swift build -c release --product foley-fuzz
bin="$(swift build -c release --show-bin-path)/foley-fuzz"

seeds="$(mktemp -d)"
trap 'rm -rf "$seeds"' EXIT
tone() { sox -n -r "$2" -c "$3" -b 16 "$seeds/base-$1.wav" synth 0.3 sine 440 vol 0.5; }
tone mono 22050 1
tone stereo 44100 2
base="$seeds/base-mono.wav"
sox "$base" "$seeds/pcm.aiff"
sox "$base" -t aifc -e floating-point -b 32 "$seeds/float.aifc"
sox "$base" "$seeds/creative.voc"
for encoding in "ima-adpcm" "ms-adpcm" "a-law" "u-law"; do sox "$base" -e "$encoding" "$seeds/$encoding.wav"; done
sox "$base" -b 32 -e floating-point "$seeds/f32.wav"
sox "$base" -b 24 "$seeds/s24.wav"
sox "$base" -b 8 -e unsigned-integer "$seeds/u8.wav"
sox "$seeds/base-stereo.wav" -C 2 "$seeds/stereo.ogg"
sox "$base" -C 0 "$seeds/mono.ogg"
flac --silent -o "$seeds/stereo.flac" "$seeds/base-stereo.wav"
opusenc --quiet "$seeds/base-stereo.wav" "$seeds/stereo.opus"
lame --quiet -b 64 "$base" "$seeds/plain.mp3"
lame --quiet -b 128 --add-id3v2 --tt "Title" --ta "Artist" "$seeds/base-stereo.wav" "$seeds/id3.mp3"
# The 32-byte MP3 the hardening issue found crashing SDL_mixer's ID3 parser, and small MIDI and
# tracker-module headers (refused as formats, but their sniffing is fuzzed too).
printf '\x49\x44\x33\x03\x00\x00\x00\x00\x00\x0c\x54\x49\x54\x32\x00\x40\x00\x03\x00\x00\x00\x74\xff\xf3\x70\xc0\x00\x00\x00\x00\x00\x00' > "$seeds/id3-crash.mp3"
printf 'MThd\x00\x00\x00\x06\x00\x00\x00\x01\x00\x60MTrk\x00\x00\x00\x0c\x00\x90\x3c\x40\x60\x80\x3c\x40\x00\xff\x2f\x00' > "$seeds/note.mid"
{ head -c 1080 /dev/zero; printf 'M.K.'; head -c 1024 /dev/zero; } > "$seeds/empty.mod"

"$bin" --count "$count" --corpus Tests/Fixtures --corpus "$seeds" --report fuzz-report.json --save fuzz-findings "$@"
