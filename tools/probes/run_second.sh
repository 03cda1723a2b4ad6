#!/bin/bash
# Second device call (2026-12-01): the cases that the first run_all.sh left unanswered or that a
# probe bug spoiled (p3 hung with its output buffered; p8's grid-sync kernel wrote past its
# dynamic shared memory; p5 asked for more launch-configuration errors; p7 deeper recursion and
# more launches). Run: bash run_second.sh 2>&1 | tee "$OUT/second.log"
set +e
OUT=${OUT:-/tmp/probes-out}
mkdir -p "$OUT" bin
export PATH=$PATH:/usr/local/cuda/bin
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
echo "=== date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
B="nvcc -arch=sm_90 -O2"
for p in p3_skipped p5_sticky p8_coop; do ( $B -o bin/$p $p.cu > bin/$p.buildlog 2>&1; echo "build $p rc=$?" >> bin/$p.buildlog ) & done
( $B -rdc=true -o bin/p7_cdp p7_cdp.cu -lcudadevrt > bin/p7_cdp.buildlog 2>&1; echo "build p7_cdp rc=$?" >> bin/p7_cdp.buildlog ) &
wait
cat bin/*.buildlog
R() { local t=$1; shift; echo "=== run (timeout $t): $*"; timeout $t "$@"; local rc=$?; echo "=== rc=$rc ($*)"; return $rc; }
S() {
  local t=$1 tool=$2; shift 2
  echo "=== compute-sanitizer --tool $tool $* (timeout $t)"
  timeout $t $SAN --tool $tool --print-limit 10 "$@" 2>&1 | head -60
  echo "=== rc=${PIPESTATUS[0]}"
}
cd bin
hung_checked=0
for m in 4 1 2 3 0; do
  R 10 ./p3_skipped $m
  rc=$?
  if [ $rc -eq 0 ]; then S 30 synccheck ./p3_skipped $m
  elif [ $hung_checked -eq 0 ]; then hung_checked=1; S 15 synccheck ./p3_skipped $m
  fi
done
R 20 ./p5_sticky config9
R 20 ./p5_sticky illegal-query
R 60 ./p7_cdp 200 20000
R 60 ./p8_coop
echo "=== done $(date -u +%H:%M:%S)"
