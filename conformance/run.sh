#!/usr/bin/env bash
# Set up conformance/.venv (pinned mujoco==4.0.0) and run the conformance harness.
#   bash conformance/run.sh all       # rebuild corpus/ and record fixtures/ + states/
#   bash conformance/run.sh corpus    # corpus only
#   bash conformance/run.sh record    # fixtures only (needs corpus.json)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"
  echo "$want" > "$stamp"
fi
exec "$venv/bin/python" "$here/harness.py" "$@"
