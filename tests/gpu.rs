//! Tests that need the `gpu` feature. Those that need an NVIDIA GPU say so and return when
//! there is none (they never pass silently); the others check what happens without one.
#![cfg(feature = "gpu")]

use deviceemu::prelude::*;
use deviceemu::{Config, Target};

#[kernel]
fn scale(a: f32, x: &[f32], y: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        y[i] = a * x[i];
    }
}

fn on<R>(t: Target, f: impl FnOnce() -> R) -> R {
    deviceemu::with_config(Config::default().target(t), f)
}

#[test]
fn same_bits_on_the_gpu_and_in_the_emulator() {
    if !deviceemu::gpu::available() {
        skipped("gpu", "no CUDA device or driver; `same_bits_on_the_gpu_and_in_the_emulator` did not run");
        return;
    }
    let x: Vec<f32> = (0..10_000).map(|i| (i as f32).sin()).collect();
    let run = |t| {
        on(t, || {
            let xb = DeviceBuffer::from_slice(&x).unwrap();
            let mut yb = DeviceBuffer::<f32>::zeroed(x.len()).unwrap();
            launch!(scale<<<(x.len() as u32).div_ceil(128), 128>>>(1.7, &xb, &mut yb)).unwrap();
            assert_eq!(yb.is_on_gpu(), t == Target::Gpu);
            yb.to_vec().unwrap()
        })
    };
    let (g, e) = (run(Target::Gpu), run(Target::Emulator));
    assert!(g.iter().zip(&e).all(|(a, b)| a.to_bits() == b.to_bits()));
}

#[test]
fn without_a_gpu_buffers_and_launches_fail_with_code_100() {
    if deviceemu::gpu::available() {
        skipped("no-gpu", "a GPU is present; the no-GPU error path did not run");
        return;
    }
    let e = on(Target::Gpu, || DeviceBuffer::<f32>::zeroed(16)).unwrap_err();
    assert_eq!(e.code(), 100, "{e}");
    assert!(e.to_string().contains("EMU_TARGET=emulator"), "{e}");
    // The emulator still works in a `gpu` build.
    on(Target::Emulator, || {
        let x = DeviceBuffer::from_slice(&[1.0f32; 8]).unwrap();
        let mut y = DeviceBuffer::<f32>::zeroed(8).unwrap();
        launch!(scale<<<1, 8>>>(2.0, &x, &mut y)).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![2.0; 8]);
    });
}

/// `EMU_TARGET=auto`, the default: without a GPU a `gpu` build emulates (before, every launch
/// failed with 100), with one it runs on the GPU.
#[test]
fn the_default_target_is_the_gpu_when_there_is_one_else_the_emulator() {
    let x = DeviceBuffer::from_slice(&[1.0f32; 8]).unwrap();
    let mut y = DeviceBuffer::<f32>::zeroed(8).unwrap();
    launch!(scale<<<1, 8>>>(2.0, &x, &mut y)).unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![2.0; 8]);
    assert_eq!(y.is_on_gpu(), deviceemu::gpu::available());
    let want = if deviceemu::gpu::available() { Target::Gpu } else { Target::Emulator };
    assert_eq!(Config::default().get_target(), want);
}

/// Re-run by [`the_no_gpu_notice_names_what_the_setting_chose`] with `EMU_TARGET` set: makes a
/// buffer and launches under the environment's settings, then says how it went.
#[test]
fn notice_child_process_helper() {
    if std::env::var_os(NOTICE_CHILD).is_none() {
        return;
    }
    let r = DeviceBuffer::from_slice(&[1.0f32; 8]).and_then(|x| {
        let mut y = DeviceBuffer::<f32>::zeroed(8)?;
        launch!(scale<<<1, 8>>>(2.0, &x, &mut y))
    });
    println!("NOTICE-CHILD {}", r.map_or_else(|e| format!("code={}", e.code()), |()| "ok".into()));
}

const NOTICE_CHILD: &str = "DEVICEEMU_NOTICE_TEST_CHILD";

/// Without a GPU, the notice that kernels run in the emulator is printed for `EMU_TARGET=auto`
/// (and unset), which chose the emulator; not for `EMU_TARGET=gpu`, whose launch fails with 100
/// (it used to print the `auto` notice before the setting was read), nor for `emulator`.
#[test]
fn the_no_gpu_notice_names_what_the_setting_chose() {
    if deviceemu::gpu::available() {
        skipped("no-gpu", "a GPU is present; the no-GPU notice did not run");
        return;
    }
    let notice = "deviceemu: no CUDA driver or device found; kernels run in the emulator (EMU_TARGET=auto)";
    for (target, want_notice, want_result) in [
        (None, true, "ok"),
        (Some("auto"), true, "ok"),
        (Some("gpu"), false, "code=100"),
        (Some("emulator"), false, "ok"),
    ] {
        let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
        cmd.args(["notice_child_process_helper", "--exact", "--nocapture", "--test-threads=1"]).env(NOTICE_CHILD, "1");
        match target {
            Some(t) => cmd.env("EMU_TARGET", t),
            None => cmd.env_remove("EMU_TARGET"),
        };
        let out = cmd.output().expect("the test binary runs");
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(
            stdout.contains(&format!("NOTICE-CHILD {want_result}")),
            "EMU_TARGET={target:?}: stdout:\n{stdout}\nstderr:\n{stderr}"
        );
        assert_eq!(
            stderr.matches(notice).count(),
            usize::from(want_notice),
            "EMU_TARGET={target:?}: stderr:\n{stderr}"
        );
    }
}

#[test]
fn an_emulator_buffer_in_a_gpu_launch_is_a_clear_error() {
    let x = on(Target::Emulator, || DeviceBuffer::from_slice(&[1.0f32; 8]).unwrap());
    let mut y = on(Target::Emulator, || DeviceBuffer::<f32>::zeroed(8).unwrap());
    let e = on(Target::Gpu, || launch!(scale<<<1, 8>>>(2.0, &x, &mut y))).unwrap_err();
    if deviceemu::gpu::available() {
        assert_eq!(e.code(), 1, "{e}");
        assert!(e.to_string().contains("emulator memory"), "{e}");
    } else {
        assert_eq!(e.code(), 100, "{e}");
    }
}

/// Says that a test did not run, on the real stderr (libtest captures `println!`), or fails it
/// when `DEVICEEMU_REQUIRE` (a comma list such as `gdb,lldb,ptxas`, set by `.ci/run`) names
/// `what`: there a skip must not pass.
fn skipped(what: &str, why: &str) {
    use std::io::Write as _;
    let required = std::env::var("DEVICEEMU_REQUIRE").unwrap_or_default();
    if required.split(',').any(|r| r.trim() == what) {
        panic!("DEVICEEMU_REQUIRE={required} names {what}, but {why}");
    }
    let _ = writeln!(std::io::stderr(), "SKIPPED: {why}");
}
