#!/usr/bin/env bash
# Side-by-side timing of MuJoCo 4.0.0's mj_collision and `collide bench` (one run, same states).
set -euo pipefail
cd "$(dirname "$0")/.."
bash conformance/run.sh --help > /dev/null   # creates conformance/.venv with mujoco==4.0.0
cargo build --profile dist -p collide-cli --quiet   # see [profile.dist] in Cargo.toml
conformance/.venv/bin/python bench/mujoco_vs_collide.py "$@"
