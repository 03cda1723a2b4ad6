//! Results of emulated kernels, compared bit for bit with CPU computations that do the same
//! floating-point operations in the same order.
//!
//! Covered: saxpy (plain and grid-stride), a shared-memory tree reduction (static and dynamic
//! shared memory), a 16x16 tiled matmul with 2-D blocks and `shared_array![[f32; 16]; 16]`
//! tiles, a double-buffered shared-memory stencil, histograms with `atomic_add` (global and
//! shared-privatised), atomics on every `atomic_add` type, the built-in index variables for
//! 1-D, 2-D and 3-D launches in every accepted launch-shape form, and
//! `sync_threads_count/and/or`.

use crate::common::Rng;
use crate::kernels::{block_sum, saxpy};
use deviceemu::prelude::*;
use deviceemu::Error;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// Asserts two float slices are identical bit for bit, naming the first difference.
#[track_caller]
fn assert_bits_eq(what: &str, got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len(), "{what}: length differs");
    if let Some(i) = (0..got.len()).find(|&i| got[i].to_bits() != want[i].to_bits()) {
        panic!(
            "{what}: element {i} differs: got {} ({:#010x}), want {} ({:#010x})",
            got[i],
            got[i].to_bits(),
            want[i],
            want[i].to_bits()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// saxpy
// ---------------------------------------------------------------------------------------------

#[kernel]
fn saxpy_grid_stride(a: f32, x: &[f32], y: &mut [f32]) {
    let stride = (grid_dim().x * block_dim().x) as usize;
    let mut i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    while i < y.len() {
        y[i] = a * x[i] + y[i];
        i += stride;
    }
}

/// Every element gets `+= 1` from exactly one thread of a grid-stride loop.
#[kernel]
fn visit_grid_stride(visits: &mut [u32]) {
    let stride = (grid_dim().x * block_dim().x) as usize;
    let mut i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    while i < visits.len() {
        visits[i] += 1;
        i += stride;
    }
}

fn saxpy_cpu(a: f32, x: &[f32], y: &[f32]) -> Vec<f32> {
    x.iter().zip(y).map(|(&x, &y)| a * x + y).collect()
}

#[test]
fn saxpy_matches_cpu_bit_for_bit() -> Result<(), Error> {
    let mut rng = Rng::new(1);
    // 10_007 is prime: no block size divides it, so the last block is partial.
    for (n, block) in [(10_007usize, 256u32), (1, 32), (255, 256), (257, 256), (4096, 1024), (1000, 7)] {
        let x = rng.f32s(n);
        let y = rng.f32s(n);
        let a = rng.f32() * 3.0;
        let dx = DeviceBuffer::from_slice(&x)?;
        let mut dy = DeviceBuffer::from_slice(&y)?;
        launch!(saxpy<<<(n as u32).div_ceil(block), block>>>(a, &dx, &mut dy))?;
        assert_bits_eq(&format!("saxpy n={n} block={block}"), &dy.to_vec()?, &saxpy_cpu(a, &x, &y));
        // The input is untouched.
        assert_bits_eq("saxpy x", &dx.to_vec()?, &x);
    }
    Ok(())
}

#[test]
fn saxpy_contract_literals_infer() -> Result<(), Error> {
    // `<<<3, 256>>>` with unsuffixed literals must infer (the guide's kernels chapter: the launch contract).
    let x = DeviceBuffer::from_slice(&vec![1.5f32; 700])?;
    let mut y = DeviceBuffer::from_slice(&vec![0.25f32; 700])?;
    launch!(saxpy<<<3, 256>>>(2.0, &x, &mut y))?;
    assert!(y.to_vec()?.iter().all(|&v| v == 3.25));
    Ok(())
}

#[test]
fn grid_stride_loops_cover_every_element_once() -> Result<(), Error> {
    let mut rng = Rng::new(2);
    for (n, grid, block) in [(10_007usize, 4u32, 64u32), (100, 3, 32), (5, 8, 32), (70_001, 13, 96)] {
        let x = rng.f32s(n);
        let y = rng.f32s(n);
        let dx = DeviceBuffer::from_slice(&x)?;
        let mut dy = DeviceBuffer::from_slice(&y)?;
        launch!(saxpy_grid_stride<<<grid, block>>>(-0.75, &dx, &mut dy))?;
        assert_bits_eq(&format!("grid-stride saxpy n={n}"), &dy.to_vec()?, &saxpy_cpu(-0.75, &x, &y));

        let mut visits = DeviceBuffer::<u32>::zeroed(n)?;
        launch!(visit_grid_stride<<<grid, block>>>(&mut visits))?;
        let v = visits.to_vec()?;
        if let Some(i) = v.iter().position(|&c| c != 1) {
            panic!("grid-stride n={n} grid={grid} block={block}: element {i} visited {} times", v[i]);
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Block reduction
// ---------------------------------------------------------------------------------------------

/// Grid-stride accumulation per thread, then the same tree in dynamic shared memory.
#[kernel]
fn grid_stride_sum(input: &[f32], partial: &mut [f32]) {
    let tile = dynamic_shared::<f32>();
    let tid = thread_idx().x as usize;
    let stride = (grid_dim().x * block_dim().x) as usize;
    let mut i = block_idx().x as usize * block_dim().x as usize + tid;
    let mut acc = 0.0f32;
    while i < input.len() {
        acc += input[i];
        i += stride;
    }
    tile[tid] = acc;
    sync_threads();
    let mut s = block_dim().x as usize / 2;
    while s > 0 {
        if tid < s {
            tile[tid] += tile[tid + s];
        }
        sync_threads();
        s /= 2;
    }
    if tid == 0 {
        partial[block_idx().x as usize] = tile[0];
    }
}

/// The kernel's tree, on the CPU: `tile[t] += tile[t + s]` for `s = block/2, ..., 1`.
fn tree_sum(tile: &mut [f32]) -> f32 {
    let mut s = tile.len() / 2;
    while s > 0 {
        for t in 0..s {
            tile[t] += tile[t + s];
        }
        s /= 2;
    }
    tile[0]
}

fn block_sums_cpu(input: &[f32], block: usize) -> Vec<f32> {
    input
        .chunks(block)
        .map(|c| {
            let mut tile = vec![0.0f32; block];
            tile[..c.len()].copy_from_slice(c);
            tree_sum(&mut tile)
        })
        .collect()
}

#[test]
fn block_reduction_matches_cpu_tree_bit_for_bit() -> Result<(), Error> {
    let mut rng = Rng::new(3);
    for n in [256usize, 1, 255, 257, 20_000, 65_536 + 3] {
        let input = rng.f32s(n);
        let blocks = n.div_ceil(256);
        let d_in = DeviceBuffer::from_slice(&input)?;
        let mut d_partial = DeviceBuffer::from_slice(&vec![f32::NAN; blocks])?;
        launch!(block_sum<<<blocks as u32, 256>>>(&d_in, &mut d_partial))?;
        let got = d_partial.to_vec()?;
        assert_bits_eq(&format!("block_sum n={n}"), &got, &block_sums_cpu(&input, 256));
    }
    Ok(())
}

#[test]
fn block_reduction_with_smaller_blocks_uses_part_of_the_static_array() -> Result<(), Error> {
    // The kernel declares 256 elements; blocks of 64 use the first 64.
    let mut rng = Rng::new(4);
    let input = rng.f32s(1000);
    let d_in = DeviceBuffer::from_slice(&input)?;
    let mut d_partial = DeviceBuffer::<f32>::zeroed(16)?;
    launch!(block_sum<<<16, 64>>>(&d_in, &mut d_partial))?;
    assert_bits_eq("block_sum block=64", &d_partial.to_vec()?, &block_sums_cpu(&input, 64));
    Ok(())
}

#[test]
fn grid_stride_reduction_matches_cpu_bit_for_bit() -> Result<(), Error> {
    let mut rng = Rng::new(5);
    for (n, grid, block) in [(50_000usize, 8usize, 128usize), (100, 4, 64), (3, 2, 32)] {
        let input = rng.f32s(n);
        let d_in = DeviceBuffer::from_slice(&input)?;
        let mut d_partial = DeviceBuffer::<f32>::zeroed(grid)?;
        launch!(grid_stride_sum<<<grid as u32, block as u32, block * 4>>>(&d_in, &mut d_partial))?;

        let stride = grid * block;
        let want: Vec<f32> = (0..grid)
            .map(|b| {
                let mut tile: Vec<f32> = (0..block)
                    .map(|t| {
                        let mut acc = 0.0f32;
                        let mut i = b * block + t;
                        while i < n {
                            acc += input[i];
                            i += stride;
                        }
                        acc
                    })
                    .collect();
                tree_sum(&mut tile)
            })
            .collect();
        assert_bits_eq(&format!("grid-stride sum n={n}"), &d_partial.to_vec()?, &want);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Tiled matmul
// ---------------------------------------------------------------------------------------------

const TILE: usize = 16;

/// `c = a * b` with `a` m×k, `b` k×n (row-major), 16×16 tiles in shared memory.
#[kernel]
fn matmul_tiled(m: u32, n: u32, k: u32, a: &[f32], b: &[f32], c: &mut [f32]) {
    let ta = shared_array![[f32; TILE]; TILE];
    let tb = shared_array![[f32; TILE]; TILE];
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let row = block_idx().y as usize * TILE + ty;
    let col = block_idx().x as usize * TILE + tx;
    let (m, n, k) = (m as usize, n as usize, k as usize);
    let mut acc = 0.0f32;
    for t in 0..k.div_ceil(TILE) {
        let ak = t * TILE + tx;
        ta[ty][tx] = if row < m && ak < k { a[row * k + ak] } else { 0.0 };
        let bk = t * TILE + ty;
        tb[ty][tx] = if bk < k && col < n { b[bk * n + col] } else { 0.0 };
        sync_threads();
        for kk in 0..TILE {
            acc += ta[ty][kk] * tb[kk][tx];
        }
        sync_threads();
    }
    if row < m && col < n {
        c[row * n + col] = acc;
    }
}

/// The kernel's arithmetic on the CPU: same products, same (zero-padded) summation order.
fn matmul_cpu(m: usize, n: usize, k: usize, a: &[f32], b: &[f32]) -> Vec<f32> {
    let mut c = vec![0.0f32; m * n];
    for row in 0..m {
        for col in 0..n {
            let mut acc = 0.0f32;
            for t in 0..k.div_ceil(TILE) {
                for kk in 0..TILE {
                    let kx = t * TILE + kk;
                    let (av, bv) = if kx < k { (a[row * k + kx], b[kx * n + col]) } else { (0.0, 0.0) };
                    acc += av * bv;
                }
            }
            c[row * n + col] = acc;
        }
    }
    c
}

#[test]
fn tiled_matmul_matches_cpu_bit_for_bit() -> Result<(), Error> {
    let mut rng = Rng::new(6);
    // Square multiples of the tile, and ragged shapes where every edge is partial.
    for (m, n, k) in [(32usize, 32usize, 32usize), (37, 29, 53), (1, 17, 5), (20, 3, 16)] {
        let a = rng.f32s(m * k);
        let b = rng.f32s(k * n);
        let da = DeviceBuffer::from_slice(&a)?;
        let db = DeviceBuffer::from_slice(&b)?;
        let mut dc = DeviceBuffer::from_slice(&vec![f32::NAN; m * n])?;
        let grid = (n.div_ceil(TILE) as u32, m.div_ceil(TILE) as u32);
        launch!(matmul_tiled<<<grid, (TILE as u32, TILE as u32)>>>(m as u32, n as u32, k as u32, &da, &db, &mut dc))?;
        assert_bits_eq(&format!("matmul {m}x{k} * {k}x{n}"), &dc.to_vec()?, &matmul_cpu(m, n, k, &a, &b));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Double-buffered shared-memory stencil
// ---------------------------------------------------------------------------------------------

const SB: usize = 64;

/// `steps` rounds of a 3-point stencil on each block's segment, ping-ponging between two
/// shared arrays; the halo cells (neighbours' first values) stay fixed.
#[kernel]
fn stencil_steps(steps: u32, input: &[f32], output: &mut [f32]) {
    let a = shared_array![f32; SB + 2];
    let b = shared_array![f32; SB + 2];
    let t = thread_idx().x as usize;
    let bd = block_dim().x as usize;
    let base = block_idx().x as usize * bd;
    let n = input.len();
    let g = base + t;
    a[t + 1] = if g < n { input[g] } else { 0.0 };
    if t == 0 {
        a[0] = if base > 0 { input[base - 1] } else { 0.0 };
        b[0] = a[0];
    }
    if t == bd - 1 {
        a[bd + 1] = if g + 1 < n { input[g + 1] } else { 0.0 };
        b[bd + 1] = a[bd + 1];
    }
    sync_threads();
    for step in 0..steps {
        let (src, dst) = if step % 2 == 0 { (a, b) } else { (b, a) };
        dst[t + 1] = 0.25 * src[t] + 0.5 * src[t + 1] + 0.25 * src[t + 2];
        sync_threads();
    }
    let res = if steps % 2 == 0 { a } else { b };
    if g < n {
        output[g] = res[t + 1];
    }
}

/// The same stencil, swapping the buffers with `core::mem::swap` on two view bindings.
#[kernel]
fn stencil_steps_swap(steps: u32, input: &[f32], output: &mut [f32]) {
    let mut src = shared_array![f32; SB + 2];
    let mut dst = shared_array![f32; SB + 2];
    let t = thread_idx().x as usize;
    let bd = block_dim().x as usize;
    let base = block_idx().x as usize * bd;
    let n = input.len();
    let g = base + t;
    src[t + 1] = if g < n { input[g] } else { 0.0 };
    if t == 0 {
        src[0] = if base > 0 { input[base - 1] } else { 0.0 };
        dst[0] = src[0];
    }
    if t == bd - 1 {
        src[bd + 1] = if g + 1 < n { input[g + 1] } else { 0.0 };
        dst[bd + 1] = src[bd + 1];
    }
    sync_threads();
    for _ in 0..steps {
        stencil_point(src, dst, t);
        sync_threads();
        core::mem::swap(&mut src, &mut dst);
    }
    if g < n {
        output[g] = src[t + 1];
    }
}

/// One stencil point, in a `#[device]` helper taking shared views.
#[device]
fn stencil_point(src: Shared<f32>, dst: Shared<f32>, t: usize) {
    dst[t + 1] = 0.25 * src[t] + 0.5 * src[t + 1] + 0.25 * src[t + 2];
}

/// The same stencil, choosing the buffers with a `match` on the step's parity.
#[kernel]
fn stencil_steps_match(steps: u32, input: &[f32], output: &mut [f32]) {
    let a = shared_array![f32; SB + 2];
    let b = shared_array![f32; SB + 2];
    let t = thread_idx().x as usize;
    let bd = block_dim().x as usize;
    let base = block_idx().x as usize * bd;
    let n = input.len();
    let g = base + t;
    a[t + 1] = if g < n { input[g] } else { 0.0 };
    if t == 0 {
        a[0] = if base > 0 { input[base - 1] } else { 0.0 };
        b[0] = a[0];
    }
    if t == bd - 1 {
        a[bd + 1] = if g + 1 < n { input[g + 1] } else { 0.0 };
        b[bd + 1] = a[bd + 1];
    }
    sync_threads();
    let mut step = 0;
    while step < steps {
        let (src, dst) = match step % 2 {
            0 => (a, b),
            _ => (b, a),
        };
        dst[t + 1] = 0.25 * src[t] + 0.5 * src[t + 1] + 0.25 * src[t + 2];
        sync_threads();
        step += 1;
    }
    let res = match steps % 2 {
        0 => a,
        _ => b,
    };
    if g < n {
        output[g] = res[t + 1];
    }
}

fn stencil_cpu(steps: u32, input: &[f32], block: usize) -> Vec<f32> {
    let n = input.len();
    let mut out = vec![0.0f32; n];
    for base in (0..n).step_by(block) {
        let mut a = vec![0.0f32; block + 2];
        for t in 0..block {
            a[t + 1] = if base + t < n { input[base + t] } else { 0.0 };
        }
        a[0] = if base > 0 { input[base - 1] } else { 0.0 };
        a[block + 1] = if base + block < n { input[base + block] } else { 0.0 };
        let mut b = a.clone();
        for _ in 0..steps {
            for t in 0..block {
                b[t + 1] = 0.25 * a[t] + 0.5 * a[t + 1] + 0.25 * a[t + 2];
            }
            std::mem::swap(&mut a, &mut b);
        }
        let m = block.min(n - base);
        out[base..base + m].copy_from_slice(&a[1..m + 1]);
    }
    out
}

#[test]
fn double_buffered_stencil_matches_cpu_bit_for_bit() -> Result<(), Error> {
    let mut rng = Rng::new(7);
    for (n, steps) in [(1000usize, 7u32), (1000, 8), (64, 1), (65, 0), (200, 13)] {
        let input = rng.f32s(n);
        let d_in = DeviceBuffer::from_slice(&input)?;
        let mut d_out = DeviceBuffer::from_slice(&vec![f32::NAN; n])?;
        launch!(stencil_steps<<<n.div_ceil(SB) as u32, SB as u32>>>(steps, &d_in, &mut d_out))?;
        let want = stencil_cpu(steps, &input, SB);
        assert_bits_eq(&format!("stencil n={n} steps={steps}"), &d_out.to_vec()?, &want);
        let grid = n.div_ceil(SB) as u32;
        let mut d_out = DeviceBuffer::from_slice(&vec![f32::NAN; n])?;
        launch!(stencil_steps_swap<<<grid, SB as u32>>>(steps, &d_in, &mut d_out))?;
        assert_bits_eq(&format!("stencil (mem::swap) n={n} steps={steps}"), &d_out.to_vec()?, &want);
        let mut d_out = DeviceBuffer::from_slice(&vec![f32::NAN; n])?;
        launch!(stencil_steps_match<<<grid, SB as u32>>>(steps, &d_in, &mut d_out))?;
        assert_bits_eq(&format!("stencil (match) n={n} steps={steps}"), &d_out.to_vec()?, &want);
        if steps > 0 {
            // Not a tautology: the stencil changed the data.
            assert_ne!(want, input);
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Histograms and atomics
// ---------------------------------------------------------------------------------------------

const BINS: usize = 64;

#[kernel]
fn hist_global(data: &[u32], hist: &mut [u32]) {
    let stride = (grid_dim().x * block_dim().x) as usize;
    let mut i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    while i < data.len() {
        hist.atomic_add(data[i] as usize, 1);
        i += stride;
    }
}

#[kernel]
fn hist_shared(data: &[u32], hist: &mut [u32]) {
    let local = shared_array![u32; BINS];
    let t = thread_idx().x as usize;
    let bd = block_dim().x as usize;
    // Shared memory starts uninitialised: zero it cooperatively (bd may be < BINS).
    let mut j = t;
    while j < BINS {
        local[j] = 0;
        j += bd;
    }
    sync_threads();
    let stride = (grid_dim().x * block_dim().x) as usize;
    let mut i = block_idx().x as usize * bd + t;
    while i < data.len() {
        local.atomic_add(data[i] as usize, 1);
        i += stride;
    }
    sync_threads();
    let mut j = t;
    while j < BINS {
        let c = local[j];
        if c > 0 {
            hist.atomic_add(j, c);
        }
        j += bd;
    }
}

fn hist_cpu(data: &[u32]) -> Vec<u32> {
    let mut h = vec![0u32; BINS];
    for &d in data {
        h[d as usize] += 1;
    }
    h
}

fn skewed_data(seed: u64, n: usize) -> Vec<u32> {
    let mut rng = Rng::new(seed);
    // Skewed on purpose: many collisions on the low bins.
    (0..n).map(|_| rng.below(BINS as u64).min(rng.below(BINS as u64)) as u32).collect()
}

#[test]
fn histogram_global_atomics_match_cpu() -> Result<(), Error> {
    for (n, grid, block) in [(10_007usize, 8u32, 128u32), (1, 1, 32), (5000, 40, 256)] {
        let data = skewed_data(n as u64, n);
        let d = DeviceBuffer::from_slice(&data)?;
        let mut h = DeviceBuffer::<u32>::zeroed(BINS)?;
        launch!(hist_global<<<grid, block>>>(&d, &mut h))?;
        assert_eq!(h.to_vec()?, hist_cpu(&data), "global histogram n={n}");
    }
    Ok(())
}

#[test]
fn histogram_shared_privatised_matches_cpu() -> Result<(), Error> {
    // Block sizes below and above BINS; repeated launches reuse workers' shared memory, so a
    // missing zeroing step would show up as counts from an earlier block.
    for (n, grid, block) in [(10_007usize, 8u32, 128u32), (3000, 5, 48), (777, 3, 32), (20_000, 16, 256)] {
        let data = skewed_data(n as u64 + 1, n);
        let d = DeviceBuffer::from_slice(&data)?;
        let mut h = DeviceBuffer::<u32>::zeroed(BINS)?;
        launch!(hist_shared<<<grid, block>>>(&d, &mut h))?;
        assert_eq!(h.to_vec()?, hist_cpu(&data), "shared histogram n={n} block={block}");
    }
    Ok(())
}

/// Each thread takes a ticket with `atomic_add` and writes its id into that slot.
#[kernel]
fn take_tickets(counter: &mut [u32], slots: &mut [u32]) {
    let gid = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if gid < slots.len() {
        let ticket = counter.atomic_add(0, 1);
        slots[ticket as usize] = gid as u32;
    }
}

#[test]
fn atomic_add_returns_the_old_value() -> Result<(), Error> {
    let n = 3000usize;
    let mut counter = DeviceBuffer::<u32>::zeroed(1)?;
    let mut slots = DeviceBuffer::from_slice(&vec![u32::MAX; n])?;
    launch!(take_tickets<<<(n as u32).div_ceil(128), 128>>>(&mut counter, &mut slots))?;
    assert_eq!(counter.to_vec()?, vec![n as u32]);
    let mut s = slots.to_vec()?;
    s.sort_unstable();
    assert_eq!(s, (0..n as u32).collect::<Vec<_>>(), "tickets are not a permutation: an old value was returned twice");
    Ok(())
}

#[kernel]
fn atomic_all_types(ui: &mut [u32], si: &mut [i32], ul: &mut [u64], sl: &mut [i64], f: &mut [f32], d: &mut [f64]) {
    let t = (block_idx().x * block_dim().x + thread_idx().x) as i64;
    let b = (t % 4) as usize;
    ui.atomic_add(b, 3);
    si.atomic_add(b, -(t as i32));
    ul.atomic_add(b, 1u64 << 33);
    sl.atomic_add(b, -(t << 20));
    f.atomic_add(b, 0.5);
    d.atomic_add(b, t as f64 * 0.25);
}

#[test]
fn atomic_add_on_every_supported_type() -> Result<(), Error> {
    let (grid, block) = (5u32, 64u32);
    let mut ui = DeviceBuffer::<u32>::zeroed(4)?;
    let mut si = DeviceBuffer::from_slice(&[10i32; 4])?;
    let mut ul = DeviceBuffer::<u64>::zeroed(4)?;
    let mut sl = DeviceBuffer::<i64>::zeroed(4)?;
    let mut f = DeviceBuffer::from_slice(&[1.0f32; 4])?;
    let mut d = DeviceBuffer::<f64>::zeroed(4)?;
    launch!(atomic_all_types<<<grid, block>>>(&mut ui, &mut si, &mut ul, &mut sl, &mut f, &mut d))?;
    let mut want = ([0u32; 4], [10i32; 4], [0u64; 4], [0i64; 4], [1.0f32; 4], [0.0f64; 4]);
    for t in 0..(grid * block) as i64 {
        let b = (t % 4) as usize;
        want.0[b] += 3;
        want.1[b] -= t as i32;
        want.2[b] += 1 << 33;
        want.3[b] -= t << 20;
        want.4[b] += 0.5; // exact: small multiples of 0.5
        want.5[b] += t as f64 * 0.25; // exact: small multiples of 0.25
    }
    assert_eq!(ui.to_vec()?, want.0);
    assert_eq!(si.to_vec()?, want.1);
    assert_eq!(ul.to_vec()?, want.2);
    assert_eq!(sl.to_vec()?, want.3);
    assert_eq!(f.to_vec()?, want.4);
    assert_eq!(d.to_vec()?, want.5);
    Ok(())
}

#[kernel]
fn atomic_add_f32_one(v: &mut [f32], add: f32) {
    v.atomic_add(0, add);
}

#[test]
fn atomic_add_f32_follows_the_device() -> Result<(), Error> {
    let run = |start: f32, add: f32| -> Result<u32, Error> {
        let mut v = DeviceBuffer::from_slice(&[start])?;
        launch!(atomic_add_f32_one<<<1, 1>>>(&mut v, add))?;
        Ok(v.to_vec()?[0].to_bits())
    };
    // Round to nearest even: 1 + 2^-24 is a tie and stays 1; 1 + 3 * 2^-24 rounds up.
    assert_eq!(run(1.0, f32::from_bits(0x3380_0000))?, 0x3F80_0000);
    assert_eq!(run(1.0, f32::from_bits(0x3440_0000))?, 0x3F80_0002);
    // Subnormal inputs and results flush to zero of the same sign.
    assert_eq!(run(0.0, f32::from_bits(0x0000_0001))?, 0);
    assert_eq!(run(f32::MIN_POSITIVE, -f32::from_bits(0x0000_0010) - f32::MIN_POSITIVE)?, 0x8000_0000);
    // A NaN result is the canonical NaN.
    assert_eq!(run(f32::from_bits(0x7FC0_1234), 1.0)?, 0x7FFF_FFFF);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Built-in index variables: 1-D, 2-D and 3-D launches
// ---------------------------------------------------------------------------------------------

const FIELDS: usize = 12;

/// Writes every built-in index variable of every thread at a slot derived from them.
#[kernel]
fn record_indices(out: &mut [u32]) {
    let t = thread_idx();
    let b = block_idx();
    let bd = block_dim();
    let gd = grid_dim();
    let thread_linear = t.x + bd.x * (t.y + bd.y * t.z);
    let block_linear = b.x + gd.x * (b.y + gd.y * b.z);
    let slot = (block_linear * (bd.x * bd.y * bd.z) + thread_linear) as usize;
    let values = [t.x, t.y, t.z, b.x, b.y, b.z, bd.x, bd.y, bd.z, gd.x, gd.y, gd.z];
    for (j, v) in values.iter().enumerate() {
        out[slot * FIELDS + j] = *v;
    }
}

/// What `record_indices` should produce, enumerating with x fastest, as CUDA does.
fn indices_cpu(grid: Dim3, block: Dim3) -> Vec<u32> {
    let mut out = Vec::new();
    for bz in 0..grid.z {
        for by in 0..grid.y {
            for bx in 0..grid.x {
                for tz in 0..block.z {
                    for ty in 0..block.y {
                        for tx in 0..block.x {
                            out.extend([tx, ty, tz, bx, by, bz, block.x, block.y, block.z, grid.x, grid.y, grid.z]);
                        }
                    }
                }
            }
        }
    }
    out
}

fn run_indices(
    grid: Dim3,
    block: Dim3,
    launch: impl FnOnce(&mut DeviceBuffer<u32>) -> Result<(), Error>,
) -> Result<(), Error> {
    let n = (grid.count() * block.count()) as usize * FIELDS;
    let mut out = DeviceBuffer::from_slice(&vec![u32::MAX; n])?;
    launch(&mut out)?;
    let got = out.to_vec()?;
    let want = indices_cpu(grid, block);
    if let Some(i) = (0..n).find(|&i| got[i] != want[i]) {
        let names = ["tx", "ty", "tz", "bx", "by", "bz", "bdx", "bdy", "bdz", "gdx", "gdy", "gdz"];
        panic!(
            "grid {grid} block {block}: thread slot {} field {} is {}, want {}",
            i / FIELDS,
            names[i % FIELDS],
            got[i],
            want[i]
        );
    }
    Ok(())
}

#[test]
fn indices_1d() -> Result<(), Error> {
    run_indices(Dim3::new(3, 1, 1), Dim3::new(37, 1, 1), |o| launch!(record_indices<<<3u32, 37u32>>>(o)))
}

#[test]
fn indices_2d() -> Result<(), Error> {
    run_indices(Dim3::new(2, 3, 1), Dim3::new(5, 4, 1), |o| launch!(record_indices<<<(2, 3), (5, 4)>>>(o)))
}

#[test]
fn indices_3d() -> Result<(), Error> {
    run_indices(Dim3::new(2, 2, 3), Dim3::new(3, 2, 4), |o| launch!(record_indices<<<(2, 2, 3), (3, 2, 4)>>>(o)))
}

#[test]
fn indices_with_dim3_and_mixed_forms() -> Result<(), Error> {
    let (g, b) = (Dim3::new(1, 2, 2), Dim3::new(2, 1, 3));
    run_indices(g, b, |o| launch!(record_indices<<<g, b>>>(o)))?;
    run_indices(Dim3::new(4, 1, 1), Dim3::new(2, 3, 2), |o| launch!(record_indices<<<4, (2, 3, 2)>>>(o)))?;
    run_indices(Dim3::new(1, 1, 5), Dim3::new(1, 1, 64), |o| launch!(record_indices<<<(1, 1, 5), (1, 1, 64)>>>(o)))
}

// ---------------------------------------------------------------------------------------------
// sync_threads_count / and / or
// ---------------------------------------------------------------------------------------------

const VOTES: usize = 6;

/// Block-wide votes whose answers depend on the block index.
#[kernel]
fn block_votes(out: &mut [u32]) {
    let tid = thread_idx().x;
    let b = block_idx().x;
    let n = block_dim().x;
    let count = sync_threads_count(tid % (b + 2) == 0);
    let count_none = sync_threads_count(false);
    let all_true = sync_threads_and(tid < n);
    let all_ge_b = sync_threads_and(tid >= b);
    let any_lt_b = sync_threads_or(tid < b);
    let any_last = sync_threads_or(tid == n - 1);
    let base = ((b * n + tid) as usize) * VOTES;
    out[base] = count;
    out[base + 1] = count_none;
    out[base + 2] = all_true as u32;
    out[base + 3] = all_ge_b as u32;
    out[base + 4] = any_lt_b as u32;
    out[base + 5] = any_last as u32;
}

#[test]
fn sync_threads_count_and_or() -> Result<(), Error> {
    let (grid, block) = (4u32, 100u32);
    let mut out = DeviceBuffer::from_slice(&vec![u32::MAX; (grid * block) as usize * VOTES])?;
    launch!(block_votes<<<grid, block>>>(&mut out))?;
    let got = out.to_vec()?;
    for b in 0..grid {
        let want = [
            block.div_ceil(b + 2), // threads with tid % (b + 2) == 0
            0,
            1,
            (b == 0) as u32,
            (b > 0) as u32,
            1,
        ];
        for t in 0..block {
            let base = ((b * block + t) as usize) * VOTES;
            assert_eq!(&got[base..base + VOTES], &want, "block {b} thread {t}");
        }
    }
    Ok(())
}

/// Threads that exited before the barrier do not vote.
#[kernel]
fn votes_after_exit(cut: u32, out: &mut [u32]) {
    let tid = thread_idx().x;
    if tid >= cut {
        return;
    }
    let c = sync_threads_count(true);
    let all = sync_threads_and(tid < cut);
    let any = sync_threads_or(tid + 1 == cut);
    out[tid as usize] = c * 4 + (all as u32) * 2 + any as u32;
}

#[test]
fn sync_threads_votes_ignore_exited_threads() -> Result<(), Error> {
    for cut in [1u32, 31, 32, 50, 64] {
        let mut out = DeviceBuffer::from_slice(&[u32::MAX; 64])?;
        launch!(votes_after_exit<<<1, 64>>>(cut, &mut out))?;
        let got = out.to_vec()?;
        for (t, &v) in got.iter().enumerate() {
            let want = if (t as u32) < cut { cut * 4 + 3 } else { u32::MAX };
            assert_eq!(v, want, "cut {cut} thread {t}");
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Shared memory is per block and shared by the block's threads
// ---------------------------------------------------------------------------------------------

/// Each block reverses its segment through shared memory.
#[kernel]
fn reverse_in_block(data: &mut [u32]) {
    let s = shared_array![u32; 128];
    let t = thread_idx().x as usize;
    let n = block_dim().x as usize;
    let base = block_idx().x as usize * n;
    s[t] = data[base + t];
    sync_threads();
    data[base + t] = s[n - 1 - t];
}

#[test]
fn shared_arrays_are_per_block_and_visible_to_the_whole_block() -> Result<(), Error> {
    let (grid, block) = (37usize, 128usize);
    let input: Vec<u32> = (0..(grid * block) as u32).collect();
    let mut d = DeviceBuffer::from_slice(&input)?;
    launch!(reverse_in_block<<<grid as u32, block as u32>>>(&mut d))?;
    let want: Vec<u32> = input.chunks(block).flat_map(|c| c.iter().rev().copied()).collect();
    assert_eq!(d.to_vec()?, want);
    Ok(())
}

/// A tree reduction over a 3-D block (8 x 4 x 4 = 128 threads), by linear thread index.
#[kernel]
fn block_sum_3d(input: &[u32], partial: &mut [u32]) {
    let tile = shared_array![u32; 128];
    let (t, d) = (thread_idx(), block_dim());
    let tid = (t.x + d.x * (t.y + d.y * t.z)) as usize;
    let n = (d.x * d.y * d.z) as usize;
    let b = block_idx();
    let g = grid_dim();
    let block_linear = (b.x + g.x * (b.y + g.y * b.z)) as usize;
    let i = block_linear * n + tid;
    tile[tid] = if i < input.len() { input[i] } else { 0 };
    sync_threads();
    let mut s = n / 2;
    while s > 0 {
        if tid < s {
            tile[tid] += tile[tid + s];
        }
        sync_threads();
        s /= 2;
    }
    if tid == 0 {
        partial[block_linear] = tile[0];
    }
}

#[test]
fn reduction_over_3d_blocks_and_grid() -> Result<(), Error> {
    let n = 2 * 3 * 2 * 128 - 77;
    let input: Vec<u32> = (0..n as u32).map(|v| v * 7 % 1000).collect();
    let d_in = DeviceBuffer::from_slice(&input)?;
    let mut partial = DeviceBuffer::from_slice(&[u32::MAX; 12])?;
    launch!(block_sum_3d<<<(2, 3, 2), (8, 4, 4)>>>(&d_in, &mut partial))?;
    let want: Vec<u32> = input.chunks(128).map(|c| c.iter().sum()).collect();
    assert_eq!(partial.to_vec()?, want);
    Ok(())
}

#[test]
fn concurrent_launches_from_several_host_threads() {
    let handles: Vec<_> = (0..4u64)
        .map(|k| {
            std::thread::spawn(move || -> Result<(), Error> {
                let mut rng = Rng::new(100 + k);
                for round in 0..10 {
                    let n = 1000 + 517 * round + k as usize;
                    let input = rng.f32s(n);
                    let d_in = DeviceBuffer::from_slice(&input)?;
                    let mut d_partial = DeviceBuffer::<f32>::zeroed(n.div_ceil(256))?;
                    launch!(block_sum<<<n.div_ceil(256) as u32, 256>>>(&d_in, &mut d_partial))?;
                    assert_bits_eq(
                        &format!("host thread {k} round {round}"),
                        &d_partial.to_vec()?,
                        &block_sums_cpu(&input, 256),
                    );
                }
                Ok(())
            })
        })
        .collect();
    for h in handles {
        h.join().expect("no panic").expect("no launch error");
    }
}

#[test]
fn empty_buffers_and_kernels_without_buffers() -> Result<(), Error> {
    let x = DeviceBuffer::<f32>::zeroed(0)?;
    let mut y = DeviceBuffer::<f32>::zeroed(0)?;
    assert_eq!((x.len(), y.len()), (0, 0));
    launch!(saxpy<<<1, 32>>>(1.0, &x, &mut y))?;
    assert!(y.to_vec()?.is_empty());
    launch!(scalars_only<<<2, 2>>>(1, 2.5, true))?;
    Ok(())
}

/// A `#[repr(C)]` plain-data struct passed by value.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
struct Affine {
    scale: f32,
    offset: f32,
    limit: u32,
    _pad: u32,
}

// SAFETY: `#[repr(C)]`, four 4-byte fields (no padding), all-zero is a valid value.
unsafe impl DeviceCopy for Affine {}

#[kernel]
fn affine(p: Affine, y: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() && (i as u32) < p.limit {
        y[i] = p.scale * y[i] + p.offset;
    }
}

#[test]
fn repr_c_struct_parameters() -> Result<(), Error> {
    let mut rng = Rng::new(8);
    let v = rng.f32s(300);
    let mut y = DeviceBuffer::from_slice(&v)?;
    let p = Affine { scale: 1.5, offset: -0.25, limit: 200, _pad: 0 };
    launch!(affine<<<3, 128>>>(p, &mut y))?;
    let want: Vec<f32> = v.iter().enumerate().map(|(i, &x)| if i < 200 { 1.5 * x + -0.25 } else { x }).collect();
    assert_bits_eq("affine", &y.to_vec()?, &want);
    Ok(())
}

#[kernel]
fn scalars_only(a: u32, b: f64, c: bool) {
    assert!(a == 1 && b == 2.5 && c);
}

// ---------------------------------------------------------------------------------------------
// Buffers
// ---------------------------------------------------------------------------------------------

#[test]
fn buffers_round_trip() -> Result<(), Error> {
    let mut b = DeviceBuffer::from_slice(&[1.5f64, -2.0, 3.25])?;
    assert_eq!(b.len(), 3);
    assert_eq!(b.to_vec()?, vec![1.5, -2.0, 3.25]);
    b.copy_from_slice(&[4.0, 5.0, 6.0])?;
    assert_eq!(b.to_vec()?, vec![4.0, 5.0, 6.0]);
    assert_eq!(DeviceBuffer::<u16>::zeroed(5)?.to_vec()?, vec![0; 5]);
    assert_eq!(DeviceBuffer::<u8>::uninit(7)?.len(), 7);
    Ok(())
}
