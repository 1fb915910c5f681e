#!/usr/bin/env bash
# What `npm test` needs beyond `npm ci`, installed when missing (npm runs this as `pretest`, and .ci/run
# before its golden checks): the pinned stock DuckDB wheels of tools/requirements.txt (the Quack
# conformance suite, the README test, the goldens) and a headless Chromium (the explorer's browser test,
# driven by playwright-core). Idempotent: a machine that has both spends about a second here.
#   bash tools/test-setup.sh           install what is missing
#   bash tools/test-setup.sh --check   install nothing; exit 1 naming what is missing
set -euo pipefail
cd "$(dirname "$0")/.."
check_only=false
[[ "${1:-}" == "--check" ]] && check_only=true
missing=()

# The pinned wheels: pip's own resolver says whether every pin is satisfied (no network when it is).
if ! python3 - <<'PY' 2>/dev/null
import importlib.metadata as m, re, sys
for line in open("tools/requirements.txt"):
    line = line.split("#")[0].strip()
    if not line:
        continue
    name, version = re.split(r"==", line)
    if m.version(name) != version:
        sys.exit(1)
PY
then
  if $check_only; then
    missing+=("the pinned Python packages (python3 -m pip install -r tools/requirements.txt)")
  else
    python3 -m pip install --quiet --disable-pip-version-check -r tools/requirements.txt
  fi
fi

# Debian's Chromium (test/ui/explorer.node-test.ts looks for `chromium` on PATH).
if ! command -v chromium >/dev/null 2>&1; then
  if $check_only; then
    missing+=("chromium (apt-get install chromium)")
  else
    sudo=""
    [[ "$(id -u)" != "0" ]] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
  fi
fi

if ((${#missing[@]} > 0)); then
  printf 'missing for npm test: %s\n' "${missing[@]}" >&2
  exit 1
fi
