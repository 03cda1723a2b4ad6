//! The user-crate fixture (tests/user_crate, whose PTX tests/ptx.rs builds) compiles and runs
//! in the emulator as its author wrote it: `use super::*` in the kernel module, a plain helper
//! and a `#[device]` one, `half` and `libm`, and a kernel that uses `std`.

use deviceemu::prelude::*;
use deviceemu::{Config, Target};

/// Cells per tile side (the fixture's src/lib.rs has the same constant).
pub const TILE: usize = 16;

#[path = "user_crate/src/kernels.rs"]
mod kernels;

#[path = "user_crate/src/ported.rs"]
#[allow(unreachable_pub)] // pub for the fixture crate, whose root exports it
mod ported;

fn emulated<R>(f: impl FnOnce() -> R) -> R {
    // In a `gpu` build these kernels have no PTX: the fixture's own build.rs is not run here.
    deviceemu::with_config(Config::default().target(Target::Emulator), f)
}

#[test]
fn the_fixture_kernels_run_in_the_emulator() {
    emulated(|| {
        let xs: Vec<f32> = (0..40).map(|i| i as f32 * 0.37 - 3.0).collect();
        let x = DeviceBuffer::from_slice(&xs).unwrap();
        let mut y = DeviceBuffer::<f32>::zeroed(xs.len()).unwrap();
        launch!(kernels::box3<<<3, 16>>>(&x, &mut y)).unwrap();
        let got = y.to_vec().unwrap();
        for i in 0..xs.len() {
            let at = |k: i64| xs[(i as i64 + k).clamp(0, xs.len() as i64 - 1) as usize];
            assert_eq!(got[i], (at(-1) + at(0) + at(1)) / 3.0, "box3 at {i}");
        }
        launch!(kernels::to_half_and_back<<<3, 16>>>(&x, &mut y)).unwrap();
        let got = y.to_vec().unwrap();
        assert!(xs.iter().zip(&got).all(|(a, b)| half::f16::from_f32(*a).to_f32() == *b));
        let mut y = DeviceBuffer::from_slice(&vec![1.0f32; xs.len()]).unwrap();
        launch!(kernels::fma_axpy<<<3, 16>>>(0.1, &x, &mut y)).unwrap();
        let got = y.to_vec().unwrap();
        assert!(xs.iter().zip(&got).all(|(a, b)| libm::fmaf(0.1, *a, 1.0) == *b));
        let mut y = DeviceBuffer::<f32>::zeroed(xs.len()).unwrap();
        launch!(kernels::tiled_copy<<<3, 16>>>(&x, &mut y)).unwrap();
        assert_eq!(y.to_vec().unwrap()[15], xs[0]);
        let mut ids = DeviceBuffer::<u32>::zeroed(8).unwrap();
        launch!(kernels::host_thread_ids<<<1, 8>>>(&mut ids)).unwrap();
    });
}

/// The ported module (`use crate::*`, a method in an `impl` block, `f64::exp`) runs in the
/// emulator as written.
#[test]
fn the_ported_kernels_run_in_the_emulator() {
    emulated(|| {
        let mut v = DeviceBuffer::from_slice(&[ported::P { x: 1.0, v: 2.0 }; 5]).unwrap();
        launch!(ported::step<<<1, 32>>>(&mut v, 0.5)).unwrap();
        assert!(v.to_vec().unwrap().iter().all(|p| *p == ported::P { x: 2.0, v: 2.0 }));
        let mut out = DeviceBuffer::<u32>::zeroed(40).unwrap();
        launch!(ported::tile_index<<<2, 32>>>(&mut out)).unwrap();
        assert_eq!(out.to_vec().unwrap()[33], 2);
        let x = DeviceBuffer::from_slice(&[0.0f64, 1.0]).unwrap();
        let mut y = DeviceBuffer::<f64>::zeroed(2).unwrap();
        launch!(ported::std_exp<<<1, 2>>>(&x, &mut y)).unwrap();
        assert_eq!(y.to_vec().unwrap(), [1.0, 1f64.exp()]);
    });
}
