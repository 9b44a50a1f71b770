#!/usr/bin/env bash
# Sets up what is missing, builds, and runs the Foley demo: in a window when there is a display,
# otherwise headless (it says which). Extra arguments go to foley-demo.
set -euo pipefail
cd "$(dirname "$0")/.."

Scripts/setup.sh
swift build --product foley-demo
bin="$(swift build --show-bin-path)/foley-demo"

if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo "demo: no display found: running headless on SDL's dummy drivers"
  export SDL_VIDEODRIVER="${SDL_VIDEODRIVER:-dummy}"
  export SDL_AUDIODRIVER="${SDL_AUDIODRIVER:-dummy}"
  report="${FOLEY_DEMO_REPORT:-demo-report.json}"
  "$bin" --headless --report "$report" "$@"
  echo "demo: the whole report (JSON) is in $report"
  exit 0
fi
echo "demo: display found: opening a window"
exec "$bin" "$@"
