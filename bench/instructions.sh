#!/usr/bin/env bash
# Instructions per state of `collide bench` (callgrind), per scene: instructions collected inside
# `Collider::detect_view` only, the difference of two runs (ITERS_HI and ITERS_LO passes over the
# states) divided by the extra states, so the first pass's warm-up cancels out. (Counting the
# whole program instead let model loading in: its hash maps are seeded at random, so its count
# varies from run to run by more than small scenes' detection costs.)
# Usage: bash bench/instructions.sh [--exe target/release/collide] [MODEL_NAME ...]
#        (names as in conformance/corpus.json; default: the mesh scenes). STATES_DIR=DIR reads
#        the states from DIR (e.g. trajectories kept by bench/trajectory.py --keep DIR) instead
#        of conformance/states; BENCH_FLAGS="--no-warm-start" passes flags to `collide bench`.
set -euo pipefail
cd "$(dirname "$0")/.."
exe=target/release/collide
if [ "${1:-}" = "--exe" ]; then exe=$2; shift 2; fi
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  names=(scenes/mesh_boxes_multiccd scenes/mesh_puzzle_cube scenes/mesh_arm scenes/mesh_hand
         scenes/mesh_bin scenes/mesh_pile_steady scenes/mesh_pile scenes/mesh_pile_100
         scenes/mesh_primitives)
fi
lo=2; hi=6
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
instr() {  # model states iters -> total instructions
  valgrind --tool=callgrind --toggle-collect='*Collider*detect_view*' \
    --callgrind-out-file="$tmp/out" "$exe" bench "$1" --states "$2" \
    --iters "$3" ${BENCH_FLAGS:-} > /dev/null 2> "$tmp/log"
  grep -o 'Collected : [0-9]*' "$tmp/log" | grep -o '[0-9]*$'
}
printf '%-32s %7s %14s\n' scene states instr/state
for name in "${names[@]}"; do
  model=conformance/$(python3 -c "import json,sys; print(next(m['path'] for m in json.load(open('conformance/corpus.json'))['models'] if m['name']==sys.argv[1]))" "$name")
  states=${STATES_DIR:-conformance/states}/${name//\//__}.json
  n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['states']))" "$states")
  a=$(instr "$model" "$states" $lo); b=$(instr "$model" "$states" $hi)
  printf '%-32s %7d %14d\n' "$name" "$n" $(( (b - a) / ((hi - lo) * n) ))
done
