#!/bin/bash
# Builds and runs every probe on the GPU machine. From the directory holding the probes:
#   bash run_all.sh 2>&1 | tee "$OUT/all.log"
# Writes $OUT/build.log (compiler output) and $OUT/sanitizer.log (compute-sanitizer's full
# output); the probes' own lines go to stdout. Every run that might hang is under `timeout`.
set +e
OUT=${OUT:-/tmp/probes-out}
mkdir -p "$OUT" bin
export PATH=$PATH:/usr/local/cuda/bin
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
echo "=== date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
nvidia-smi | head -5
nvcc --version | tail -3
$SAN --version | head -2

echo "=== build"
B="nvcc -arch=sm_90 -O2"
for p in p1_shfl p2_reduce7 p3_skipped p4_spin p5_sticky p6_streams p8_coop p9_redux; do
  ( $B -o bin/$p $p.cu > bin/$p.buildlog 2>&1; echo "build $p rc=$?" >> bin/$p.buildlog ) &
done
( $B -rdc=true -o bin/p7_cdp p7_cdp.cu -lcudadevrt > bin/p7_cdp.buildlog 2>&1; echo "build p7_cdp rc=$?" >> bin/p7_cdp.buildlog ) &
( $B -rdc=true -o bin/p7_devsync p7_devsync.cu -lcudadevrt > bin/p7_devsync.buildlog 2>&1; echo "build p7_devsync rc=$?" >> bin/p7_devsync.buildlog ) &
wait
cat bin/*.buildlog > "$OUT/build.log"
grep -h "rc=" bin/*.buildlog
echo "p7 device-side cudaDeviceSynchronize (p7_devsync.cu, sm_90, -rdc=true) compiler output:"
cat bin/p7_devsync.buildlog

R() { local t=$1; shift; echo "=== run (timeout $t): $*"; timeout $t "$@"; echo "=== rc=$? ($*)"; }
S() {  # sanitizer run: full output to sanitizer.log, summary lines here
  local tool=$1; shift
  echo "=== compute-sanitizer --tool $tool $*" >> "$OUT/sanitizer.log"
  timeout 60 $SAN --tool $tool --print-limit 40 "$@" >> "$OUT/sanitizer.log" 2>&1
  local rc=$?
  echo "=== rc=$rc" >> "$OUT/sanitizer.log"
  echo "sanitizer $tool $* rc=$rc: $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' "$OUT/sanitizer.log" | tail -1)"
  echo "  first reports: $(awk -v h="=== compute-sanitizer --tool $tool $*" '$0==h{f=1;next} /^=== compute-sanitizer/{f=0} f' "$OUT/sanitizer.log" | grep -m3 -h '^========= [A-Z]' | tr '\n' '|')"
}
cd bin
R 20 ./p1_shfl
S synccheck ./p1_shfl a
S racecheck ./p1_shfl a
S synccheck ./p1_shfl
R 20 ./p2_reduce7
S synccheck ./p2_reduce7
R 20 ./p3_skipped
S synccheck ./p3_skipped
for r in atomic volatile acqref; do
  for s in samewarp samewarp-rev many otherwarp; do R 20 ./p4_spin block-$r-$s; done
done
for k in volatile acquire ticket; do
  R 20 ./p4_spin lb-$k-100000-128
  R 20 ./p4_spin lb-$k-100000-1024
done
R 20 ./p4_spin lb-volatile-1000000-128
R 20 ./p4_spin lb-reverse-132-128
for k in illegal trap assert misaligned; do
  for h in sync query; do R 20 ./p5_sticky $k-$h; done
done
R 20 ./p5_sticky illegal-sleep
R 20 ./p5_sticky trap-sleep
R 20 ./p5_sticky config9
R 20 ./p5_sticky value1
R 20 ./p5_sticky notready
R 60 ./p6_streams
R 30 ./p7_cdp
R 30 ./p8_coop
R 20 ./p9_redux
# Last: a look-back in reverse order (block b waits for block b+1) over more blocks than are
# resident. Expected to hang: the timeout ends it.
R 10 ./p4_spin lb-reverse-100000-128
R 10 ./p1_shfl a
echo "=== done $(date -u +%H:%M:%S)"
