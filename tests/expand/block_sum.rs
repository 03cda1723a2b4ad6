// A state-machine kernel: barriers in its body make its host form an `async` block; the
// nvptx form keeps the blocking barriers. With `launch_bounds`.
use deviceemu::prelude::*;

#[kernel(launch_bounds(256))]
pub fn block_sum(x: &[f32], sums: &mut [f32]) {
    let t = shared_array![f32; 256];
    let tid = thread_idx().x as usize;
    let i = block_idx().x as usize * 256 + tid;
    t[tid] = if i < x.len() { x[i] } else { 0.0 };
    sync_threads();
    let mut s = 128;
    while s > 0 {
        if tid < s {
            t[tid] += t[tid + s];
        }
        sync_threads();
        s /= 2;
    }
    if tid == 0 {
        sums[block_idx().x as usize] = t[0];
    }
}

/// A host-only kernel: no PTX entry, and a launcher that refuses the GPU.
#[kernel(host_only)]
fn on_host(y: &mut [u32]) {
    y[thread_idx().x as usize] = 1;
}
