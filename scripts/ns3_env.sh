#!/usr/bin/env bash
# Creates (once) a project-local Python venv at .venv-ns3/ in the repo root
# holding ns-3 from PyPI (package "ns3", pinned), for the side-by-side speed
# baseline scripts/ns3_dctcp_dumbbell.py. The ns3 wheel is about 500 MB.
#
# Idempotent: a second run creates nothing and installs nothing.
# stdout: exactly one line, the venv's python path. Logs go to stderr.
#
# Usage:  PY=$(bash scripts/ns3_env.sh) && "$PY" scripts/ns3_dctcp_dumbbell.py
set -euo pipefail

# PyPI names its 3.44 build "3.44.post0"; "ns3==3.44" matches nothing (PEP 440
# does not let == match a post-release), so the exact post-release is pinned.
NS3_WANT="3.44.post0"

log() { printf '[ns3_env] %s\n' "$*" >&2; }

sudo_if_needed() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="$ROOT/.venv-ns3"
PY="$VENV/bin/python"

# --- .gitignore: the venv is never committed ---------------------------------
if ! git -C "$ROOT" check-ignore -q "$VENV/bin/python" 2>/dev/null; then
  log "adding /.venv-ns3/ to .gitignore"
  # make sure the file ends with a newline before appending
  if [ -s "$ROOT/.gitignore" ] && [ -n "$(tail -c1 "$ROOT/.gitignore")" ]; then
    echo >> "$ROOT/.gitignore"
  fi
  echo "/.venv-ns3/" >> "$ROOT/.gitignore"
fi

# --- python3 with the venv module (Debian splits it into python3-venv) ------
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  log "python3's venv module is missing: installing Debian's python3-venv"
  sudo_if_needed apt-get update -qq
  DEBIAN_FRONTEND=noninteractive sudo_if_needed apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
fi

# --- the venv ---------------------------------------------------------------
if [ ! -x "$PY" ]; then
  log "creating venv $VENV"
  python3 -m venv "$VENV"
fi

# --- ns3, pinned, only when another version (or none) is installed ----------
have="$("$PY" -m pip show ns3 2>/dev/null | awk '/^Version:/ {print $2}' || true)"
if [ "$have" != "$NS3_WANT" ]; then
  log "installing ns3==$NS3_WANT (about 500 MB; found '${have:-none}')"
  t0=$(date +%s)
  "$PY" -m pip install --quiet --disable-pip-version-check "ns3==$NS3_WANT" >&2
  log "pip install took $(( $(date +%s) - t0 )) s"
else
  log "ns3 $have already installed in $VENV"
fi

echo "$PY"
