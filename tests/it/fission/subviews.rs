//! Sub-views inside kernels (issue 30, item 2): CUDA's pointer arithmetic, `&v[first]` handed
//! to a device function or `const float* row = v + r * w;`, written `&v[a..b]`, `&v[a..]` or
//! `v.slice(a..b)` on global and shared views. Each kernel is compared with the same code on
//! plain Rust slices, on both host paths and with every checker on; a bad range and an access
//! past a sub-view's end are reported, and the checkers see a sub-view's accesses as accesses
//! of the whole array (a race through two overlapping sub-views, an uninitialised read).

use crate::common::{assert_has, marked_line};
use deviceemu::prelude::*;
use deviceemu::{with_config, Checks, Config, ExecPath};

/// The line of `marker` in this file.
fn line_of(marker: &str) -> String {
    format!("tests/it/fission/subviews.rs:{}", marked_line(include_str!("subviews.rs"), marker))
}

/// Runs `f` on the fast path and on the general path, each with no optional checker and with
/// every checker.
fn everywhere(mut f: impl FnMut(&str)) {
    for path in [ExecPath::Auto, ExecPath::General] {
        for checks in [Checks::none(), Checks::all()] {
            let what = format!("path {path:?}, checks {checks:?}");
            with_config(Config::from_env().unwrap().path(path).checks(checks), || f(&what));
        }
    }
}

// ---- `&v[first..]` handed to a device function (CUDA: `sum_run(&v[r * w], w)`).

/// `__device__ float sum_run(const float* p, int n)`.
#[device]
fn sum_run(p: Global<f32>, n: usize) -> f32 {
    let mut s = 0.0;
    for j in 0..n {
        s += p[j];
    }
    s
}

#[kernel]
pub fn row_sums(v: &[f32], out: &mut [f32], w: u32) {
    let r = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let w = w as usize;
    if r < out.len() {
        out[r] = sum_run(&v[r * w..], w);
    }
}

fn row_sums_plain(v: &[f32], out: &mut [f32], w: usize) {
    for r in 0..out.len() {
        let p = &v[r * w..];
        out[r] = (0..w).fold(0.0, |s, j| s + p[j]);
    }
}

#[test]
fn a_sub_view_passed_to_a_device_function_reads_from_its_start() {
    let (rows, w) = (100usize, 7usize);
    let v: Vec<f32> = (0..rows * w).map(|i| (i % 13) as f32 * 0.25 + 1.0).collect();
    let mut want = vec![0.0; rows];
    row_sums_plain(&v, &mut want, w);
    let dv = DeviceBuffer::from_slice(&v).unwrap();
    everywhere(|what| {
        let mut out = DeviceBuffer::<f32>::zeroed(rows).unwrap();
        launch!(row_sums<<<4, 32>>>(&dv, &mut out, w as u32)).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(out.to_vec().unwrap(), want, "{what}");
    });
}

// ---- Writes through a sub-view of a writable view, all range forms, several index types.

#[kernel]
pub fn fill_parts(out: &mut [u32], cut: i32) {
    let t = thread_idx().x as usize;
    let head = &mut out[..cut];
    let tail = out.slice(cut as u32..);
    let middle = &out[2..=5];
    let all = out.slice(..);
    if t < head.len() {
        head[t] = 100 + t as u32;
    }
    if t < tail.len() {
        tail[t] += 200 + t as u32;
    }
    if t == 0 {
        // Thread 0 wrote `head[0]`, the same element: no other thread touches it.
        all[0] += middle.len() as u32 * 1000 + all.len() as u32;
    }
}

fn fill_parts_plain(out: &mut [u32], cut: usize) {
    let middle_len = out[2..=5].len() as u32;
    let (head, tail) = out.split_at_mut(cut);
    for (t, h) in head.iter_mut().enumerate() {
        *h = 100 + t as u32;
    }
    for (t, x) in tail.iter_mut().enumerate() {
        *x += 200 + t as u32;
    }
    out[0] += middle_len * 1000 + out.len() as u32;
}

#[test]
fn writes_through_sub_views_reach_the_buffer() {
    let n = 40;
    let start: Vec<u32> = (0..n as u32).collect();
    let mut want = start.clone();
    fill_parts_plain(&mut want, 12);
    everywhere(|what| {
        let mut out = DeviceBuffer::from_slice(&start).unwrap();
        launch!(fill_parts<<<1, 64>>>(&mut out, 12)).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(out.to_vec().unwrap(), want, "{what}");
    });
}

// ---- Shared memory: a sub-view of a tile across barriers (the fast path's regions too).

#[kernel]
pub fn halves(x: &[f32], out: &mut [f32]) {
    let tile = shared_array![f32; 256];
    let t = thread_idx().x as usize;
    let base = block_idx().x as usize * 256;
    tile[t] = x[base + t];
    sync_threads();
    let upper = &tile[128..];
    if t < 128 {
        tile[t] += upper[t];
    }
    sync_threads();
    let quarter = tile.slice(64..128);
    if t < 64 {
        out[block_idx().x as usize * 64 + t] = tile[t] + quarter[t];
    }
}

fn halves_plain(x: &[f32], out: &mut [f32]) {
    for (b, (xs, o)) in x.chunks(256).zip(out.chunks_mut(64)).enumerate() {
        let _ = b;
        let mut tile = [0.0f32; 256];
        tile.copy_from_slice(xs);
        for t in 0..128 {
            tile[t] += tile[128 + t];
        }
        for t in 0..64 {
            o[t] = tile[t] + tile[64 + t];
        }
    }
}

#[test]
fn a_sub_view_of_shared_memory_reads_the_tile_across_barriers() {
    let blocks = 6;
    let x: Vec<f32> = (0..blocks * 256).map(|i| (i % 29) as f32 * 0.5).collect();
    let mut want = vec![0.0; blocks * 64];
    halves_plain(&x, &mut want);
    let dx = DeviceBuffer::from_slice(&x).unwrap();
    everywhere(|what| {
        let mut out = DeviceBuffer::<f32>::zeroed(blocks * 64).unwrap();
        launch!(halves<<<blocks as u32, 256>>>(&dx, &mut out)).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(out.to_vec().unwrap(), want, "{what}");
    });
}

// ---- Bugs: a range past the end, an access past a sub-view's end.

#[kernel]
pub fn bad_range(v: &[f32], out: &mut [f32], first: u32) {
    let t = thread_idx().x as usize;
    let p = &v[first as usize..first as usize + 8]; // BAD RANGE
    if t < p.len() {
        out[t] = p[t];
    }
}

#[test]
fn a_range_past_the_end_is_reported_where_the_sub_view_is_made() {
    let v = DeviceBuffer::from_slice(&[1.0f32; 16]).unwrap();
    let mut out = DeviceBuffer::<f32>::zeroed(8).unwrap();
    // In range: no report.
    launch!(bad_range<<<1, 8>>>(&v, &mut out, 8)).unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![1.0; 8]);
    for path in [ExecPath::Auto, ExecPath::General] {
        let err =
            with_config(Config::from_env().unwrap().path(path), || launch!(bad_range<<<1, 8>>>(&v, &mut out, 12)))
                .unwrap_err();
        assert_eq!(err.code(), 700, "{path:?}: {err}");
        let text = err.to_string();
        assert_has(&text, "Invalid __global__ read of size 4 bytes");
        assert_has(&text, &line_of("// BAD RANGE"));
        assert_has(&text, "in block (0,0,0)");
    }
}

#[kernel]
pub fn past_the_sub_view(v: &[f32], out: &mut [f32], reach: u32) {
    let t = thread_idx().x as usize;
    let p = v.slice(4..8);
    if t < reach as usize {
        out[t] = p[t]; // PAST THE SUB-VIEW
    }
}

#[test]
fn an_access_past_a_sub_views_end_is_reported_though_the_buffer_goes_on() {
    let v = DeviceBuffer::from_slice(&[2.0f32; 16]).unwrap();
    let mut out = DeviceBuffer::<f32>::zeroed(8).unwrap();
    launch!(past_the_sub_view<<<1, 8>>>(&v, &mut out, 4)).unwrap();
    for path in [ExecPath::Auto, ExecPath::General] {
        let err = with_config(
            Config::from_env().unwrap().path(path),
            || launch!(past_the_sub_view<<<1, 8>>>(&v, &mut out, 5)),
        )
        .unwrap_err();
        assert_eq!(err.code(), 700, "{path:?}: {err}");
        let text = err.to_string();
        assert_has(&text, "Invalid __global__ read of size 4 bytes");
        assert_has(&text, &line_of("// PAST THE SUB-VIEW"));
        assert_has(&text, "by thread (4,0,0)");
    }
}

// ---- The checkers see through sub-views.

/// Thread `t` writes `tile[t + 1]` through a sub-view and reads `tile[t]` directly: without
/// the barrier, thread `t`'s read and thread `t - 1`'s write are a race.
#[kernel]
pub fn shifted(out: &mut [u32], sync: bool) {
    let tile = shared_array![u32; 65];
    let t = thread_idx().x as usize;
    tile[t] = 0;
    if sync {
        sync_threads();
    }
    let after = &tile[1..];
    after[t] = t as u32 + 1; // SHIFTED WRITE
    if sync {
        sync_threads();
    }
    out[t] = tile[t]; // SHIFTED READ
}

#[test]
fn racecheck_sees_a_race_through_a_sub_view() {
    let checked = Config::from_env().unwrap().checks(Checks { racecheck: true, ..Checks::default() });
    let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
    with_config(checked.clone(), || launch!(shifted<<<1, 64>>>(&mut out, true))).unwrap();
    let want: Vec<u32> = (0..64).collect();
    assert_eq!(out.to_vec().unwrap(), want);
    let err = with_config(checked, || launch!(shifted<<<1, 64>>>(&mut out, false))).unwrap_err();
    let text = err.to_string();
    assert_has(&text, "Race reported between");
    assert_has(&text, &line_of("// SHIFTED WRITE"));
    assert_has(&text, "on `tile[");
}

/// Reads element `t` of a sub-view whose first half nobody wrote.
#[kernel]
pub fn half_written(out: &mut [u32], all: bool) {
    let tile = shared_array![u32; 64];
    let t = thread_idx().x as usize;
    if all || t >= 32 {
        tile[t] = t as u32;
    }
    sync_threads();
    let part = &tile[16..];
    if t < 48 {
        out[t] = part[t]; // HALF READ
    }
}

#[test]
fn initcheck_sees_an_uninitialised_read_through_a_sub_view() {
    let checked = Config::from_env().unwrap().checks(Checks { initcheck: true, ..Checks::default() });
    let mut out = DeviceBuffer::<u32>::zeroed(48).unwrap();
    with_config(checked.clone(), || launch!(half_written<<<1, 64>>>(&mut out, true))).unwrap();
    assert_eq!(out.to_vec().unwrap(), (16..64).collect::<Vec<u32>>());
    let err = with_config(checked, || launch!(half_written<<<1, 64>>>(&mut out, false))).unwrap_err();
    let text = err.to_string();
    assert_has(&text, "Uninitialized __shared__ memory read of size 4 bytes");
    assert_has(&text, &line_of("// HALF READ"));
}
