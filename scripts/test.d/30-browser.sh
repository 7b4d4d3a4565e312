#!/usr/bin/env bash
# Browser tests of the viewer page (`collide view`) in headless Chromium (Debian package,
# installed here when missing). On corpus models of every kind the page must get ready without
# error and draw as many contacts as `collide contacts` finds in each state (the page counts what
# it put on screen); follow the query `?state=K`, slider input events and a filter typed into the
# geom box; show a name on hover; draw exactly the matching contacts under the geom filter
# `?geom=#A` and the pair filter `?geom=#A&with=#B`; and its screenshot must not be blank (the
# canvas part, right of the control panel, holds >= 200 colours, none over 90% of it).
# Last line: `browser: N passed, M failed`.
set -uo pipefail
cd "$(dirname "$0")/../.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
need=()
command -v chromium >/dev/null || need+=(chromium)
command -v python3 >/dev/null || need+=(python3)
if [ ${#need[@]} -gt 0 ]; then
  as_root apt-get update -qq && DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${need[@]}" >/dev/null
fi
command -v chromium >/dev/null || { echo "chromium could not be installed"; echo "browser: 0 passed, 1 failed"; exit 1; }

cargo build --release -q -p collide-cli || { echo "browser: 0 passed, 1 failed"; exit 1; }
collide=target/release/collide
check=scripts/browser_check.py
out=target/browser
rm -rf "$out" && mkdir -p "$out"

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

chrome() { # url extra-args…
  local url="$1"
  shift
  timeout 120 chromium --headless --no-sandbox --disable-gpu-sandbox --use-angle=swiftshader \
    --enable-unsafe-swiftshader --hide-scrollbars --user-data-dir="$out/profile" \
    --virtual-time-budget=20000 --window-size=900,600 "$@" "$url" 2>/dev/null
}
attr() { grep -E "^$2=" "$1" | head -1 | cut -d= -f2-; }

# name: mesh hulls, height fields, primitives, a large crowd
models=(
  scenes/humanoid_crowd_22
  scenes/mesh_pile
  scenes/robot_arm_hfield
  dm_control/quadruped
  scenes/box_pile
  scenes/dice
  scenes/ellipsoid_cylinder_pile
  dm_control/humanoid
)
shots=(scenes/humanoid_crowd_22 scenes/mesh_pile scenes/robot_arm_hfield)
# the single-geom filter on some models only (every Chromium start costs seconds)
geomfilter=(scenes/humanoid_crowd_22 scenes/mesh_pile dm_control/quadruped scenes/box_pile)

for name in "${models[@]}"; do
  key="${name//\//__}"
  xml="$(python3 -c "import json,sys; print(next(m['path'] for m in json.load(open('conformance/corpus.json'))['models'] if m['name']==sys.argv[1]))" "$name")"
  xml="conformance/$xml"
  states="conformance/states/$key.json"
  html="$PWD/$out/$key.html"
  if ! "$collide" view "$xml" --states "$states" -o "$html" >/dev/null \
    || ! "$collide" contacts "$xml" --states "$states" >"$out/$key.contacts.json" 2>/dev/null; then
    bad "$name: collide view/contacts failed"
    continue
  fi
  size=$(stat -c %s "$html")
  expect="$(python3 $check expect "$out/$key.contacts.json")"
  read -r k a b <<<"$(python3 $check pick "$out/$key.contacts.json")"
  nk="$(echo "$expect" | cut -d, -f$((k + 1)))"

  # every state's drawn count, the slider query, and the controls driven by the page's uitest
  ua="$a"; [ "$ua" -ge 0 ] || ua=0
  chrome "file://$html?state=$k&uitest=%23$ua" --dump-dom >"$out/$key.dom.html"
  python3 $check dom "$out/$key.dom.html" >"$out/$key.attrs"
  if [ "$(attr "$out/$key.attrs" ready)" != 1 ] || grep -q '^error=' "$out/$key.attrs"; then
    bad "$name: page not ready ($(attr "$out/$key.attrs" error))"
    continue
  fi
  got="$(attr "$out/$key.attrs" ncon-states)"
  if [ "$got" = "$expect" ]; then ok "$name: contacts drawn per state = collide contacts ($expect; page $((size / 1024)) KB)"; else bad "$name: drawn per state $got, collide contacts $expect"; fi
  got="$(attr "$out/$key.attrs" state),$(attr "$out/$key.attrs" ncon)"
  if [ "$got" = "$k,$nk" ]; then ok "$name: ?state=$k shows state $k with $nk contacts"; else bad "$name: ?state=$k gave state,ncon $got, want $k,$nk"; fi
  got="$(attr "$out/$key.attrs" ui-slider)"
  if [ "$got" = "$expect" ]; then ok "$name: slider input events show every state's contacts"; else bad "$name: slider showed $got, want $expect"; fi
  want="$(python3 $check expect "$out/$key.contacts.json" "$ua" -1 | tr , '\n' | tail -1)"
  got="$(attr "$out/$key.attrs" ui-geom)"
  if [ "$got" = "$want" ]; then ok "$name: typing #$ua in the geom box shows its $want contacts"; else bad "$name: typed filter #$ua showed $got, want $want"; fi
  got="$(attr "$out/$key.attrs" ui-hover)"
  if [ -n "$got" ]; then ok "$name: hover names '$got'"; else bad "$name: no name on hover at the centre"; fi

  # geom and pair filters
  if [ "$a" -ge 0 ] && [[ " ${geomfilter[*]} " == *" $name "* ]]; then
    want="$(python3 $check expect "$out/$key.contacts.json" "$a" -1)"
    chrome "file://$html?state=$k&geom=%23$a" --dump-dom >"$out/$key.geom.html"
    got="$(python3 $check dom "$out/$key.geom.html" | grep '^ncon-states=' | cut -d= -f2)"
    if [ "$got" = "$want" ]; then ok "$name: filter geom #$a draws $want"; else bad "$name: filter geom #$a draws $got, want $want"; fi
  fi
  if [ "$a" -ge 0 ]; then
    want="$(python3 $check expect "$out/$key.contacts.json" "$a" "$b")"
    chrome "file://$html?state=$k&geom=%23$a&with=%23$b" --dump-dom >"$out/$key.pair.html"
    got="$(python3 $check dom "$out/$key.pair.html" | grep '^ncon-states=' | cut -d= -f2)"
    if [ "$got" = "$want" ]; then ok "$name: filter pair #$a-#$b draws $want"; else bad "$name: filter pair #$a-#$b draws $got, want $want"; fi
  fi

  # a screenshot that is not blank
  if [[ " ${shots[*]} " == *" $name "* ]]; then
    chrome "file://$html?state=$k" --screenshot="$PWD/$out/$key.png" >/dev/null
    if [ -s "$out/$key.png" ]; then
      # right of the control panel (x >= 450 of 900): the WebGL canvas alone
      read -r ncol top <<<"$(python3 $check pixels "$out/$key.png" 450)"
      if [ "$ncol" -ge 200 ] && python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 0.9 else 1)" "$top"; then
        ok "$name: screenshot (canvas part) has $ncol colours, most common covers $top"
      else
        bad "$name: screenshot looks blank ($ncol colours, most common covers $top)"
      fi
    else
      bad "$name: no screenshot"
    fi
  fi
done

echo "browser: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
