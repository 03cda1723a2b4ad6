#!/bin/bash
# Probe p16 and examples/math_gpu on the GPU machine (FP.md, "deviceemu::math"). Needs, in $C:
# p16_libdevice.cu and common.h (this folder), examples_math_gpu_rs.ptx (the build script's PTX
# of examples/math_gpu.rs) and math_gpu (`cargo build --release --features gpu --example
# math_gpu`), both built elsewhere: the GPU machine has no Rust.
set +e
C=${C:-.}
export PATH=$PATH:/usr/local/cuda/bin
echo "=== date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc --version | tail -2
LD=$(dirname "$(command -v nvcc)")/../nvvm/libdevice/libdevice.10.bc
md5sum "$LD"
nvcc -O3 -arch=sm_90 -o /tmp/p16 "$C/p16_libdevice.cu" -I"$C" -lcuda 2>&1 | grep -v "^$" | tail -5
echo "=== p16"
timeout 420 /tmp/p16 "$C/examples_math_gpu_rs.ptx"
echo "=== p16 rc=$?"
echo "=== math_gpu"
timeout 150 "$C/math_gpu"
echo "=== math_gpu rc=$?"
