# The device runtime on the H200 (issue 14): examples/devrt_gpu, examples/cdp_quicksort and the GPU tests of
# tests/device_runtime.rs (one per process), built with --features gpu. Log: logs/devrt_gpu_run2.log.
D=.gpucarry/devrtgpu
exec > $OUT/run2.log 2>&1
nvidia-smi -L
export EMU_TARGET=gpu
echo "== devrt_gpu"; timeout 60 $D/devrt_gpu; echo "devrt_gpu rc=$?"
echo "== cdp_quicksort gpu"; timeout 30 $D/cdp_quicksort 100000; echo "cdp_quicksort gpu rc=$?"
echo "== cdp_quicksort emulator"; EMU_TARGET=emulator timeout 30 $D/cdp_quicksort 100000; echo "cdp_quicksort emulator rc=$?"
pass=0; fail=0
for t in children_see_the_parents_writes_and_the_host_sees_the_childrens a_recursive_quicksort_sorts_like_the_cpu_in_both_profiles the_quicksort_depth_limit_falls_back_to_selection_sort an_adaptive_mandelbrot_subdivides_like_the_cpu_in_both_profiles sm_90_has_no_nesting_depth_error_at_depth_200 fire_and_forget_launches_never_fail a_device_helper_launches_children a_tail_launch_runs_after_the_grid_and_its_other_children device_synchronize_in_a_kernel_is_an_error_on_sm_90 a_kernel_that_launches_kernels_runs_on_the_gpu_target the_2049th_tail_launch_fails_with_69_at_the_default_limit; do
  timeout 30 $D/device_runtime --exact $t --test-threads=1 > $OUT/t.txt 2>&1; rc=$?
  if [ $rc = 0 ] && grep -q "1 passed" $OUT/t.txt; then pass=$((pass+1)); echo "GPU PASS $t"; else fail=$((fail+1)); echo "GPU FAIL $t rc=$rc"; tail -25 $OUT/t.txt; fi
done
echo "GPU tests: $pass passed, $fail failed"
for t in launches_into_one_stream_from_several_threads_run_in_the_blocks_launch_order null_and_named_stream_launches_count_only_unfinished_children; do
  timeout 30 $D/device_runtime --exact $t --test-threads=1 > $OUT/t.txt 2>&1; rc=$?
  echo "OBSERVATION $t rc=$rc"; grep -E "panicked|assert|left|right|test result" $OUT/t.txt | head -8
done
rm -f $OUT/t.txt
