#!/usr/bin/env bash
# Configurations checked per second, collide vs MuJoCo (C), see bench/planning.py.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/conformance/run.sh" --help > /dev/null   # creates conformance/.venv (mujoco==4.0.0)
exec "$root/conformance/.venv/bin/python" "$root/bench/planning.py" "$@"
