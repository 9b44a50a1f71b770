#!/usr/bin/env bash
# Sets up what is missing, builds, and runs every test headlessly on real SDL with its dummy
# drivers (unless SDL_AUDIODRIVER / SDL_VIDEODRIVER already name others).
#   Scripts/test.sh [--tsan | --portable] [swift test arguments, e.g. --filter Limiter]
# --tsan builds and runs the suite under ThreadSanitizer (in .build-tsan); any report fails it.
# --portable builds with the POSIX platform seam (FOLEY_PORTABLE=1, in .build-portable: the
# calls every platform but Linux uses) and runs the suites that go through it: decoding,
# streaming, recording, the session, and the seam's own.
set -euo pipefail
cd "$(dirname "$0")/.."

# chromium: the browser inspector's tests load its page in a real headless browser; python3 runs
# the house check and, with python3-jsonschema, the sound map schema's tests.
FOLEY_EXTRA_PACKAGES="${FOLEY_EXTRA_PACKAGES:-} chromium python3 python3-jsonschema" Scripts/setup.sh

# The rules the compiler cannot check: `package` only where another module uses it, no test seam
# in production, one lock type (Scripts/check-house.py says what it found and where).
python3 Scripts/check-house.py

export SDL_AUDIODRIVER="${SDL_AUDIODRIVER:-dummy}"
# Engines the tests open without a logger of their own log at warning and above: the "audio open"
# line each of a few hundred engines would print is not news (Logger.foley reads this).
export FOLEY_LOG_LEVEL="${FOLEY_LOG_LEVEL:-warning}"
export SDL_VIDEODRIVER="${SDL_VIDEODRIVER:-dummy}"
flags=()
if [ "${1:-}" = "--tsan" ]; then
  shift
  flags=(--sanitize=thread --scratch-path .build-tsan)
  # Decoders run in forked children; TSan must let a child of a threaded process live. A report
  # makes the process exit with 66, which fails the run. The suppressions name reports inside
  # dependencies that are not races, each with its reason (a missing file stops the run).
  export TSAN_OPTIONS="${TSAN_OPTIONS:-die_after_fork=0:exitcode=66:second_deadlock_stack=1:suppressions=$PWD/Scripts/tsan-suppressions.txt}"
elif [ "${1:-}" = "--portable" ]; then
  shift
  flags=(--scratch-path .build-portable)
  export FOLEY_PORTABLE=1
  if [ "$#" -eq 0 ]; then
    set -- --filter 'DecodingServiceTests|StreamingServiceTests|UntrustedFileTests|DecoderTests|PlatformSeamTests|FoleyRecordingTests|FoleySessionTests|FoleyMusicTests'
  fi
fi
echo "test: SDL_AUDIODRIVER=$SDL_AUDIODRIVER SDL_VIDEODRIVER=$SDL_VIDEODRIVER ${flags[*]}"

# The compiler may not warn about Foley's own code (its sources, tests, demo and benchmarks):
# a warning fails the run, printed again at the end of the build. Dependencies' are theirs.
build_log="$(mktemp)"
trap 'rm -f "$build_log"' EXIT
swift build --build-tests ${flags[@]+"${flags[@]}"} 2>&1 | tee "$build_log"
if grep -E "^$PWD/(Sources|Tests|Demo|Benchmarks)/[^:]+:[0-9]+:[0-9]+: warning:" "$build_log"; then
  echo "test: the compiler warned about Foley's own code (above); fix it"
  exit 1
fi
# Every suite is Swift Testing; XCTest would only add an "Executed 0 tests" line. Arguments
# (--filter, --parallel, ...) are swift test's.
if [ -z "${TSAN_OPTIONS:-}" ] || [ "${flags[0]:-}" != "--sanitize=thread" ]; then
  swift test --skip-build --disable-xctest ${flags[@]+"${flags[@]}"} "$@"
  exit
fi
# Under ThreadSanitizer a report can sit thousands of lines above the end of a long run: keep the
# run's output and, if anything was reported, print every report again at the end.
log="$(mktemp)"
trap 'rm -f "$log" "$build_log"' EXIT
status=0
swift test --skip-build --disable-xctest "${flags[@]}" "$@" 2>&1 | tee "$log" || status=$?
if grep -q "WARNING: ThreadSanitizer" "$log"; then
  echo "test: ThreadSanitizer's reports in this run, again:"
  awk '/WARNING: ThreadSanitizer/ {show = 1} show {print} /^SUMMARY: ThreadSanitizer/ {show = 0; print "=="}' "$log"
  [ "$status" -ne 0 ] || status=66
fi
exit "$status"
