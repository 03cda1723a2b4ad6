// A Hillis-Steele block scan: a value across each barrier (per-thread lanes).
use deviceemu::prelude::*;

#[kernel]
pub fn block_scan(input: &[f32], out: &mut [f32]) {
    let t = shared_array![f32; 256];
    let tid = thread_idx().x as usize;
    let i = block_idx().x as usize * 256 + tid;
    t[tid] = if i < input.len() { input[i] } else { 0.0 };
    sync_threads();
    let mut off = 1;
    while off < 256 {
        let v = if tid >= off { t[tid - off] } else { 0.0 };
        sync_threads();
        t[tid] += v;
        sync_threads();
        off *= 2;
    }
    if i < out.len() {
        out[i] = t[tid];
    }
}
