#!/usr/bin/env bash
# Probe 16 (issue 25) on the H200: build once, run every case plain, then under racecheck and
# initcheck (with --error-exitcode 7, to see whether warnings count). Output to $OUT/p17.log.
set -u
cd "$(dirname "$0")"
OUT="${OUT:-.}"
LOG="$OUT/p17.log"
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  nvcc --version | tail -2
  compute-sanitizer --version | head -2
  timeout 120 nvcc -arch=sm_90 -O2 -o p17 p17_hang_checkers.cu 2>&1; echo "=== build rc=$?"
  for c in for-spin-otherwarp for-spin-samewarp warp-reduce warp-reduce-syncwarp same-value diff-value \
           flag-samewarp flag-otherwarp flag-samewarp-nofence shared-cast shared-partial global-partial; do
    echo "=== run: $c"; timeout 20 ./p17 "$c"; echo "=== rc=$?"
  done
  for c in warp-reduce warp-reduce-syncwarp same-value diff-value flag-samewarp flag-otherwarp flag-samewarp-nofence shared-cast; do
    echo "=== racecheck: $c"; timeout 60 compute-sanitizer --tool racecheck --error-exitcode 7 ./p17 "$c"; echo "=== rc=$?"
  done
  echo "=== racecheck --racecheck-report all: warp-reduce"
  timeout 60 compute-sanitizer --tool racecheck --racecheck-report all ./p17 warp-reduce; echo "=== rc=$?"
  for c in shared-partial global-partial; do
    echo "=== initcheck: $c"; timeout 60 compute-sanitizer --tool initcheck --error-exitcode 7 ./p17 "$c"; echo "=== rc=$?"
  done
} > "$LOG" 2>&1
tail -c 11000 "$LOG"
