#!/bin/bash
# tex8's one device call: build and run probe 12 (integer textures), then the textures_int
# GPU-vs-emulator rows, recording the GPU's results.
set +e
D=$(dirname "$0")
export PATH=$PATH:/usr/local/cuda/bin
echo "=== date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2
( cd "$D" && nvcc -arch=sm_90 -O2 -o /tmp/p12_tex_int p12_tex_int.cu ) 2>&1 | grep -v "warning #" | head -30
echo "=== probe"
timeout 40 /tmp/p12_tex_int "$OUT" > "$OUT/probe.log" 2>&1; echo "=== probe rc=$?"
tail -40 "$OUT/probe.log"
echo "=== textures_int"
GPU_VS_EMU_DUMP="$OUT" timeout 60 "$D/textures_int" > "$OUT/textures_int.log" 2>&1; echo "=== textures_int rc=$?"
tail -60 "$OUT/textures_int.log"
ls -la "$OUT"
