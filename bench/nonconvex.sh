#!/usr/bin/env bash
# Non-convex meshes side by side, one run: MuJoCo 4.0.0's `sdf` geoms against collide's exact
# mesh path on generated scenes (see bench/nonconvex_vs_mujoco.py).
set -euo pipefail
cd "$(dirname "$0")/.."
bash conformance/run.sh --help > /dev/null   # creates conformance/.venv with mujoco==4.0.0
cargo build --release -p collide-cli --quiet
conformance/.venv/bin/python bench/nonconvex_vs_mujoco.py "$@"
