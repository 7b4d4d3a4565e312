#!/usr/bin/env bash
# collide from Python vs MuJoCo 4.0.0 (C mj_kinematics+mj_collision on the same threads, and
# mujoco.batch), side by side in one run; see bench/python_bench.py. Builds the extension and
# the Rust one-state timer with the link-time-optimized `dist` profile.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/py-venv
if [ ! -x "$venv/bin/maturin" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --upgrade pip
  "$venv/bin/pip" install -q -r python/requirements-test.txt
fi
(cd python && VIRTUAL_ENV="$(pwd)/../$venv" "../$venv/bin/maturin" develop --profile dist 2>&1 | tail -1)
cargo build --profile dist -p collide-cli --example one_state --quiet
"$venv/bin/python" bench/python_bench.py "$@"
