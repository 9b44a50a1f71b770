#!/usr/bin/env bash
# Builds in release and runs the benchmarks: Foley's figures beside raw SDL_mixer (C) doing the
# same work, and pygame, measured in the same run. The CPU-compared groups run in interleaved
# rounds (Foley, C, Foley, C, ...) so a noisy neighbour hits both; the table gives each figure's
# median and minimum. Prints the table with the targets and writes bench-results.json.
#   Scripts/bench.sh [--quick] [--rounds N] [--output FILE]
set -euo pipefail
cd "$(dirname "$0")/.."

quick=""
rounds=3
output="bench-results.json"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick="--quick"; rounds=2 ;;
    --rounds) rounds="$2"; shift ;;
    --output) output="$2"; shift ;;
    *) echo "usage: Scripts/bench.sh [--quick] [--rounds N] [--output FILE]" >&2; exit 2 ;;
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
"$cc" -O2 -o "$work/raw_mixer" Benchmarks/Baselines/raw_mixer.c $(pkg-config --cflags --libs sdl2 SDL2_mixer) -lm

triggers=100000; seconds=8; idle_seconds=20
if [ -n "$quick" ]; then triggers=20000; seconds=3; idle_seconds=3; fi
foley="$work/foley.jsonl"
raw="$work/raw.jsonl"
# Each round's C figures as one JSON line, through a real encoder (Scripts/json-line.py).
json() { python3 Scripts/json-line.py "$@"; }
foley_group() { "$bin" $quick --only "$1" "$work/short.wav" "$work/long.wav" >> "$foley"; }

for round in $(seq 1 "$rounds"); do
  echo "bench: round $round of $rounds: triggers (Foley, then C)…" >&2
  foley_group trigger
  fields=()
  for channels in 16 64 256 1024; do
    result="$("$work/raw_mixer" trigger "$work/short.wav" "$channels" "$triggers")"
    fields+=("raw_c_trigger_cpu_us_by_channels.$channels=$result:cpu" "raw_c_trigger_us_by_channels.$channels=$result:wall")
  done
  floor="$("$work/raw_mixer" floor "$work/short.wav" 256 "$triggers")"
  json "${fields[@]}" "raw_c_trigger_floor_cpu_us=$floor:cpu" >> "$raw"
  echo "bench: round $round of $rounds: start-up (Foley, then C)…" >&2
  foley_group startup
  json "raw_c_first_sound_ms=$("$work/raw_mixer" firstsound "$work/long.wav")" >> "$raw"
  echo "bench: round $round of $rounds: mixing and idle (Foley, then C)…" >&2
  foley_group mix
  plain="$("$work/raw_mixer" mix "$work/long.wav" "$seconds" 64 plain s16)"
  same="$("$work/raw_mixer" mix "$work/long.wav" "$seconds" 64 same f32)"
  # Idle: both engines at once, over the same seconds, so whatever else the machine does falls
  # on both (each idles at about half a percent of a core, where one run alone is mostly noise).
  echo "bench: round $round of $rounds: idle (Foley and C side by side, ${idle_seconds} s)…" >&2
  "$bin" $quick --only idle "$work/short.wav" "$work/long.wav" > "$work/idle.json" &
  idle="$("$work/raw_mixer" idle "$idle_seconds" f32)"
  wait
  cat "$work/idle.json" >> "$foley"
  json "raw_mix_plain_cpu_seconds=$plain" "raw_mix_same_cpu_seconds=$same" "raw_idle_cpu_seconds=$idle" >> "$raw"
  echo "bench: round $round of $rounds: 256 voices and shaping (Foley, then C)…" >&2
  foley_group shaping
  many="$("$work/raw_mixer" mix "$work/long.wav" "$seconds" 256 same f32)"
  json "raw_c_mix_cpu_percent_256=$(awk -v cpu="$many" -v seconds="$seconds" 'BEGIN { printf "%.6f", cpu / seconds * 100 }')" >> "$raw"
done
echo "bench: actions, latency, memory, music, load, offline rendering, virtual voices, inspector, the inspector's map listing, sound map (Foley)…" >&2
foley_group actions
foley_group latency
foley_group memory
foley_group music
foley_group load
foley_group offline
foley_group virtual
foley_group inspector
foley_group inspectormap
foley_group soundmap
echo "bench: a rollback timeline through a 10-minute match, against engine.play (Foley)…" >&2
foley_group rollback
echo "bench: a busy game's whole frame, with sound and without (Foley)…" >&2
foley_group frame
echo "bench: scale curves: triggers, positional updates and the whole frame at 1, 4 and 16 times the load (Foley)…" >&2
foley_group scale
echo "bench: 256 moving positional voices (Foley, then C)…" >&2
foley_group positional
positional="$("$work/raw_mixer" positional "$work/long.wav" "$seconds" 256)"
json "raw_c_positional_update_us_256=$positional:update_us" "raw_c_positional_cpu_percent_256=$positional:cpu_percent" >> "$raw"

pygame_trigger=null
# Debian's python3-pygame belongs to /usr/bin/python3, which a pyenv or venv on PATH may hide.
py=/usr/bin/python3
[ -x "$py" ] || py="$(command -v python3 || echo python3)"
if "$py" -c "import pygame" >/dev/null 2>&1; then
  echo "bench: pygame…" >&2
  pygame_trigger="$("$py" Benchmarks/Baselines/pygame_trigger.py "$triggers" "$work/short.wav" 2>/dev/null | tail -1 || echo null)"
fi

FOLEY_ROUNDS="$foley" RAW_ROUNDS="$raw" PYGAME="$pygame_trigger" OUT="$output" \
  MACHINE="$(nproc) cores, $(uname -m), $(. /etc/os-release; echo "$PRETTY_NAME")" QUICK="$quick" \
  "$bin" --report
