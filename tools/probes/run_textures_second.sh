#!/bin/bash
# Second device call: gpu_vs_emu's texture rows live (recording the GPU's results), then the
# whole gpu_vs_emu.
set +e
D=$(dirname "$0")
echo "=== date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "=== gpu_vs_emu textures"
GPU_VS_EMU_DUMP="$OUT" timeout 150 "$D/gpu_vs_emu" textures 2>&1 | tail -40; echo "=== rc=${PIPESTATUS[0]}"
echo "=== gpu_vs_emu (all rows)"
timeout 200 "$D/gpu_vs_emu" 2>&1 | tail -60; echo "=== rc=${PIPESTATUS[0]}"
