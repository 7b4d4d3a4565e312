#!/usr/bin/env bash
# Two builds of `collide` side by side: short `collide bench` runs of binary A and binary B,
# alternated ROUNDS times per scene, so that the machine's slow and fast spells fall on both;
# prints each side's fastest and median µs per state and B / A (fastest over fastest, median
# over median, and the median of the per-round ratios). On this shared 2-core machine the
# ratios repeat within 1–3%, where separate runs of the two binaries scatter by ±10%.
# Usage: bash bench/ab.sh EXE_A EXE_B [MODEL_NAME ...]
#        (names as in conformance/corpus.json; default: the mesh scenes of bench/instructions.sh)
#        ROUNDS=N (default 8); ITERS=N passes per run (default 0: about one second per run).
# Build the two binaries first, e.g. `git worktree add ../old <rev>` and
# `cargo build --profile dist -p collide-cli` in each.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
a=$1; b=$2; shift 2
for exe in "$a" "$b"; do
  [ -x "$exe" ] || { echo "not an executable: $exe" >&2; exit 2; }
done
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  names=(scenes/mesh_boxes_multiccd scenes/mesh_puzzle_cube scenes/mesh_arm scenes/mesh_hand
         scenes/mesh_bin scenes/mesh_pile_steady scenes/mesh_pile scenes/mesh_pile_100
         scenes/mesh_primitives)
fi
run() {  # exe model states -> µs per state
  "$1" bench "$2" --states "$3" --iters "${ITERS:-0}" | sed -n 's/^collide_us_per_state: //p'
}
printf '%-30s %9s %9s %9s %9s %8s %8s %8s\n' scene A_min A_med B_min B_med min med rounds
for name in "${names[@]}"; do
  path=$(python3 -c "import json, sys
print(next(m['path'] for m in json.load(open('conformance/corpus.json'))['models']
           if m['name'] == sys.argv[1]))" "$name")
  states=conformance/states/${name//\//__}.json
  ta=(); tb=()
  for _ in $(seq "${ROUNDS:-8}"); do
    ta+=("$(run "$a" "conformance/$path" "$states")")
    tb+=("$(run "$b" "conformance/$path" "$states")")
  done
  python3 -c "import statistics as st, sys
a = [float(x) for x in sys.argv[2].split()]
b = [float(x) for x in sys.argv[3].split()]
r = st.median(y / x for x, y in zip(a, b))
print(f'{sys.argv[1]:30s} {min(a):9.2f} {st.median(a):9.2f} {min(b):9.2f} {st.median(b):9.2f} '
      f'{min(b) / min(a):8.3f} {st.median(b) / st.median(a):8.3f} {r:8.3f}')" \
    "$name" "${ta[*]}" "${tb[*]}"
done
