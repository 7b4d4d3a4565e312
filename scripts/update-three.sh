#!/usr/bin/env bash
# Re-fetches the vendored three.js files of the viewer (crates/collide-view/assets/) from npm at
# the pinned version and checks them against the recorded sha256 sums. Pass --accept to record
# the sums of a new version (after changing VERSION).
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=0.170.0
TARBALL_SHA=4a608a355dcaba72e0e5383cdc814303f5b6060b43c238cdf6932dceb699238d
MODULE_SHA=08fd7545d13d2c7fb65ab691530a802dafefd638596501854f267d0fb13c39e7
ORBIT_SHA=80efaadea4f8a636a65fb0bd08bfef62f3d93a0bb94e2e7500f23176c5c07f4e
assets=crates/collide-view/assets
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "three@$VERSION" >/dev/null && tar xzf "three-$VERSION.tgz")
check() { # file expected-sha
  local got
  got="$(sha256sum "$1" | cut -d' ' -f1)"
  if [ "${ACCEPT:-0}" = 1 ]; then echo "$1 $got"; return; fi
  [ "$got" = "$2" ] || { echo "sha256 mismatch for $1: $got (expected $2)" >&2; exit 1; }
}
[ "${1:-}" = "--accept" ] && ACCEPT=1
check "$tmp/three-$VERSION.tgz" "$TARBALL_SHA"
check "$tmp/package/build/three.module.min.js" "$MODULE_SHA"
check "$tmp/package/examples/jsm/controls/OrbitControls.js" "$ORBIT_SHA"
cp "$tmp/package/build/three.module.min.js" "$assets/three.module.min.js"
cp "$tmp/package/examples/jsm/controls/OrbitControls.js" "$assets/OrbitControls.js"
cp "$tmp/package/LICENSE" "$assets/LICENSE-three"
echo "three@$VERSION vendored in $assets (sha256 checked)"
