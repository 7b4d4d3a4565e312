#!/usr/bin/env bash
# Re-runs every measurement of BENCHMARKS.md and regenerates its tables and plots (about
# 8 minutes on 2 cores). Raw results go to target/bench/; BENCHMARKS.md is rewritten between
# its <!-- bench:NAME --> markers, and bench/*.svg are redrawn.
#   bash bench/all.sh            # everything
#   QUICK=1 bash bench/all.sh    # shorter criterion runs and fewer repeats (a smoke test)
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/bench
mkdir -p "$out"
py=conformance/.venv/bin/python
bash conformance/run.sh --help > /dev/null   # creates conformance/.venv with mujoco==4.0.0
if [ "${QUICK:-0}" = 1 ]; then
  crit=(--warm-up-time 0.2 --measurement-time 0.3); repeat=1
else
  crit=(--warm-up-time 0.5 --measurement-time 1.5); repeat=5
fi

echo "== build"
cargo build --profile dist -p collide-cli --quiet   # see [profile.dist] in Cargo.toml
cargo bench -p collide --no-run --quiet

echo "== machine"
"$py" bench/machine.py > "$out/machine.json"
cat "$out/machine.json"

echo "== MuJoCo 4.0.0 mj_collision vs collide bench"
"$py" bench/mujoco_vs_collide.py --repeat "$repeat" --json "$out/mujoco.json"

echo "== batched worlds, 1 vs 2 threads"
"$py" bench/worlds.py --repeat "$((repeat + 2))" --json "$out/worlds.json"   # the noisiest figure on a shared VM

echo "== broad phase at scale"
cargo bench -p collide --bench broad_scale -- --json "$PWD/$out/broad_scale.json"

echo "== criterion: phases, whole scenes, pair types, parry"
rm -rf target/criterion/{kinematics,broad,mid,scene,narrow,parry_*}
cargo bench -p collide --bench pipeline --bench narrow -- "${crit[@]}" > "$out/criterion.log" 2>&1

echo "== report"
"$py" bench/machine.py --end >> "$out/machine.json"
"$py" bench/report.py
