#!/usr/bin/env bash
# Median convex distance query, collide vs coal in C++: see bench/coal_bench.py.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/conformance/run.sh" --help > /dev/null   # creates conformance/.venv
"$root/conformance/.venv/bin/pip" install --quiet --disable-pip-version-check coal cmeel-eigen
exec "$root/conformance/.venv/bin/python" "$root/bench/coal_bench.py" "$@"
