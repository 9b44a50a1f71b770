#!/usr/bin/env bash
# Sets up what is missing, builds, and runs every test headlessly on real SDL with its dummy
# drivers (unless SDL_AUDIODRIVER / SDL_VIDEODRIVER already name others).
set -euo pipefail
cd "$(dirname "$0")/.."

Scripts/setup.sh

export SDL_AUDIODRIVER="${SDL_AUDIODRIVER:-dummy}"
export SDL_VIDEODRIVER="${SDL_VIDEODRIVER:-dummy}"
echo "test: SDL_AUDIODRIVER=$SDL_AUDIODRIVER SDL_VIDEODRIVER=$SDL_VIDEODRIVER"

swift build --build-tests
# Every suite is Swift Testing; XCTest would only add an "Executed 0 tests" line. Arguments
# (--filter, --parallel, ...) are swift test's.
swift test --skip-build --disable-xctest "$@"
