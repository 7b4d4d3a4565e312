#!/usr/bin/env bash
# All tests, on a fresh machine: the Rust workspace, then every suite in scripts/test.d/
# (each installs what it needs: the Python package's virtual environment, Chromium, …).
# Each suite prints a closing line `<name>: N passed, M failed`; the last line of this script
# sums them all.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p target
summary=target/test-summary.txt
: > "$summary"
status=0

t=$SECONDS
cargo test --workspace --release --no-run 2>&1 | tail -3
echo "== rust test build took $((SECONDS - t)) s"
t=$SECONDS
cargo test --workspace --release 2>&1 | tee target/rust-test.log
rc=${PIPESTATUS[0]}
echo "== rust tests took $((SECONDS - t)) s"
[ "$rc" -eq 0 ] || status=1
awk '/^test result:/ { p += $4; f += $6 } END { print "rust: " p " passed, " f " failed" }' \
  target/rust-test.log | tee -a "$summary"

for suite in scripts/test.d/*.sh; do
  [ -e "$suite" ] || continue
  name="$(basename "$suite" .sh)"
  echo "== suite $name"
  log="target/suite-$name.log"
  t=$SECONDS
  bash "$suite" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  echo "== suite $name took $((SECONDS - t)) s"
  line="$(grep -E '^[A-Za-z0-9_-]+: [0-9]+ passed, [0-9]+ failed' "$log" | tail -1)"
  if [ -z "$line" ]; then
    line="$name: 0 passed, 1 failed"
  fi
  if [ "$rc" -ne 0 ]; then
    status=1
    # a suite that failed without counting a failure still counts as one
    case "$line" in *", 0 failed"*) line="${line%, 0 failed}, 1 failed" ;; esac
  fi
  echo "$line" | tee -a "$summary"
done

echo "== summary"
cat "$summary"
awk -F'[:,]' '{ split($2, a, " "); split($3, b, " "); p += a[1]; f += b[1] }
  END { print "tests: " p " passed, " f " failed" }' "$summary"
exit $status
