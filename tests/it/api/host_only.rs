//! `#[kernel(host_only)]`: a kernel that cannot compile for the GPU (here it uses
//! `std::thread`, which nvptx has not) has no PTX entry, so the other kernels of its file keep
//! theirs; on the emulator it runs as usual; launched with the GPU as the target it fails with
//! an error that names it.

use deviceemu::prelude::*;
use deviceemu::{Config, Target};

/// Writes `i + 1` to `y[i]`, through a thread of the host (what makes it host-only).
#[kernel(host_only)]
fn on_host(y: &mut [u32]) {
    let i = thread_idx().x as usize;
    let v = std::thread::scope(|s| s.spawn(|| i as u32 + 1).join().unwrap());
    y[i] = v;
}

/// `host_only` together with `launch_bounds`.
#[kernel(host_only, launch_bounds(64))]
fn bounded_on_host(y: &mut [u32]) {
    let i = thread_idx().x as usize;
    y[i] = std::hint::black_box(2 * i as u32);
}

/// A kernel of the same file that compiles for the GPU.
#[kernel]
fn everywhere(y: &mut [u32]) {
    let i = thread_idx().x as usize;
    y[i] = 3;
}

#[test]
fn a_host_only_kernel_runs_on_the_emulator() {
    let mut y = DeviceBuffer::<u32>::zeroed(32).unwrap();
    launch!(on_host<<<1, 32>>>(&mut y)).unwrap();
    assert_eq!(y.to_vec().unwrap(), (1..=32).collect::<Vec<u32>>());
    launch!(bounded_on_host<<<1, 32>>>(&mut y)).unwrap();
    assert_eq!(y.to_vec().unwrap(), (0..32).map(|i| 2 * i).collect::<Vec<u32>>());
    launch!(everywhere<<<1, 32>>>(&mut y)).unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![3; 32]);
}

#[test]
fn host_only_keeps_launch_bounds() {
    let mut y = DeviceBuffer::<u32>::zeroed(128).unwrap();
    let e = launch!(bounded_on_host<<<1, 128>>>(&mut y)).unwrap_err();
    assert!(e.to_string().contains("64"), "{e}");
}

#[test]
fn a_host_only_kernel_launched_on_the_gpu_is_a_clear_error() {
    let mut y = DeviceBuffer::<u32>::zeroed(32).unwrap();
    for launch in [
        (|y: &mut DeviceBuffer<u32>| launch!(on_host<<<1, 32>>>(y)))
            as fn(&mut DeviceBuffer<u32>) -> Result<(), deviceemu::Error>,
        |y| launch!(bounded_on_host<<<1, 32>>>(y)),
    ] {
        let e = deviceemu::with_config(Config::default().target(Target::Gpu), || launch(&mut y)).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("host_only") && text.contains("on_host"), "{text}");
    }
    // The same kernels still run on the emulator afterwards.
    launch!(on_host<<<1, 32>>>(&mut y)).unwrap();
}

/// With the `gpu` feature the build script compiles this file for nvptx: the host-only kernels
/// leave no entry, and the file's other kernel has its own.
#[cfg(feature = "gpu")]
#[test]
fn a_host_only_kernel_has_no_ptx_entry() {
    let Some(dir) = option_env!("DEVICEEMU_PTX_DIR") else {
        panic!("the build script built no PTX (set DEVICEEMU_OWN_PTX=1 for a target directory outside the checkout)");
    };
    let ptx = std::fs::read_to_string(std::path::Path::new(dir).join("tests_it_api_host_only_rs.ptx"))
        .expect("the build script wrote the PTX of tests/it/api/host_only.rs");
    assert!(ptx.contains(".entry everywhere"), "{ptx}");
    assert!(!ptx.contains("on_host"), "{ptx}");
}
