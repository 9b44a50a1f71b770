#!/usr/bin/env bash
# Builds a new game exactly as the README tells a newcomer to: a fresh package made of the
# README's first two Swift blocks (Package.swift and Sources/mygame/main.swift), beside a clone of
# this repository in a folder named Foley, with the three sounds the README names copied into its
# Assets. Then runs it for a few seconds on SDL's disk audio driver and dummy video driver and
# checks that it exits 0, logs no error, and that its sound reached the output file.
#   Scripts/check-embedding.sh [SECONDS]     (default 3; FOLEY_KEEP_EMBEDDING=1 keeps the folder)
set -euo pipefail
cd "$(dirname "$0")/.."
repository="$(pwd)"
seconds="${1:-3}"
say() { printf 'check-embedding: %s\n' "$*"; }

work="$(mktemp -d /tmp/foley-embedding.XXXXXX)"
if [ "${FOLEY_KEEP_EMBEDDING:-}" = 1 ]; then say "keeping $work"; else trap 'rm -rf "$work"' EXIT; fi

# The clone, as a newcomer has it: the repository's files (on CI's clean clone, the committed
# tree), without any build folder, in a folder named Foley.
mkdir "$work/Foley"
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' file; do
  [ -e "$file" ] && printf '%s\0' "$file"
done | tar --null -T - -cf - | tar -xf - -C "$work/Foley"
# The README's Swift blocks, in order; the first must be the manifest and the second main.swift.
mkdir -p "$work/mygame/Sources/mygame" "$work/mygame/Assets/Music"
python3 - "$repository/README.md" "$work/mygame" <<'PY'
import re, sys
readme = open(sys.argv[1], encoding="utf-8").read()
blocks = re.findall(r"^```swift\n(.*?)^```", readme, re.S | re.M)
if len(blocks) < 2 or not blocks[0].startswith("// swift-tools-version") or "import Foley" not in blocks[1]:
    sys.exit("check-embedding: the README's first two Swift blocks are not Package.swift and main.swift")
open(sys.argv[2] + "/Package.swift", "w", encoding="utf-8").write(blocks[0])
open(sys.argv[2] + "/Sources/mygame/main.swift", "w", encoding="utf-8").write(blocks[1])
PY
cp Assets/chime.wav Assets/ambience.wav "$work/mygame/Assets/"
cp Assets/Music/calm.ogg "$work/mygame/Assets/Music/"

cd "$work/mygame"
say "building a fresh package from the README (Foley is built from scratch inside it)"
swift build 2>&1 | grep -v "prohibited flag" | tail -n 5
output="$work/out.raw"
say "running it for $seconds s on the disk driver"
status=0
SDL_AUDIODRIVER=disk SDL_DISKAUDIOFILE="$output" SDL_VIDEODRIVER=dummy \
  timeout 120 .build/debug/mygame "$seconds" >"$work/stdout" 2>"$work/stderr" || status=$?
cat "$work/stdout" "$work/stderr"
if [ "$status" -ne 0 ]; then
  say "the game exited with status $status"
  exit 1
fi
if grep -q " error " "$work/stderr"; then
  say "the game logged an error"
  exit 1
fi
# The disk driver writes the device's format: 48 kHz float32 stereo, as the engine asks by default.
python3 - "$output" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
samples = struct.unpack("<%df" % (len(data) // 4), data[: len(data) // 4 * 4])
left, right = samples[0::2], samples[1::2]
rms = lambda xs: (sum(x * x for x in xs) / max(len(xs), 1)) ** 0.5
seconds = len(samples) / 2 / 48000
print("check-embedding: %.1f s of output, RMS left %.4f, right %.4f" % (seconds, rms(left), rms(right)))
if seconds < 1 or rms(left) < 0.005 or rms(right) < 0.005:
    sys.exit("check-embedding: no sound in the output")
PY
say "ok: the README's game builds, runs and sounds"
