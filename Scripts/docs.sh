#!/usr/bin/env bash
# Builds the documentation of every library product with swift-docc-plugin, one archive per
# module in .build/docs/, and fails on any DocC warning (a broken symbol link, an undocumented
# parameter). SwiftPM's own "prohibited flag(s): -D_REENTRANT, -pthread" lines are not DocC's:
# SDL2's and the codecs' pkg-config files carry those flags, SwiftPM drops them from system
# library targets and says so, and a package cannot quiet it without unsafe flags (which would
# stop games from depending on Foley).
#   Scripts/docs.sh            every product
#   Scripts/docs.sh FoleyAudio one module
set -euo pipefail
cd "$(dirname "$0")/.."

FOLEY_EXTRA_PACKAGES=python3 Scripts/setup.sh >/dev/null
modules=("$@")
if [ ${#modules[@]} -eq 0 ]; then
  # Every target of every library product, as the package itself declares them.
  mapfile -t modules < <(swift package describe --type json | python3 -c '
import json, sys
package = json.load(sys.stdin)
seen = []
for product in package["products"]:
    if "library" in product["type"]:
        seen += [target for target in product["targets"] if target not in seen]
print("\n".join(seen))')
  if [ ${#modules[@]} -eq 0 ]; then
    echo "docs: the package declares no library product" >&2
    exit 1
  fi
fi
mkdir -p .build/docs
failed=0
for module in "${modules[@]}"; do
  log=".build/docs/$module.log"
  if ! swift package --disable-sandbox --allow-writing-to-directory .build/docs \
    generate-documentation --target "$module" --output-path ".build/docs/$module.doccarchive" >"$log" 2>&1; then
    echo "docs: $module did not build (see $log)" >&2
    tail -20 "$log" >&2
    failed=1
    continue
  fi
  warnings=$(grep '^warning:' "$log" | grep -vc 'prohibited flag' || true)
  if [ "$warnings" -gt 0 ]; then
    echo "docs: $module: $warnings warning(s)" >&2
    grep -A3 '^warning:' "$log" | grep -v 'prohibited flag' >&2
    failed=1
  else
    echo "docs: $module: .build/docs/$module.doccarchive, no warnings"
  fi
done
exit $failed
