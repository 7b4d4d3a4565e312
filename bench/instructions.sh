#!/usr/bin/env bash
# Instructions per state of `collide bench` (callgrind), per scene: instructions collected inside
# `Collider::detect_view` only, the difference of two runs (ITERS_HI and ITERS_LO passes over the
# states) divided by the extra states, so the first pass's warm-up cancels out. (Counting the
# whole program instead let model loading in: its hash maps are seeded at random, so its count
# varies from run to run by more than small scenes' detection costs.) Beside it, MuJoCo 4.0.0's
# instructions inside `mj_collision` on the same states, counted the same way from the C timer
# (bench/mj_collision_timer.c with a fixed number of passes), and the ratio: a comparison this
# shared, noisy machine cannot disturb (MUJOCO=0 skips MuJoCo's side).
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
mj_instr() {  # model states.txt passes -> total instructions inside mj_collision
  valgrind --tool=callgrind --toggle-collect='mj_collision' \
    --callgrind-out-file="$tmp/mj" "$timer" "$1" "$2" 0 "$3" > /dev/null 2> "$tmp/mjlog"
  grep -o 'Collected : [0-9]*' "$tmp/mjlog" | grep -o '[0-9]*$'
}
timer=""
if [ "${MUJOCO:-1}" != 0 ]; then
  bash conformance/run.sh --help > /dev/null   # conformance/.venv with mujoco==4.0.0
  timer=$(conformance/.venv/bin/python -c "import sys; sys.path.insert(0, 'bench')
import mujoco_vs_collide as m; print(m.build_timer() or '')")
fi
if [ -n "$timer" ]; then
  printf '%-32s %7s %14s %14s %7s\n' scene states instr/state mujoco ratio
else
  printf '%-32s %7s %14s\n' scene states instr/state
fi
for name in "${names[@]}"; do
  model=conformance/$(python3 -c "import json,sys; print(next(m['path'] for m in json.load(open('conformance/corpus.json'))['models'] if m['name']==sys.argv[1]))" "$name")
  states=${STATES_DIR:-conformance/states}/${name//\//__}.json
  n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['states']))" "$states")
  a=$(instr "$model" "$states" $lo); b=$(instr "$model" "$states" $hi)
  ours=$(( (b - a) / ((hi - lo) * n) ))
  if [ -z "$timer" ]; then
    printf '%-32s %7d %14d\n' "$name" "$n" "$ours"
    continue
  fi
  conformance/.venv/bin/python -c "import json, sys; sys.path.insert(0, 'bench')
import mujoco, mujoco_vs_collide as m
states = json.load(open(sys.argv[2]))['states']
open(sys.argv[3], 'w').write(m.states_txt(mujoco.MjModel.from_xml_path(sys.argv[1]), states))" \
    "$model" "$states" "$tmp/states.txt"
  a=$(mj_instr "$model" "$tmp/states.txt" $lo); b=$(mj_instr "$model" "$tmp/states.txt" $hi)
  theirs=$(( (b - a) / ((hi - lo) * n) ))
  printf '%-32s %7d %14d %14d %7.3f\n' "$name" "$n" "$ours" "$theirs" \
    "$(python3 -c "print($ours / max($theirs, 1))")"
done
