#!/usr/bin/env bash
# Builds in release and runs the benchmarks: Foley's figures beside raw SDL_mixer (C) and pygame,
# measured in the same run. Prints a table with the targets and writes bench-results.json.
#   Scripts/bench.sh [--quick] [--output FILE]
set -euo pipefail
cd "$(dirname "$0")/.."

quick=""
output="bench-results.json"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick="--quick" ;;
    --output) output="$2"; shift ;;
    *) echo "usage: Scripts/bench.sh [--quick] [--output FILE]" >&2; exit 2 ;;
  esac
  shift
done

# pygame is optional (its figure is null without it); try to install it with the rest.
FOLEY_EXTRA_PACKAGES="python3 python3-pygame" Scripts/setup.sh || Scripts/setup.sh
export SDL_AUDIODRIVER="${SDL_AUDIODRIVER:-dummy}"

swift build -c release --product foley-bench
bin="$(swift build -c release --show-bin-path)/foley-bench"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$bin" --write-sounds "$work"

cc=$(command -v cc || command -v clang)
"$cc" -O2 -o "$work/raw_mixer" Benchmarks/Baselines/raw_mixer.c $(pkg-config --cflags --libs sdl2 SDL2_mixer)

triggers=100000; mix_seconds=10
if [ -n "$quick" ]; then triggers=20000; mix_seconds=3; fi

echo "bench: Foley (release)…" >&2
foley_json="$("$bin" $quick "$work/short.wav" "$work/long.wav")"
echo "bench: raw SDL_mixer (C)…" >&2
raw_trigger="$("$work/raw_mixer" trigger "$triggers" "$work/short.wav")"
raw_mix_cpu="$("$work/raw_mixer" mix "$mix_seconds" "$work/long.wav" 64)"
pygame_trigger=null
# Debian's python3-pygame belongs to /usr/bin/python3, which a pyenv or venv on PATH may hide.
py=/usr/bin/python3
[ -x "$py" ] || py="$(command -v python3 || echo python3)"
if "$py" -c "import pygame" >/dev/null 2>&1; then
  echo "bench: pygame…" >&2
  pygame_trigger="$("$py" Benchmarks/Baselines/pygame_trigger.py "$triggers" "$work/short.wav" 2>/dev/null | tail -1 || echo null)"
fi

FOLEY="$foley_json" RAW_TRIGGER="$raw_trigger" RAW_MIX="$raw_mix_cpu" PYGAME="$pygame_trigger" OUT="$output" \
  MACHINE="$(nproc) cores, $(uname -m), $(. /etc/os-release; echo "$PRETTY_NAME")" QUICK="$quick" \
  "$bin" --report
