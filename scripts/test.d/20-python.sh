#!/usr/bin/env bash
# The Python package (python/, crates/collide-py): a virtual environment under target/ with
# the pinned requirements (python/requirements-test.txt: maturin, numpy, pytest, pytest-xdist,
# mypy, mujoco 4.0.0, ray), the extension built with `maturin develop --release`, the stubs
# checked with mypy.stubtest (and the package and tests with mypy), then pytest on two workers.
# Last line: `python: N passed, M failed`.
set -uo pipefail
cd "$(dirname "$0")/../.."
root="$(pwd)"
venv="$root/target/py-venv"
failed=0
passed=0
start=$SECONDS
took() { echo "== python: $1 took $((SECONDS - start)) s"; start=$SECONDS; }

if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c 'import ensurepip' >/dev/null 2>&1; then
  echo "== installing python3-venv"
  (apt-get update && apt-get install -y python3-venv python3-dev) >/dev/null || true
fi

# the venv is rebuilt when the pinned requirements change
stamp="$venv/.requirements-$(sha256sum python/requirements-test.txt | cut -c1-16)"
if [ ! -e "$stamp" ]; then
  echo "== creating $venv"
  rm -rf "$venv"
  python3 -m venv "$venv" || { echo "python: 0 passed, 1 failed"; exit 1; }
  "$venv/bin/pip" install -q --upgrade pip &&
    "$venv/bin/pip" install -q -r python/requirements-test.txt ||
    { echo "python: 0 passed, 1 failed"; exit 1; }
  touch "$stamp"
fi
took "the virtual environment"

echo "== building the CLI (for the CLI-equality tests) and the extension"
cargo build --release -p collide-cli 2>&1 | tail -1
(cd python && VIRTUAL_ENV="$venv" "$venv/bin/maturin" develop --release 2>&1 | tail -2)
if ! "$venv/bin/python" -c 'import collide'; then
  echo "python: 0 passed, 1 failed"
  exit 1
fi
took "the build"

echo "== stubtest and mypy"
for check in "-m mypy.stubtest collide" "-m mypy collide tests"; do
  if (cd python && "$venv/bin/python" $check); then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
done
took "stubtest and mypy"

echo "== pytest"
junit="$root/target/python-junit.xml"
(cd python && "$venv/bin/python" -m pytest -q -p no:cacheprovider -n 2 --junitxml="$junit" tests)
rc=$?
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests"
  failed=$((failed + 1))
elif [ -e "$junit" ]; then
  read -r p f < <("$venv/bin/python" - "$junit" <<'PY'
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
suites = [r] if r.tag == "testsuite" else list(r)
t = sum(int(s.get("tests", 0)) for s in suites)
f = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
k = sum(int(s.get("skipped", 0)) for s in suites)
print(t - f - k, f)
PY
)
  passed=$((passed + p))
  failed=$((failed + f))
  [ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || failed=$((failed + 1))
else
  failed=$((failed + 1))
fi
took "pytest"
rm -f python/MUJOCO_LOG.TXT
echo "python: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
