#!/bin/bash
# Texture device call 1 (2026-12-01): build and run probe 10, then gpu_vs_emu's texture rows.
# The run copied this folder's p10_textures.cu and common.h, and a gpu_vs_emu built with
# `cargo build --release --features gpu --example gpu_vs_emu`, next to this script.
set +e
D=$(dirname "$0")
export PATH=$PATH:/usr/local/cuda/bin
echo "=== date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2
( cd "$D" && nvcc -arch=sm_90 -O2 -o /tmp/p10_textures p10_textures.cu ) 2>&1 | grep -v "warning #" | head -30
echo "=== probe"
timeout 120 /tmp/p10_textures "$OUT" 2>&1 | tail -120; echo "=== probe rc=${PIPESTATUS[0]}"
if [ -x "$D/gpu_vs_emu" ]; then
  echo "=== gpu_vs_emu textures"
  GPU_VS_EMU_DUMP="$OUT" timeout 150 "$D/gpu_vs_emu" textures 2>&1 | tail -60; echo "=== gpu_vs_emu rc=${PIPESTATUS[0]}"
fi
ls -la "$OUT"
