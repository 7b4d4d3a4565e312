#!/usr/bin/env bash
# Pictures of corpus scenes with their contacts for the README and docs/viewer.md, made by
# `collide render` (CPU rasteriser) and one screenshot of `collide view`'s page in headless
# Chromium (skipped when chromium is not installed). Output: docs/pictures/*.png.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p collide-cli
collide=target/release/collide
c=conformance
out=docs/pictures
mkdir -p "$out"

render() { # name model states state [options…]
  local name="$1" model="$2" states="$3" state="$4"
  shift 4
  "$collide" render "$c/$model" --states "$c/states/$states.json" --state "$state" \
    -o "$out/$name.png" "$@"
}
render humanoid_crowd corpus/scenes/humanoid_crowd_22.xml scenes__humanoid_crowd_22 7 --azimuth 60 --elevation 35
render mesh_pile corpus/scenes/mesh_pile.xml scenes__mesh_pile 7 --azimuth 35 --elevation 62
render humanoid_self_contact corpus/dm_control/suite/humanoid.xml dm_control__humanoid 6 --azimuth 120 --elevation 25
render dog_self_contact corpus/dm_control/suite/dog.xml dm_control__dog 7
render box_pile corpus/scenes/box_pile.xml scenes__box_pile 7 --azimuth 40 --elevation 40
render robot_arm_hfield corpus/scenes/robot_arm_hfield.xml scenes__robot_arm_hfield 2 --azimuth 70 --elevation 35

if command -v chromium >/dev/null; then
  page="$PWD/target/pictures-crowd.html"
  "$collide" view "$c/corpus/scenes/humanoid_crowd_22.xml" --states "$c/states/scenes__humanoid_crowd_22.json" -o "$page"
  timeout 120 chromium --headless --no-sandbox --use-angle=swiftshader --enable-unsafe-swiftshader \
    --hide-scrollbars --virtual-time-budget=20000 --window-size=1000,650 \
    --screenshot="$PWD/$out/viewer.png" "file://$page?state=7" 2>/dev/null
else
  echo "chromium not installed: no viewer screenshot (scripts/test.d/30-browser.sh installs it)"
fi
ls -l "$out"
