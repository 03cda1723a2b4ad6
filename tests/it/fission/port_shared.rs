//! Shared memory as ported CUDA code declares it (issue 30): shared scalars
//! (`__shared__ int next;` → `shared_scalar![i32]`) and one `extern __shared__` buffer split
//! into typed parts (`float* a = s; int* b = (int*)&a[n];` →
//! `dynamic_shared_parts::<(f32, i32)>([n, m])`).
//!
//! Each kernel is written as the CUDA C it ports, runs on the default path and on the general
//! path (`EMU_PATH=general`), and must agree with a plain Rust loop; the negative tests check
//! the reports: an access past a part, parts that do not fit, a race on a shared scalar.

use crate::common::{assert_has, marked_line};
use deviceemu::__private::last_path;
use deviceemu::prelude::*;
use deviceemu::{with_config, AnyBitPattern, Checks, Config, ExecPath};

/// The line of this file that ends with `marker`.
fn line_of(marker: &str) -> usize {
    marked_line(include_str!("port_shared.rs"), marker)
}

/// Runs `launch` on the default path and on the general path, and checks both outputs
/// against `want`; returns the default launch's path.
fn both_paths<T: PartialEq + std::fmt::Debug>(want: &[T], mut launch: impl FnMut() -> Vec<T>) -> &'static str {
    let fast = launch();
    let path = last_path();
    let base = Config::from_env().unwrap();
    let general = with_config(base.path(ExecPath::General), &mut launch);
    assert_eq!(general, want, "the general path disagrees with the plain loop");
    assert_eq!(fast, want, "the default path disagrees with the plain loop");
    path
}

/// Checks that the default launch took `want` (the fast path these kernels are meant to
/// take), unless `EMU_PATH` chose a path for every launch or the launches ran on the GPU
/// (`EMU_TARGET=gpu`, where no host path is taken).
fn took(path: &str, want: &str) {
    if std::env::var_os("EMU_PATH").is_none() && std::env::var("EMU_TARGET").as_deref() != Ok("gpu") {
        assert_eq!(path, want);
    }
}

fn inputs(n: usize) -> Vec<f32> {
    (0..n).map(|i| ((i * 7919) % 61) as f32 - 30.0).collect()
}

// ---------------------------------------------------------------------------------------
// Shared scalars
// ---------------------------------------------------------------------------------------

/// ```c++
/// __global__ void count_positive(const float* x, int* out, int n) {
///     __shared__ int count;
///     if (threadIdx.x == 0) count = 0;
///     __syncthreads();
///     int i = blockIdx.x * blockDim.x + threadIdx.x;
///     if (i < n && x[i] > 0.0f) atomicAdd(&count, 1);
///     __syncthreads();
///     if (threadIdx.x == 0) out[blockIdx.x] = count;
/// }
/// ```
#[kernel]
fn count_positive(x: &[f32], out: &mut [i32]) {
    let count = shared_scalar![i32];
    if thread_idx().x == 0 {
        count.store(0);
    }
    sync_threads();
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < x.len() && x[i] > 0.0 {
        count.atomic_add(1);
    }
    sync_threads();
    if thread_idx().x == 0 {
        out[block_idx().x as usize] = count.load();
    }
}

#[test]
fn a_shared_counter_counts_each_block() {
    let n = 1000;
    let x = inputs(n);
    let blocks = n.div_ceil(128);
    let want: Vec<i32> = x.chunks(128).map(|c| c.iter().filter(|&&v| v > 0.0).count() as i32).collect();
    let dx = DeviceBuffer::from_slice(&x).unwrap();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<i32>::zeroed(blocks).unwrap();
        launch!(count_positive<<<blocks as u32, 128>>>(&dx, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    took(path, "regions");
}

/// A block picks its work items one at a time from a global counter, as persistent-thread
/// kernels do:
///
/// ```c++
/// __global__ void scale_items(const float* x, float* y, int* counter, int items) {
///     __shared__ int next;
///     while (true) {
///         if (threadIdx.x == 0) next = atomicAdd(counter, 1);
///         __syncthreads();
///         int w = next;
///         if (w >= items) break;
///         int i = w * blockDim.x + threadIdx.x;
///         y[i] = 2.0f * x[i] + (float)w;
///         __syncthreads();
///     }
/// }
/// ```
#[kernel]
fn scale_items(x: &[f32], y: &mut [f32], counter: &mut [u32], items: u32) {
    let next = shared_scalar![u32];
    loop {
        if thread_idx().x == 0 {
            next.store(counter.atomic_add(0, 1));
        }
        sync_threads();
        let w = next.load();
        if w >= items {
            break;
        }
        let i = (w * block_dim().x + thread_idx().x) as usize;
        y[i] = 2.0 * x[i] + w as f32;
        sync_threads();
    }
}

#[test]
fn blocks_pick_work_items_through_a_shared_scalar() {
    let (items, block) = (37usize, 64usize);
    let x = inputs(items * block);
    let want: Vec<f32> = x.iter().enumerate().map(|(i, &v)| 2.0 * v + (i / block) as f32).collect();
    let dx = DeviceBuffer::from_slice(&x).unwrap();
    let _ = both_paths(&want, || {
        let mut y = DeviceBuffer::<f32>::zeroed(items * block).unwrap();
        let mut counter = DeviceBuffer::<u32>::zeroed(1).unwrap();
        launch!(scale_items<<<4, block as u32>>>(&dx, &mut y, &mut counter, items as u32)).unwrap();
        // Every block takes one number past the end before it stops.
        assert_eq!(counter.to_vec().unwrap(), vec![items as u32 + 4]);
        y.to_vec().unwrap()
    });
}

/// The largest element of each block and the first thread that holds it, through two
/// shared scalars (`atomicMax`, then `atomicMin` on the index of the threads that match).
#[kernel]
fn block_argmax(x: &[i32], best: &mut [i32], at: &mut [u32]) {
    let top = shared_scalar![i32];
    let first = shared_scalar![u32];
    let tid = thread_idx().x;
    if tid == 0 {
        top.store(i32::MIN);
        first.store(u32::MAX);
    }
    sync_threads();
    let i = (block_idx().x * block_dim().x + tid) as usize;
    top.atomic_max(x[i]);
    sync_threads();
    if x[i] == top.load() {
        first.atomic_min(tid);
    }
    sync_threads();
    if tid == 0 {
        best[block_idx().x as usize] = top.load();
        at[block_idx().x as usize] = first.load();
    }
}

#[test]
fn shared_scalars_take_the_element_types_atomics() {
    let x: Vec<i32> = (0..256).map(|i| ((i * 37) % 101) - 50).collect();
    let mut want_best = Vec::new();
    let mut want_at = Vec::new();
    for c in x.chunks(64) {
        let m = *c.iter().max().unwrap();
        want_best.push(m);
        want_at.push(c.iter().position(|&v| v == m).unwrap() as u32);
    }
    let dx = DeviceBuffer::from_slice(&x).unwrap();
    let want: Vec<(i32, u32)> = want_best.into_iter().zip(want_at).collect();
    let path = both_paths(&want, || {
        let mut best = DeviceBuffer::<i32>::zeroed(4).unwrap();
        let mut at = DeviceBuffer::<u32>::zeroed(4).unwrap();
        launch!(block_argmax<<<4, 64>>>(&dx, &mut best, &mut at)).unwrap();
        best.to_vec().unwrap().into_iter().zip(at.to_vec().unwrap()).collect()
    });
    took(path, "regions");
}

/// A block-wide buffer that thread 0 allocates and shares through a shared pointer:
///
/// ```c++
/// __shared__ unsigned* buf;
/// if (threadIdx.x == 0) buf = (unsigned*)malloc(blockDim.x * sizeof(unsigned));
/// __syncthreads();
/// if (buf) buf[threadIdx.x] = x[i];
/// __syncthreads();
/// if (buf) out[i] = buf[blockDim.x - 1 - threadIdx.x];
/// __syncthreads();
/// if (threadIdx.x == 0 && buf) free(buf);
/// ```
#[kernel]
fn reverse_through_heap(x: &[u32], out: &mut [u32]) {
    let buf = shared_scalar![DevicePtr<u32>];
    let t = thread_idx().x;
    let i = (block_idx().x * block_dim().x + t) as usize;
    if t == 0 {
        buf.store(device_malloc::<u32>(block_dim().x as usize).unwrap_or(DevicePtr::null()));
    }
    sync_threads();
    let p = buf.load();
    if !p.is_null() {
        p.store(t as usize, x[i]);
    }
    sync_threads();
    if !p.is_null() {
        out[i] = p.load((block_dim().x - 1 - t) as usize);
    }
    sync_threads();
    if t == 0 && !p.is_null() {
        device_free(p);
    }
}

#[test]
fn a_shared_scalar_holds_a_device_malloc_pointer() {
    let x: Vec<u32> = (0..128).collect();
    let want: Vec<u32> = x.chunks(32).flat_map(|c| c.iter().rev().copied()).collect();
    let dx = DeviceBuffer::from_slice(&x).unwrap();
    let _ = both_paths(&want, || {
        let mut out = DeviceBuffer::<u32>::zeroed(128).unwrap();
        launch!(reverse_through_heap<<<4, 32>>>(&dx, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
}

/// Two threads write the flag; with `sync`, a barrier separates the writes.
#[kernel]
fn two_writers(out: &mut [u32], sync: bool) {
    let flag = shared_scalar![u32];
    let tid = thread_idx().x;
    if tid == 0 {
        flag.store(1); // FIRST WRITER
    }
    if sync {
        sync_threads();
    }
    if tid == 1 {
        flag.store(2); // SECOND WRITER
    }
    sync_threads();
    out[tid as usize] = flag.load();
}

fn racecheck() -> Config {
    Config::from_env().unwrap().checks(Checks { racecheck: true, ..Checks::default() })
}

#[test]
fn racecheck_sees_a_race_on_a_shared_scalar_and_none_with_the_barrier() {
    let mut out = DeviceBuffer::<u32>::zeroed(2).unwrap();
    with_config(racecheck(), || launch!(two_writers<<<1, 2>>>(&mut out, true))).unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![2, 2]);

    let err = with_config(racecheck(), || launch!(two_writers<<<1, 2>>>(&mut out, false))).unwrap_err();
    assert_eq!(err.code(), 719);
    let text = err.to_string();
    let (w1, w2) = (line_of("// FIRST WRITER"), line_of("// SECOND WRITER"));
    assert_has(&text, &format!("Race reported between Write access at tests/it/fission/port_shared.rs:{w1}"));
    assert_has(&text, &format!("and Write access at tests/it/fission/port_shared.rs:{w2}"));
    assert_has(&text, "in block (0,0,0)");
    assert_has(&text, "two_writers");
    assert_has(&text, "__shared__ array declared at tests/it/fission/port_shared.rs:");
}

/// A read of a shared scalar no thread wrote is initcheck's, as for a shared array.
#[kernel]
fn read_unset(out: &mut [u32]) {
    let v = shared_scalar![u32];
    out[thread_idx().x as usize] = v.load(); // UNSET READ
}

#[test]
fn initcheck_sees_a_shared_scalar_read_before_any_write() {
    let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
    let config = Config::from_env().unwrap().checks(Checks { initcheck: true, ..Checks::default() });
    let err = with_config(config, || launch!(read_unset<<<1, 1>>>(&mut out))).unwrap_err();
    let text = err.to_string();
    assert_has(&text, "Uninitialized __shared__ memory read");
    assert_has(&text, &format!("tests/it/fission/port_shared.rs:{}", line_of("// UNSET READ")));
}

// ---------------------------------------------------------------------------------------
// The dynamic shared buffer split into typed parts
// ---------------------------------------------------------------------------------------

/// ```c++
/// __global__ void sum_and_count(const float* x, float* sums, int* counts, int n) {
///     extern __shared__ float s[];
///     float* vals = s;                          // blockDim.x floats
///     int* pos = (int*)&vals[blockDim.x];       // blockDim.x ints
///     int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
///     vals[t] = i < n ? x[i] : 0.0f;
///     pos[t] = i < n && x[i] > 0.0f;
///     __syncthreads();
///     for (int s = blockDim.x / 2; s > 0; s /= 2) {
///         if (t < s) { vals[t] += vals[t + s]; pos[t] += pos[t + s]; }
///         __syncthreads();
///     }
///     if (t == 0) { sums[blockIdx.x] = vals[0]; counts[blockIdx.x] = pos[0]; }
/// }
/// // sum_and_count<<<g, b, b * (sizeof(float) + sizeof(int))>>>(...)
/// ```
#[kernel]
fn sum_and_count(x: &[f32], sums: &mut [f32], counts: &mut [i32]) {
    let b = block_dim().x as usize;
    let (vals, pos) = dynamic_shared_parts::<(f32, i32)>([b, b]);
    let t = thread_idx().x as usize;
    let i = block_idx().x as usize * b + t;
    vals[t] = if i < x.len() { x[i] } else { 0.0 };
    pos[t] = (i < x.len() && x[i] > 0.0) as i32;
    sync_threads();
    let mut s = b / 2;
    while s > 0 {
        if t < s {
            vals[t] += vals[t + s];
            pos[t] += pos[t + s];
        }
        sync_threads();
        s /= 2;
    }
    if t == 0 {
        sums[block_idx().x as usize] = vals[0];
        counts[block_idx().x as usize] = pos[0];
    }
}

/// The kernel's order of additions, in plain Rust.
fn tree(mut t: Vec<f32>) -> f32 {
    let mut s = t.len() / 2;
    while s > 0 {
        for i in 0..s {
            t[i] += t[i + s];
        }
        s /= 2;
    }
    t[0]
}

#[test]
fn a_dynamic_buffer_split_into_f32_and_i32_parts() {
    let (n, b) = (1000usize, 128usize);
    let x = inputs(n);
    let blocks = n.div_ceil(b);
    let mut want = Vec::new();
    for c in x.chunks(b) {
        let mut t = c.to_vec();
        t.resize(b, 0.0);
        want.push((tree(t), c.iter().filter(|&&v| v > 0.0).count() as i32));
    }
    let dx = DeviceBuffer::from_slice(&x).unwrap();
    let path = both_paths(&want, || {
        let mut sums = DeviceBuffer::<f32>::zeroed(blocks).unwrap();
        let mut counts = DeviceBuffer::<i32>::zeroed(blocks).unwrap();
        let bytes = b * (4 + 4);
        launch!(sum_and_count<<<blocks as u32, b as u32, bytes>>>(&dx, &mut sums, &mut counts)).unwrap();
        sums.to_vec().unwrap().into_iter().zip(counts.to_vec().unwrap()).collect()
    });
    took(path, "regions");
}

/// Three parts of different alignments: 3 bytes, then `f64`s (at offset 8), then `u32`s.
/// Each thread writes its element of every part, and reads its neighbour's back: parts that
/// overlapped would mix the values.
#[kernel]
fn three_parts(out: &mut [f64]) {
    let n = block_dim().x as usize;
    let (flags, weights, ids) = dynamic_shared_parts::<(u8, f64, u32)>([n, n, n]);
    let t = thread_idx().x as usize;
    flags[t] = (t % 3) as u8;
    weights[t] = t as f64 * 0.5;
    ids[t] = (t * 1000) as u32;
    sync_threads();
    let u = (t + 1) % n;
    out[t] = flags[u] as f64 + weights[u] + ids[u] as f64;
}

#[test]
fn three_parts_of_different_alignments_do_not_overlap() {
    let n = 3usize;
    let want: Vec<f64> =
        (0..n).map(|t| (t + 1) % n).map(|u| (u % 3) as f64 + u as f64 * 0.5 + (u * 1000) as f64).collect();
    // 3 bytes, 5 of padding, 24 of f64s, 12 of u32s.
    let bytes = 8 + 3 * 8 + 3 * 4;
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<f64>::zeroed(n).unwrap();
        launch!(three_parts<<<1, n as u32, bytes>>>(&mut out)).unwrap();
        out.to_vec().unwrap()
    });
    took(path, "regions");
}

/// Reads one element past the end of the first part (`vals[n]`, which in CUDA would read the
/// first `int` of the second part).
#[kernel]
fn past_a_part(out: &mut [f32], n: u32) {
    let (vals, pos) = dynamic_shared_parts::<(f32, i32)>([n as usize, n as usize]);
    vals[0] = 1.0;
    pos[0] = 7;
    out[0] = vals[n as usize]; // PAST THE PART
}

#[test]
fn an_access_past_a_part_is_out_of_bounds() {
    let mut out = DeviceBuffer::<f32>::zeroed(1).unwrap();
    let err = launch!(past_a_part<<<1, 1, 32>>>(&mut out, 4)).unwrap_err();
    assert_eq!(err.code(), 700);
    let text = err.to_string();
    assert_has(&text, "Invalid __shared__ read of size 4 bytes");
    assert_has(&text, "past_a_part");
    assert_has(&text, &format!("tests/it/fission/port_shared.rs:{}", line_of("// PAST THE PART")));
    assert_has(&text, "by thread (0,0,0) in block (0,0,0)");
}

/// Splits the dynamic buffer into parts of `n` and `m` elements.
#[kernel]
fn split_n_m(out: &mut [i32], n: usize, m: usize) {
    let (a, b) = dynamic_shared_parts::<(f32, i32)>([n, m]); // THE SPLIT
    a[0] = 1.0;
    b[0] = 2;
    out[0] = b[0];
}

#[test]
fn parts_that_do_not_fit_are_an_error() {
    let mut out = DeviceBuffer::<i32>::zeroed(1).unwrap();
    // 4 floats and 4 ints fit in 32 bytes, not in 31.
    launch!(split_n_m<<<1, 1, 32>>>(&mut out, 4, 4)).unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![2]);
    let line = format!("tests/it/fission/port_shared.rs:{}", line_of("// THE SPLIT"));
    for (bytes, n, m) in [
        (31usize, 4usize, 4usize),
        (0, 0, 1),
        (64, usize::MAX, 1),
        (64, 1, usize::MAX / 2),
        (64, usize::MAX / 4 + 1, 1),
    ] {
        let err = launch!(split_n_m<<<1, 1, bytes>>>(&mut out, n, m)).unwrap_err();
        assert_eq!(err.code(), 719, "{bytes} bytes, [{n}, {m}]");
        let text = err.to_string();
        assert_has(&text, "the parts do not fit in the launch's");
        assert_has(&text, &format!("{bytes} bytes of dynamic shared memory"));
        assert_has(&text, "split_n_m");
        assert_has(&text, &line);
    }
}

/// A type aligned to 32 bytes, more than dynamic shared memory's 16.
#[derive(Clone, Copy, DeviceCopy)]
#[repr(C, align(32))]
struct Wide {
    v: [f32; 8],
}
// SAFETY: eight f32s with no padding (32 bytes, aligned to 32): every bit pattern is valid.
unsafe impl AnyBitPattern for Wide {}

#[kernel]
fn split_wide(out: &mut [f32]) {
    let (a, w) = dynamic_shared_parts::<(f32, Wide)>([1, 1]);
    a[0] = 1.0;
    out[0] = w[0].v[0] + a[0];
}

#[test]
fn a_part_aligned_to_more_than_16_bytes_is_an_error() {
    let mut out = DeviceBuffer::<f32>::zeroed(1).unwrap();
    let err = launch!(split_wide<<<1, 1, 256>>>(&mut out)).unwrap_err();
    assert_eq!(err.code(), 719);
    assert_has(&err.to_string(), "a part's type is aligned to more than 16 bytes");
}
