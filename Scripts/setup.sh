#!/usr/bin/env bash
# Makes this machine ready to build and test Foley. Idempotent: installs only what is missing and
# says what it did. Installs on Debian and Ubuntu (apt-get: root or sudo); elsewhere it checks
# with pkg-config what the build needs and says what to install (the Platforms article).
set -euo pipefail

# Build and test needs: SDL2 and SDL_mixer headers, the decoders' headers (libvorbisfile,
# libopusfile, libFLAC, libmpg123; SDL_mixer pulls them in too, but Foley links them itself),
# libsamplerate (BSD) for real-time playback rates, libebur128 (MIT) for loudness, pkg-config to
# find them, git and CA
# certificates for SwiftPM to fetch dependencies. espeak-ng (GPL-3.0-or-later) for FoleySpeech
# and the demo, which link it; games using only `Foley` do not.
# sox regenerates Assets/ (Scripts/make-assets.sh); the committed assets do not need it.
packages=(pkg-config libsdl2-dev libsdl2-mixer-dev libvorbis-dev libopusfile-dev libflac-dev libmpg123-dev
  libsamplerate0-dev libebur128-dev libkissfft-dev libssl-dev libespeak-ng-dev espeak-ng-data git ca-certificates)
# FOLEY_EXTRA_PACKAGES: more packages, space-separated (bench.sh adds pygame for its baseline).
read -r -a extra <<<"${FOLEY_EXTRA_PACKAGES:-}"
packages+=("${extra[@]}")

say() { printf 'setup: %s\n' "$*"; }

# --list: print the packages, one line, for a game's own set-up (apt-get install $(… --list)).
if [ "${1:-}" = "--list" ]; then
  echo "${packages[*]}"
  exit 0
fi

# Not Debian or Ubuntu: no package of ours to install here. Say what is supported, and check the
# libraries the build links through pkg-config (as SwiftPM finds them).
if ! command -v dpkg-query >/dev/null; then
  modules=(sdl2 SDL2_mixer vorbisfile opusfile flac libmpg123 samplerate libebur128 libcrypto espeak-ng)
  case "$(uname -s)" in
    Darwin) hint="brew install pkg-config sdl2 sdl2_mixer libvorbis opusfile flac mpg123 libsamplerate libebur128 kissfft openssl@3 espeak-ng" ;;
    *) hint="your system's development packages for: ${modules[*]}" ;;
  esac
  say "$(uname -s): Foley installs its packages on Debian and Ubuntu only; it is built and tested on Linux, and written for macOS (see the Platforms article)"
  if ! command -v pkg-config >/dev/null; then
    say "no pkg-config here; install it and the libraries: $hint" >&2
    exit 1
  fi
  absent=()
  for module in "${modules[@]}"; do pkg-config --exists "$module" || absent+=("$module"); done
  if [ ${#absent[@]} -gt 0 ]; then
    say "pkg-config cannot find ${absent[*]}; install them: $hint" >&2
    exit 1
  fi
  say "pkg-config finds ${modules[*]}"
  exit 0
fi

missing=()
for package in "${packages[@]}"; do
  [ -n "$package" ] || continue
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  say "system packages present (${packages[*]})"
else
  if ! command -v apt-get >/dev/null; then
    say "missing ${missing[*]} and no apt-get here: install SDL2 and SDL2_mixer development files by hand" >&2
    exit 1
  fi
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    # -n: never stop to ask for a password in a script; say what to do instead.
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo="sudo -n"; else
      say "missing ${missing[*]}; run this script as root (or with password-less sudo) to install them" >&2
      exit 1
    fi
  fi
  say "installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  say "installed ${missing[*]}"
fi

if ! command -v swift >/dev/null; then
  say "no Swift toolchain on PATH: install Swift 6.1 or newer (swift.org)" >&2
  exit 1
fi
version=$(swift --version 2>&1 | sed -n 's/.*Swift version \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p' | head -1)
major=${version%%.*}
minor=${version#*.}
if [ -z "$version" ] || [ "$major" -lt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -lt 1 ]; }; then
  say "Swift ${version:-unknown} found; Foley needs 6.1 or newer" >&2
  exit 1
fi
say "Swift $version; SDL2 $(pkg-config --modversion sdl2), SDL2_mixer $(pkg-config --modversion SDL2_mixer)"
