//! Lane loops of 2-D blocks vectorised row by row (`emu-macros/src/fission/rows.rs`,
//! `Regions::each_row_chunk`): which kernels take the form, and that it gives what the
//! threads give one at a time, where its checks hold and where they do not (a condition that
//! passes lanes apart, stores whose ranges overlap, a lane that panics).

use deviceemu::__private::last_vectorised;
use deviceemu::prelude::*;
use deviceemu::{with_config, BlockOrder, Config, ExecPath};

const W: i32 = 100;
const H: i32 = 37;

/// PolyBench's 2-D convolution in small: a 3x3 stencil of the interior, by `(i, j)` from the
/// 2-D indices.
#[kernel]
fn conv3(w: i32, h: i32, a: &[f32], b: &mut [f32]) {
    let j: i32 = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    let i: i32 = (block_idx().y * block_dim().y + thread_idx().y) as i32;
    if (i < h - 1) && (j < w - 1) && (i > 0) && (j > 0) {
        b[i * W + j] = 0.2 * a[(i - 1) * W + (j - 1)] + 0.5 * a[(i - 1) * W + (j + 1)] - 0.8 * a[i * W + j]
            + 0.3 * a[(i + 1) * W + (j - 1)]
            + 0.7 * a[(i + 1) * W + (j + 1)];
    }
}

/// Every third column only: the lanes that pass are not one run.
#[kernel]
fn every_third(w: i32, a: &[f32], b: &mut [f32]) {
    let j: i32 = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    let i: i32 = (block_idx().y * block_dim().y + thread_idx().y) as i32;
    if j % 3 != 0 && j < w && i < H {
        b[i * W + j] = a[i * W + j] * 2.0 + 1.0;
    }
}

/// Two stores whose ranges overlap: lane `j` writes `b[j]` and then `b[j + 1]`, so that one
/// at a time each element but the row's first keeps its own lane's store, made after the lane
/// before wrote it (all of one form's stores after all of the other's would keep the second).
#[kernel]
fn overlapping(w: i32, a: &[f32], b: &mut [f32]) {
    let j: i32 = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    let i: i32 = (block_idx().y * block_dim().y + thread_idx().y) as i32;
    if j < w - 1 && i < H {
        b[i * W + j] = a[i * W + j];
        b[i * W + j + 1] = a[i * W + j] + 100.0;
    }
}

/// Divides by `a[..] - z`: the lane whose element is `z` panics.
#[kernel]
fn divide(w: i32, z: i32, a: &[i32], b: &mut [i32]) {
    let j: i32 = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    let i: i32 = (block_idx().y * block_dim().y + thread_idx().y) as i32;
    if j < w && i < H {
        b[i * W + j] = 1000 / (a[i * W + j] - z);
    }
}

/// The textbook matrix product: each thread's dot product over a row of `a` and a column of
/// `b`, in a per-thread sum (the passes of `k` run with the row's lanes inside each).
#[kernel]
fn matmul_rows(n: i32, a: &[f32], b: &[f32], c: &mut [f32]) {
    let col: i32 = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    let row: i32 = (block_idx().y * block_dim().y + thread_idx().y) as i32;
    if row < n && col < n {
        let mut sum: f32 = 0.0;
        for k in 0..n {
            sum += a[row * n + k] * b[k * n + col];
        }
        c[row * n + col] = sum;
    }
}

/// PolyBench's gemm: the product accumulated in place, `c[i][j] *= beta` first.
#[kernel]
fn gemm_rows(n: i32, alpha: f32, beta: f32, a: &[f32], b: &[f32], c: &mut [f32]) {
    let j: i32 = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    let i: i32 = (block_idx().y * block_dim().y + thread_idx().y) as i32;
    if (i < n) && (j < n) {
        c[i * n + j] *= beta;
        for k in 0..n {
            c[i * n + j] += alpha * a[i * n + k] * b[k * n + j];
        }
    }
}

/// A store made only inside a loop of `passes` passes (none: the element keeps its value).
#[kernel]
fn store_in_loop(passes: i32, a: &[f32], b: &mut [f32]) {
    let j: i32 = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    let i: i32 = (block_idx().y * block_dim().y + thread_idx().y) as i32;
    if j < W && i < H {
        for k in 0..passes {
            b[i * W + j] = a[i * W + j] * k as f32;
        }
    }
}

fn inputs() -> Vec<f32> {
    (0..W * H).map(|i| ((i * 7919) % 61) as f32 * 0.25 - 7.0).collect()
}

fn grid() -> (u32, u32) {
    ((W as u32).div_ceil(32), (H as u32).div_ceil(8))
}

/// `launch` on the default path, with `EMU_VERBOSE`'s count of vectorised region runs, and on
/// the general path.
fn both<T>(mut launch: impl FnMut() -> T) -> (T, usize, T) {
    let (fast, vectorised) = with_config(Config::default().verbose(true).blocks(BlockOrder::Serial), || {
        let out = launch();
        (out, last_vectorised())
    });
    let general = with_config(Config::default().path(ExecPath::General), launch);
    (fast, vectorised, general)
}

fn bits(v: Vec<f32>) -> Vec<u32> {
    v.into_iter().map(f32::to_bits).collect()
}

#[test]
fn a_2d_stencil_runs_row_by_row_with_the_bits_of_one_thread_at_a_time() {
    let a = inputs();
    let run = || {
        let da = DeviceBuffer::from_slice(&a).unwrap();
        let mut db = DeviceBuffer::<f32>::zeroed((W * H) as usize).unwrap();
        launch!(conv3<<<grid(), (32, 8)>>>(W, H, &da, &mut db)).unwrap();
        bits(db.to_vec().unwrap())
    };
    let (fast, vectorised, general) = both(run);
    let mut want = vec![0f32; (W * H) as usize];
    for i in 1..H - 1 {
        for j in 1..W - 1 {
            let at = |r: i32, c: i32| a[(r * W + c) as usize];
            want[(i * W + j) as usize] = 0.2 * at(i - 1, j - 1) + 0.5 * at(i - 1, j + 1) - 0.8 * at(i, j)
                + 0.3 * at(i + 1, j - 1)
                + 0.7 * at(i + 1, j + 1);
        }
    }
    assert_eq!(fast, bits(want));
    assert_eq!(fast, general);
    // One row-by-row run per block (4 x 5 blocks), rows at the edges included.
    if std::env::var_os("EMU_PATH").is_none() {
        assert_eq!(vectorised, 20);
    }
}

#[test]
fn lanes_that_pass_apart_and_stores_that_overlap_run_one_by_one() {
    let a = inputs();
    let third = || {
        let da = DeviceBuffer::from_slice(&a).unwrap();
        let mut db = DeviceBuffer::<f32>::from_slice(&vec![-1.0; (W * H) as usize]).unwrap();
        launch!(every_third<<<grid(), (32, 8)>>>(W, &da, &mut db)).unwrap();
        bits(db.to_vec().unwrap())
    };
    let (fast, _, general) = both(third);
    let want: Vec<f32> = (0..W * H).map(|k| if (k % W) % 3 != 0 { a[k as usize] * 2.0 + 1.0 } else { -1.0 }).collect();
    assert_eq!(fast, bits(want));
    assert_eq!(fast, general);

    let overlap = || {
        let da = DeviceBuffer::from_slice(&a).unwrap();
        let mut db = DeviceBuffer::<f32>::zeroed((W * H) as usize).unwrap();
        // One block wide (32 columns), so that no two blocks write one element.
        launch!(overlapping<<<(1, grid().1), (32, 8)>>>(32, &da, &mut db)).unwrap();
        bits(db.to_vec().unwrap())
    };
    let (fast, _, general) = both(overlap);
    // One at a time, in index order: lane `j`'s first store overwrites lane `j - 1`'s second.
    let mut want = vec![0f32; (W * H) as usize];
    for i in 0..H {
        for j in 0..32 - 1 {
            let k = (i * W + j) as usize;
            want[k] = a[k];
            want[k + 1] = a[k] + 100.0;
        }
    }
    assert_eq!(fast, bits(want));
    assert_eq!(fast, general);
}

#[test]
fn a_lane_that_panics_in_a_row_is_reported_as_its_thread() {
    let a: Vec<i32> = (0..W * H).collect();
    // Element 3 * W + 45 is thread (13, 3) of block (1, 0).
    for z in [-5, 3 * W + 45] {
        let run = || {
            let da = DeviceBuffer::from_slice(&a).unwrap();
            let mut db = DeviceBuffer::<i32>::zeroed((W * H) as usize).unwrap();
            let r = launch!(divide<<<grid(), (32, 8)>>>(W, z, &da, &mut db));
            (db.to_vec().unwrap(), r.map_err(|e| e.to_string()))
        };
        let ((out, r), _, (general, rg)) = both(run);
        if z < 0 {
            r.unwrap();
            rg.unwrap();
            assert_eq!(out, a.iter().map(|v| 1000 / (v - z)).collect::<Vec<_>>());
            assert_eq!(out, general);
        } else {
            let report = r.unwrap_err();
            assert!(
                report.contains("divide by zero") && report.contains("by thread (13,3,0) in block (1,0,0)"),
                "{report}"
            );
            assert!(rg.unwrap_err().contains("by thread (13,3,0) in block (1,0,0)"));
        }
    }
}

#[test]
fn loops_of_a_row_run_their_passes_with_the_lanes_inside() {
    // 40 x 40: rows of 32 lanes and of 8, and blocks past the edge.
    let n = 40i32;
    let a: Vec<f32> = (0..n * n).map(|k| ((k * 37) % 23) as f32 * 0.125 - 1.0).collect();
    let b: Vec<f32> = (0..n * n).map(|k| ((k * 11) % 19) as f32 * 0.25 - 2.0).collect();
    let c0: Vec<f32> = (0..n * n).map(|k| (k % 7) as f32).collect();
    let grid = ((n as u32).div_ceil(32), (n as u32).div_ceil(8));
    let at = |m: &[f32], r: i32, c: i32| m[(r * n + c) as usize];

    let product = || {
        let (da, db) = (DeviceBuffer::from_slice(&a).unwrap(), DeviceBuffer::from_slice(&b).unwrap());
        let mut dc = DeviceBuffer::<f32>::zeroed((n * n) as usize).unwrap();
        launch!(matmul_rows<<<grid, (32, 8)>>>(n, &da, &db, &mut dc)).unwrap();
        bits(dc.to_vec().unwrap())
    };
    let (fast, vectorised, general) = both(product);
    let mut want = vec![0f32; (n * n) as usize];
    for r in 0..n {
        for c in 0..n {
            let mut sum = 0.0f32;
            for k in 0..n {
                sum += at(&a, r, k) * at(&b, k, c);
            }
            want[(r * n + c) as usize] = sum;
        }
    }
    assert_eq!(fast, bits(want));
    assert_eq!(fast, general);
    if std::env::var_os("EMU_PATH").is_none() {
        assert_eq!(vectorised, (grid.0 * grid.1) as usize);
    }

    let (alpha, beta) = (1.5f32, 0.75f32);
    let gemm = || {
        let (da, db) = (DeviceBuffer::from_slice(&a).unwrap(), DeviceBuffer::from_slice(&b).unwrap());
        let mut dc = DeviceBuffer::from_slice(&c0).unwrap();
        launch!(gemm_rows<<<grid, (32, 8)>>>(n, alpha, beta, &da, &db, &mut dc)).unwrap();
        bits(dc.to_vec().unwrap())
    };
    let (fast, vectorised, general) = both(gemm);
    let mut want = c0.clone();
    for i in 0..n {
        for j in 0..n {
            let w = &mut want[(i * n + j) as usize];
            *w *= beta;
            for k in 0..n {
                *w += alpha * at(&a, i, k) * at(&b, k, j);
            }
        }
    }
    assert_eq!(fast, bits(want));
    assert_eq!(fast, general);
    if std::env::var_os("EMU_PATH").is_none() {
        assert_eq!(vectorised, (grid.0 * grid.1) as usize);
    }
}

#[test]
fn a_store_made_only_in_a_loop_that_may_not_run_keeps_the_element() {
    let a = inputs();
    for passes in [0, 3] {
        let run = || {
            let da = DeviceBuffer::from_slice(&a).unwrap();
            let mut db = DeviceBuffer::<f32>::from_slice(&vec![-1.0; (W * H) as usize]).unwrap();
            launch!(store_in_loop<<<grid(), (32, 8)>>>(passes, &da, &mut db)).unwrap();
            bits(db.to_vec().unwrap())
        };
        let (fast, _, general) = both(run);
        let want: Vec<f32> = a.iter().map(|&v| if passes == 0 { -1.0 } else { v * (passes - 1) as f32 }).collect();
        assert_eq!(fast, bits(want), "{passes} passes");
        assert_eq!(fast, general);
    }
}

/// A loop variable named as the row's own `i`: inside the loop `i` is the pass.
#[kernel]
fn shadowed_names(n: i32, a: &[f32], b: &mut [f32]) {
    let j: i32 = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    let i: i32 = (block_idx().y * block_dim().y + thread_idx().y) as i32;
    if i < H && j < W - 1 {
        let mut s: f32 = a[i * W + j + 1];
        for i in 0..n {
            s += a[i * W + j];
        }
        b[i * W + j] = s;
    }
}

#[test]
fn names_bound_again_in_a_row_keep_their_meaning() {
    let a = inputs();
    let n = 5;
    let run = || {
        let da = DeviceBuffer::from_slice(&a).unwrap();
        let mut db = DeviceBuffer::<f32>::zeroed((W * H) as usize).unwrap();
        launch!(shadowed_names<<<grid(), (32, 8)>>>(n, &da, &mut db)).unwrap();
        bits(db.to_vec().unwrap())
    };
    let (fast, vectorised, general) = both(run);
    if std::env::var_os("EMU_PATH").is_none() {
        assert_eq!(vectorised, 20, "one row-by-row run per block");
    }
    let mut want = vec![0f32; (W * H) as usize];
    for i in 0..H {
        for j in 0..W - 1 {
            let mut s = a[(i * W + j + 1) as usize];
            for p in 0..n {
                s += a[(p * W + j) as usize];
            }
            want[(i * W + j) as usize] = s;
        }
    }
    assert_eq!(fast, bits(want));
    assert_eq!(fast, general);
}

/// Reads of one row whose indices differ by a constant share one copy, a window
/// (`LaneBuf::at`): `a[i * W + j - 1]`, `a[i * W + j]` and `a[i * W + j + 1]` here, and the
/// two reads through `u8`, which look one apart to the macro (it reads casts through). Where
/// `base + j + 1` wraps they are 255 apart: the range proof refuses a cast that wraps, so the
/// kernel then runs lane by lane (the chunk would also check the distance on the values
/// before it used a window).
#[kernel]
fn windows(base: i32, a: &[f32], b: &mut [f32]) {
    let j: i32 = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    let i: i32 = (block_idx().y * block_dim().y + thread_idx().y) as i32;
    if (i > 0) && (j > 0) && (i < H - 1) && (j < W - 1) {
        b[i * W + j] = a[i * W + (j - 1)] + 2.0 * a[i * W + j] - a[i * W + (j + 1)]
            + a[(i - 1) * W + j] * a[(i + 1) * W + j]
            + 3.0 * a[((base + j + 1) as u8) as i32]
            - a[((base + j) as u8) as i32];
    }
}

#[test]
fn reads_a_constant_apart_share_a_window_checked_on_the_values() {
    let a = inputs();
    // `base + j` wraps past 255 in no row (0), and in the first block's rows (225: lanes 1 to
    // 30 read 226 to 255 and 227 to 256, the last of which is element 0 through `u8`).
    for base in [0, 225] {
        let run = || {
            let da = DeviceBuffer::from_slice(&a).unwrap();
            let mut db = DeviceBuffer::<f32>::zeroed((W * H) as usize).unwrap();
            launch!(windows<<<grid(), (32, 8)>>>(base, &da, &mut db)).unwrap();
            bits(db.to_vec().unwrap())
        };
        let (fast, vectorised, general) = both(run);
        let mut want = vec![0f32; (W * H) as usize];
        let at = |k: i32| a[k as usize];
        for i in 1..H - 1 {
            for j in 1..W - 1 {
                want[(i * W + j) as usize] = at(i * W + (j - 1)) + 2.0 * at(i * W + j) - at(i * W + (j + 1))
                    + at((i - 1) * W + j) * at((i + 1) * W + j)
                    + 3.0 * at(((base + j + 1) as u8) as i32)
                    - at(((base + j) as u8) as i32);
            }
        }
        assert_eq!(fast, bits(want), "base {base}");
        assert_eq!(fast, general, "base {base}");
        if std::env::var_os("EMU_PATH").is_none() {
            // One row-by-row run per block, or none where a cast wraps.
            assert_eq!(vectorised, if base == 0 { 20 } else { 0 }, "base {base}");
        }
    }
}
