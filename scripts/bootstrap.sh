#!/usr/bin/env bash
# Installs, only when missing, the tools the LDCP hardware flow needs on a
# fresh Debian (bookworm) machine, then prints the versions it found.
# Idempotent: a second run installs nothing and only prints versions.
#
# All tools come from Debian bookworm's packages. Verilator is pinned to
# 5.006 (see README, "Why this Verilator"); the flow refuses another version.
set -euo pipefail

VERILATOR_WANT="5.006"

log() { printf '[bootstrap] %s\n' "$*" >&2; }

sudo_if_needed() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# --- Debian packages ------------------------------------------------------
need_apt=()
command -v yosys          >/dev/null 2>&1 || need_apt+=(yosys)
command -v yosys-smtbmc   >/dev/null 2>&1 || need_apt+=(yosys)
command -v nextpnr-ice40  >/dev/null 2>&1 || need_apt+=(nextpnr-ice40)
command -v icepack        >/dev/null 2>&1 || need_apt+=(fpga-icestorm)
command -v iverilog       >/dev/null 2>&1 || need_apt+=(iverilog)
command -v z3             >/dev/null 2>&1 || need_apt+=(z3)
command -v g++            >/dev/null 2>&1 || need_apt+=(g++)
command -v make           >/dev/null 2>&1 || need_apt+=(make)
command -v perl           >/dev/null 2>&1 || need_apt+=(perl)
if [ ${#need_apt[@]} -gt 0 ]; then
  # de-duplicate
  mapfile -t need_apt < <(printf '%s\n' "${need_apt[@]}" | sort -u)
  log "installing Debian packages: ${need_apt[*]}"
  sudo_if_needed apt-get update -qq
  DEBIAN_FRONTEND=noninteractive sudo_if_needed apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# --- Verilator (Debian, pinned) ------------------------------------------
if ! { command -v verilator >/dev/null 2>&1 && verilator --version | grep -q "Verilator ${VERILATOR_WANT} "; }; then
  log "installing Debian's verilator ${VERILATOR_WANT}"
  sudo_if_needed apt-get update -qq
  DEBIAN_FRONTEND=noninteractive sudo_if_needed apt-get install -y -qq --no-install-recommends "verilator=${VERILATOR_WANT}-*" >/dev/null
  hash -r
fi
if ! verilator --version | grep -q "Verilator ${VERILATOR_WANT} "; then
  log "error: verilator on PATH is '$(verilator --version 2>&1)', this project needs ${VERILATOR_WANT}"
  exit 1
fi

# --- versions ---------------------------------------------------------------
{
  echo "verilator:     $(verilator --version)"
  echo "yosys:         $(yosys -V)"
  echo "nextpnr-ice40: $(nextpnr-ice40 --version 2>&1 | head -n1)"
  echo "icepack:       $(command -v icepack)"
  echo "iverilog:      $(iverilog -V 2>&1 | head -n1)"
  echo "z3:            $(z3 --version)"
} >&2
