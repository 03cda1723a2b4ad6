//! Place expressions rooted in an element of device memory write through, as CUDA's do:
//! fields (`v[i].x += a`), nested and tuple fields, arrays inside an element, `&mut self`
//! methods, `&mut v[i]` passed to a function, `core::mem::swap` and `replace`, in global
//! memory, shared arrays (1-D and 2-D), `#[device]` helpers, barrier kernels and distributed
//! shared memory.
//!
//! A GPU-against-emulator comparison cannot see a dropped write when both drop it, so each
//! kernel is compared with the same code run on plain Rust slices, on both host paths
//! (`EMU_PATH=auto` and `general`) and with every checker on.

use deviceemu::prelude::*;
use deviceemu::{with_config, Checks, Config, ExecPath, Target};

/// The struct: CUDA's `fA[i].v += ...`.
#[derive(Clone, Copy, Default, Debug, PartialEq)]
#[repr(C)]
pub(crate) struct FourVector {
    /// A field updated in place.
    pub v: f64,
    /// Another.
    pub x: f64,
    /// Another.
    pub y: f64,
    /// Another.
    pub z: f64,
}
// SAFETY: four `f64`s: no padding, and all-zero is a valid value.
unsafe impl DeviceCopy for FourVector {}

/// A struct with an array inside.
#[derive(Clone, Copy, Default, Debug, PartialEq)]
#[repr(C)]
pub(crate) struct Inner {
    /// A scalar field.
    pub a: f32,
    /// An array field.
    pub b: [f32; 3],
}
// SAFETY: four `f32`s: no padding, and all-zero is a valid value.
unsafe impl DeviceCopy for Inner {}

/// A tuple struct.
#[derive(Clone, Copy, Default, Debug, PartialEq)]
#[repr(C)]
pub(crate) struct Pair(pub u32, pub f32);
// SAFETY: a `u32` and an `f32`: no padding, and all-zero is a valid value.
unsafe impl DeviceCopy for Pair {}

/// Nested fields, an array and a tuple struct.
#[derive(Clone, Copy, Default, Debug, PartialEq)]
#[repr(C)]
pub(crate) struct Outer {
    /// A nested struct.
    pub inner: Inner,
    /// An array field.
    pub m: [u32; 4],
    /// A tuple-struct field.
    pub t: Pair,
}
// SAFETY: `Inner` (16 bytes), four `u32`s and a `Pair` (8 bytes), all 4-aligned: no padding,
// and all-zero is a valid value.
unsafe impl DeviceCopy for Outer {}

impl Inner {
    /// Shifts `x` into `b`: a `&mut self` method on a field.
    pub(crate) fn push_bit(&mut self, x: f32) {
        self.b[2] = self.b[1];
        self.b[1] = self.b[0];
        self.b[0] = x;
    }
}

impl Outer {
    /// A `&mut self` method on an element.
    pub(crate) fn bump(&mut self, k: u32) {
        self.m[0] += k;
        self.inner.a += 1.0;
    }
    /// A `&self` method.
    pub(crate) fn total(&self) -> u32 {
        self.m.iter().sum::<u32>() + self.t.0
    }
}

/// A plain function taking `&mut` of a part.
fn halve(x: &mut Inner, s: f32) {
    x.a /= s;
    x.b[2] += s;
}

fn inputs(n: usize) -> Vec<Outer> {
    (0..n)
        .map(|i| Outer {
            inner: Inner { a: i as f32, b: [1.0, 2.0 + i as f32, 3.0] },
            m: [i as u32, 1, 2, 3],
            t: Pair(i as u32 * 3, 0.5 * i as f32),
        })
        .collect()
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

// ---- 1. The example: a field updated in place.

#[kernel]
pub fn accumulate(fv: &mut [FourVector], add: &[f64]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < fv.len() {
        fv[i].v += add[i];
    }
}

fn accumulate_plain(fv: &mut [FourVector], add: &[f64]) {
    for i in 0..fv.len() {
        fv[i].v += add[i];
    }
}

#[test]
fn a_field_updated_in_place_is_written() {
    let n = 300;
    let start: Vec<FourVector> = (0..n).map(|i| FourVector { v: 0.0, x: i as f64, y: 1.0, z: 2.0 }).collect();
    let add: Vec<f64> = (0..n).map(|i| i as f64 * 0.5 + 1.0).collect();
    let mut want = start.clone();
    accumulate_plain(&mut want, &add);
    assert!(want.iter().any(|e| e.v != 0.0));
    everywhere(|what| {
        let mut fv = DeviceBuffer::from_slice(&start).unwrap();
        let a = DeviceBuffer::from_slice(&add).unwrap();
        launch!(accumulate<<<(n as u32).div_ceil(64), 64>>>(&mut fv, &a)).unwrap();
        assert_eq!(fv.to_vec().unwrap(), want, "{what}");
    });
}

// ---- 2. Fields assigned, nested and tuple fields, arrays inside an element.

#[kernel]
pub fn fields(o: &mut [Outer]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < o.len() {
        o[i].inner.a = 2.0 * o[i].inner.a + 1.0;
        o[i].inner.b[1] *= 3.0;
        o[i].m[(i % 4) as i32] += 7;
        o[i].t.0 += i as u32;
        o[i].t.1 -= 0.5;
        (o[i].m)[3] <<= 1;
    }
}

// Written as the kernel is, index by index.
#[allow(clippy::needless_range_loop)]
fn fields_plain(o: &mut [Outer]) {
    for i in 0..o.len() {
        o[i].inner.a = 2.0 * o[i].inner.a + 1.0;
        o[i].inner.b[1] *= 3.0;
        o[i].m[(i % 4) as i32 as usize] += 7;
        o[i].t.0 += i as u32;
        o[i].t.1 -= 0.5;
        (o[i].m)[3] <<= 1;
    }
}

#[test]
fn nested_tuple_and_array_fields_are_written() {
    let n = 200;
    let mut want = inputs(n);
    fields_plain(&mut want);
    everywhere(|what| {
        let mut o = DeviceBuffer::from_slice(&inputs(n)).unwrap();
        launch!(fields<<<4, 64>>>(&mut o)).unwrap();
        assert_eq!(o.to_vec().unwrap(), want, "{what}");
    });
}

// ---- 3. Methods and `&mut` borrows.

#[kernel]
pub fn methods(o: &mut [Outer], totals: &mut [u32], old: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < o.len() {
        o[i].bump(3);
        o[i].inner.push_bit(i as f32);
        totals[i] = o[i].total();
        old[i] = core::mem::replace(&mut o[i].t.0, 99);
        halve(&mut o[i].inner, 2.0);
        let bigger = o[i].m[1].max(o[i].m[2]);
        o[i].m[1] = bigger + o[i].inner.b[0].to_bits() % 5;
    }
}

fn methods_plain(o: &mut [Outer], totals: &mut [u32], old: &mut [u32]) {
    for i in 0..o.len() {
        o[i].bump(3);
        o[i].inner.push_bit(i as f32);
        totals[i] = o[i].total();
        old[i] = core::mem::replace(&mut o[i].t.0, 99);
        halve(&mut o[i].inner, 2.0);
        let bigger = o[i].m[1].max(o[i].m[2]);
        o[i].m[1] = bigger + o[i].inner.b[0].to_bits() % 5;
    }
}

#[test]
fn mut_self_methods_and_mut_borrows_write_through() {
    let n = 130;
    let (mut want, mut wt, mut wo) = (inputs(n), vec![0; n], vec![0; n]);
    methods_plain(&mut want, &mut wt, &mut wo);
    everywhere(|what| {
        let mut o = DeviceBuffer::from_slice(&inputs(n)).unwrap();
        let mut totals = DeviceBuffer::<u32>::zeroed(n).unwrap();
        let mut old = DeviceBuffer::<u32>::zeroed(n).unwrap();
        launch!(methods<<<3, 64>>>(&mut o, &mut totals, &mut old)).unwrap();
        assert_eq!(o.to_vec().unwrap(), want, "{what}");
        assert_eq!(totals.to_vec().unwrap(), wt, "{what}");
        assert_eq!(old.to_vec().unwrap(), wo, "{what}");
    });
}

/// Even threads swap their element with the next one.
#[kernel]
pub fn swaps(o: &mut [Outer]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i % 2 == 0 && i + 1 < o.len() {
        core::mem::swap(&mut o[i], &mut o[i + 1]);
        core::mem::swap(&mut o[i].t, &mut o[i + 1].t);
    }
}

fn swaps_plain(o: &mut [Outer]) {
    for i in 0..o.len() {
        if i % 2 == 0 && i + 1 < o.len() {
            o.swap(i, i + 1);
            let (a, b) = o.split_at_mut(i + 1);
            core::mem::swap(&mut a[i].t, &mut b[0].t);
        }
    }
}

#[test]
fn swap_of_two_elements_writes_both() {
    let n = 99;
    let mut want = inputs(n);
    swaps_plain(&mut want);
    everywhere(|what| {
        let mut o = DeviceBuffer::from_slice(&inputs(n)).unwrap();
        launch!(swaps<<<2, 64>>>(&mut o)).unwrap();
        assert_eq!(o.to_vec().unwrap(), want, "{what}");
    });
}

// ---- 4. `#[device]` helpers.

#[device]
fn scale_fields(v: &mut [FourVector], i: usize, s: f64) {
    v[i].x *= s;
    v[i].y = v[i].x + 1.0;
    v[i].z -= v[i].y;
}

#[kernel]
pub fn through_helper(v: &mut [FourVector]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < v.len() {
        scale_fields(v, i, 3.0);
    }
}

#[test]
fn fields_written_in_a_device_helper() {
    let n = 100;
    let start: Vec<FourVector> = (0..n).map(|i| FourVector { v: 1.0, x: i as f64, y: 0.0, z: 10.0 }).collect();
    let mut want = start.clone();
    for e in &mut want {
        e.x *= 3.0;
        e.y = e.x + 1.0;
        e.z -= e.y;
    }
    everywhere(|what| {
        let mut v = DeviceBuffer::from_slice(&start).unwrap();
        launch!(through_helper<<<2, 64>>>(&mut v)).unwrap();
        assert_eq!(v.to_vec().unwrap(), want, "{what}");
    });
}

// ---- 5. Shared memory: arrays of structs, 2-D arrays of structs, a barrier kernel.

#[kernel]
pub fn shared_parts(out: &mut [f32]) {
    let tile = shared_array![Inner; 64];
    let grid2 = shared_array![[Pair; 8]; 8];
    let t = thread_idx().x as usize;
    tile[t] = Inner::default();
    tile[t].a = t as f32;
    tile[t].b[0] = 1.0;
    tile[t].b[1] = 2.0;
    tile[t].b[2] = 3.0;
    tile[t].b[t % 3] += 10.0;
    grid2[t / 8][t % 8] = Pair(0, 0.0);
    grid2[t / 8][t % 8].0 = t as u32;
    grid2[t / 8][t % 8].1 += 0.25;
    tile[t].push_bit(5.0);
    sync_threads();
    let n = (t + 1) % 64;
    out[block_idx().x as usize * 64 + t] =
        tile[n].a + tile[n].b[0] * 2.0 + tile[n].b[2] + grid2[n / 8][n % 8].1 + grid2[n / 8][n % 8].0 as f32;
}

fn shared_parts_plain(out: &mut [f32], blocks: usize) {
    for b in 0..blocks {
        let mut tile = [Inner::default(); 64];
        let mut grid2 = [[Pair::default(); 8]; 8];
        for t in 0..64 {
            tile[t] = Inner::default();
            tile[t].a = t as f32;
            tile[t].b[0] = 1.0;
            tile[t].b[1] = 2.0;
            tile[t].b[2] = 3.0;
            tile[t].b[t % 3] += 10.0;
            grid2[t / 8][t % 8] = Pair(0, 0.0);
            grid2[t / 8][t % 8].0 = t as u32;
            grid2[t / 8][t % 8].1 += 0.25;
            tile[t].push_bit(5.0);
        }
        for t in 0..64 {
            let n = (t + 1) % 64;
            out[b * 64 + t] =
                tile[n].a + tile[n].b[0] * 2.0 + tile[n].b[2] + grid2[n / 8][n % 8].1 + grid2[n / 8][n % 8].0 as f32;
        }
    }
}

#[test]
fn parts_of_shared_elements_are_written_across_a_barrier() {
    let mut want = vec![0.0; 3 * 64];
    shared_parts_plain(&mut want, 3);
    everywhere(|what| {
        let mut out = DeviceBuffer::<f32>::zeroed(3 * 64).unwrap();
        launch!(shared_parts<<<3, 64>>>(&mut out)).unwrap();
        assert_eq!(out.to_vec().unwrap(), want, "{what}");
    });
}

/// A 2-D shared histogram: atomics on a row of a 2-D shared array (`t[r].atomic_add(c, 1)`).
#[kernel]
pub fn row_atomics(data: &[u32], hist: &mut [u32]) {
    let bins = shared_array![[u32; 8]; 4];
    let t = thread_idx().x as usize;
    if t < 32 {
        bins[t / 8][t % 8] = 0;
    }
    sync_threads();
    let i = block_idx().x as usize * block_dim().x as usize + t;
    if i < data.len() {
        let d = data[i] as usize % 32;
        bins[d / 8].atomic_add(d % 8, 1);
    }
    sync_threads();
    if t < 32 {
        hist.atomic_add(t, bins[t / 8][t % 8]);
    }
}

#[test]
fn atomics_on_a_row_of_a_shared_2d_array() {
    let data: Vec<u32> = (0..1000u32).map(|i| i.wrapping_mul(2654435761) >> 7).collect();
    let mut want = vec![0u32; 32];
    for d in &data {
        want[*d as usize % 32] += 1;
    }
    everywhere(|what| {
        let dd = DeviceBuffer::from_slice(&data).unwrap();
        let mut hist = DeviceBuffer::<u32>::zeroed(32).unwrap();
        launch!(row_atomics<<<8, 128>>>(&dd, &mut hist)).unwrap();
        assert_eq!(hist.to_vec().unwrap(), want, "{what}");
    });
}

// ---- 6. Distributed shared memory: a field of a struct in the neighbour block's array.

#[kernel(cluster(2, 1, 1))]
pub fn dsmem_fields(out: &mut [f32]) {
    let cluster = this_cluster();
    let mine = shared_array![Inner; 32];
    let t = thread_idx().x as usize;
    mine[t] = Inner { a: 0.0, b: [0.0; 3] };
    cluster.sync();
    let theirs = cluster.map_shared_rank(&mine, cluster.block_rank() ^ 1);
    theirs[t].b[1] = (block_idx().x * 100) as f32 + t as f32;
    theirs[t].a += 1.0;
    cluster.sync();
    out[block_idx().x as usize * 32 + t] = mine[t].b[1] + mine[t].a;
}

#[test]
fn fields_written_through_distributed_shared_memory() {
    let want: Vec<f32> =
        (0..4usize).flat_map(|b| (0..32usize).map(move |t| ((b ^ 1) * 100 + t) as f32 + 1.0)).collect();
    everywhere(|what| {
        let mut out = DeviceBuffer::<f32>::zeroed(4 * 32).unwrap();
        launch!(dsmem_fields<<<4, 32>>>(&mut out)).unwrap();
        assert_eq!(out.to_vec().unwrap(), want, "{what}");
    });
}

// ---- 7. What the checkers see: the bytes of the part.

/// Thread 0 writes field `x` of element 0, thread 1 reads field `y` of the same element, with
/// no barrier between: different bytes, no race (racecheck reported one when a part's access
/// was a whole element's).
#[kernel]
pub fn disjoint_fields(v: &mut [FourVector], out: &mut [f64]) {
    let t = thread_idx().x as usize;
    if t == 0 {
        v[0].x = 5.0;
    } else if t == 1 {
        out[0] = v[0].y;
    }
}

/// The same, but both threads touch field `x`: a race.
#[kernel]
pub fn same_field(v: &mut [FourVector], out: &mut [f64]) {
    let t = thread_idx().x as usize;
    if t == 0 {
        v[0].x = 5.0;
    } else if t == 1 {
        out[0] = v[0].x;
    }
}

#[test]
fn racecheck_sees_the_bytes_of_a_part() {
    // The emulator's checkers (on a GPU, `EMU_TARGET=gpu`, these kernels run unchecked).
    let racecheck =
        Config::from_env().unwrap().target(Target::Emulator).checks(Checks { racecheck: true, ..Checks::none() });
    with_config(racecheck.clone(), || {
        let mut v = DeviceBuffer::from_slice(&[FourVector::default(); 2]).unwrap();
        let mut out = DeviceBuffer::<f64>::zeroed(1).unwrap();
        launch!(disjoint_fields<<<1, 32>>>(&mut v, &mut out)).unwrap();
        assert_eq!(v.to_vec().unwrap()[0].x, 5.0);
    });
    with_config(racecheck, || {
        let mut v = DeviceBuffer::from_slice(&[FourVector::default(); 2]).unwrap();
        let mut out = DeviceBuffer::<f64>::zeroed(1).unwrap();
        let err = deviceemu::quietly(|| launch!(same_field<<<1, 32>>>(&mut v, &mut out))).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("Race reported between Write access"), "{text}");
        assert!(text.contains("place_exprs.rs"), "{text}");
    });
}

/// Reads field `y` of an element of which only field `x` was written.
#[kernel]
pub fn reads_unwritten_field(v: &mut [FourVector], out: &mut [f64]) {
    let t = thread_idx().x as usize;
    if t == 0 {
        v[0].x = 1.0;
        out[0] = v[0].x;
        out[1] = v[0].y;
    }
}

#[test]
fn initcheck_sees_the_bytes_of_a_part() {
    let initcheck =
        Config::from_env().unwrap().target(Target::Emulator).checks(Checks { initcheck: true, ..Checks::none() });
    with_config(initcheck, || {
        let mut v = DeviceBuffer::<FourVector>::uninit(1).unwrap();
        let mut out = DeviceBuffer::<f64>::zeroed(2).unwrap();
        let err = deviceemu::quietly(|| launch!(reads_unwritten_field<<<1, 32>>>(&mut v, &mut out))).unwrap_err();
        let text = err.to_string();
        // One finding: the read of `y` (8 bytes); the read of `x` after its write is fine.
        assert!(text.contains("Uninitialized __global__ memory read of size 8 bytes"), "{text}");
        assert!(text.contains("ERROR SUMMARY: 1 error"), "{text}");
    });
}

/// An element index out of bounds in a part's store is reported as a write of the part's size.
#[kernel]
pub fn field_out_of_bounds(v: &mut [FourVector]) {
    let t = thread_idx().x as usize;
    v[t + 1].y = 1.0;
}

#[test]
fn a_part_out_of_bounds_is_reported_with_its_size() {
    // The emulator's report (a GPU's bounds trap is error 719, without one).
    let emulator = Config::from_env().unwrap().target(Target::Emulator);
    let mut v = DeviceBuffer::from_slice(&[FourVector::default(); 4]).unwrap();
    let err =
        with_config(emulator, || deviceemu::quietly(|| launch!(field_out_of_bounds<<<1, 4>>>(&mut v)))).unwrap_err();
    assert_eq!(err.code(), 700);
    let text = err.to_string();
    assert!(text.contains("Invalid __global__ write of size 8 bytes"), "{text}");
    assert!(text.contains("by thread (3,0,0) in block (0,0,0)"), "{text}");
}
