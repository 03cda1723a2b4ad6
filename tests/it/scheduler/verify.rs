//! `EMU_PATH=verify` (`ExecPath::Verify`): a launch of a kernel with a fast form runs on it and
//! on the general path from the same memory, and a difference fails the launch naming the
//! kernel and the first differing element; `EMU_TIERS_OFF` turns the fast forms' tiers off one
//! at a time.

use crate::kernels::block_sum;
use deviceemu::prelude::*;
use deviceemu::{quietly, with_config, BlockOrder, Checks, Config, ExecPath, Tier};

fn verify() -> Config {
    Config::from_env().unwrap().path(ExecPath::Verify)
}

#[kernel]
pub fn scale(a: f32, x: &[f32], y: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

#[test]
fn agreeing_paths_give_the_general_paths_results() {
    let n = 5000;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    with_config(verify(), || {
        let dx = DeviceBuffer::from_slice(&x).unwrap();
        let mut y = DeviceBuffer::from_slice(&vec![1.0f32; n]).unwrap();
        launch!(scale<<<(n as u32).div_ceil(256), 256>>>(2.0, &dx, &mut y)).unwrap();
        // Once, not twice: the second run started from the memory the first started from.
        assert!(y.to_vec().unwrap().iter().zip(&x).all(|(y, x)| *y == 2.0 * x + 1.0));
        assert_eq!(deviceemu::__private::last_path(), "lanes");
        let mut partial = DeviceBuffer::<f32>::zeroed(20).unwrap();
        launch!(block_sum<<<20, 256>>>(&dx, &mut partial)).unwrap();
        let want: Vec<f32> = x.chunks(256).map(|c| c.iter().sum()).collect::<Vec<_>>();
        let got = partial.to_vec().unwrap();
        assert_eq!(got.len(), want.len());
        assert!(got.iter().zip(&want).all(|(a, b)| (a - b).abs() <= 1e-3 * b.abs().max(1.0)), "{got:?}");
        assert_eq!(deviceemu::__private::last_path(), "regions");
    });
}

#[test]
fn a_fast_form_that_differs_is_reported_with_the_first_differing_element() {
    with_config(verify(), || {
        let x = DeviceBuffer::from_slice(&[1.0f32; 64]).unwrap();
        let mut y = DeviceBuffer::from_slice(&[3.0f32; 64]).unwrap();
        deviceemu::__private::inject_fast_path_fault(true);
        let r = quietly(|| launch!(scale<<<1, 64>>>(2.0, &x, &mut y)));
        deviceemu::__private::inject_fast_path_fault(false);
        let err = r.unwrap_err();
        assert_eq!(err.code(), 999);
        let text = err.to_string();
        assert!(text.contains("kernel `scale`"), "{text}");
        // 5.0 is 0x40a00000; the injected fault flips its lowest byte's low bit.
        assert!(
            text.contains("element 0 of `y` differs: 5.0000005 on the lane-loop form, 5.0 on the general path"),
            "{text}"
        );
        assert!(text.contains("EMU_TIERS_OFF"), "{text}");
        // The general path's results are kept.
        assert_eq!(y.to_vec().unwrap(), vec![5.0; 64]);
        // The next launch works.
        launch!(scale<<<1, 64>>>(2.0, &x, &mut y)).unwrap();
    });
}

#[kernel]
pub fn reads_one_unwritten(buf: &mut [u32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    buf[t] = t as u32;
    if t == 0 {
        out[0] = buf[40]; // nothing writes element 40
    }
}

#[test]
fn findings_are_compared_and_the_checkers_shadows_start_the_same() {
    // initcheck's bits of `buf` are put back between the runs: both find the same read.
    with_config(verify().checks(Checks::all()), || {
        let mut buf = DeviceBuffer::<u32>::uninit(64).unwrap();
        let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
        let err = quietly(|| launch!(reads_one_unwritten<<<1, 32>>>(&mut buf, &mut out))).unwrap_err();
        assert_eq!(err.code(), 719, "{err}");
        assert!(err.to_string().contains("Uninitialized __global__ memory read"), "{err}");
    });
}

#[device_global]
static HITS: [u32; 1] = [0];

#[kernel]
pub fn count_hits(out: &mut [u32]) {
    let hits = HITS.view();
    let t = thread_idx().x as usize;
    out[t] = t as u32;
    hits.atomic_add(0, 1);
}

#[test]
fn device_globals_are_put_back_between_the_runs() {
    with_config(verify(), || {
        deviceemu::copy_to_symbol(&HITS, &[0]).unwrap();
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        launch!(count_hits<<<2, 32>>>(&mut out)).unwrap();
        let mut hits = [0u32; 1];
        deviceemu::copy_from_symbol(&mut hits, &HITS).unwrap();
        assert_eq!(hits, [64], "counted once per thread, not once per run");
        assert_eq!(deviceemu::__private::last_path(), "lanes", "the kernel has a fast form, which verify compared");
    });
}

#[test]
fn tiers_turn_off_one_at_a_time() {
    let base = Config::from_env().unwrap().blocks(BlockOrder::Serial).verbose(true).path(ExecPath::Auto);
    let x: Vec<f32> = (0..4096).map(|i| i as f32).collect();
    let run = |config: Config| {
        with_config(config, || {
            let dx = DeviceBuffer::from_slice(&x).unwrap();
            let mut partial = DeviceBuffer::<f32>::zeroed(16).unwrap();
            launch!(block_sum<<<16, 256>>>(&dx, &mut partial)).unwrap();
            (deviceemu::__private::last_path(), deviceemu::__private::last_vectorised(), partial.to_vec().unwrap())
        })
    };
    let (path, vectorised, want) = run(base.clone());
    assert_eq!(path, "regions");
    assert!(vectorised > 0, "the reduction's regions run vectorised");
    let (path, vectorised, got) = run(base.clone().tier_off(Tier::Vector));
    assert_eq!((path, vectorised), ("regions", 0), "EMU_TIERS_OFF=vector: no vectorised region");
    assert_eq!(got, want);
    let (path, _, got) = run(base.clone().tier_off(Tier::Regions));
    assert_eq!(path, "general");
    assert_eq!(got, want);
    let (path, _, _) = with_config(base.clone().tiers_off(&[Tier::Lanes]), || {
        let dx = DeviceBuffer::from_slice(&x).unwrap();
        let mut y = DeviceBuffer::<f32>::zeroed(4096).unwrap();
        launch!(scale<<<16, 256>>>(1.0, &dx, &mut y)).unwrap();
        (deviceemu::__private::last_path(), 0, ())
    });
    assert_eq!(path, "general");
}

#[test]
fn emu_tiers_off_and_emu_path_values_are_checked() {
    let bad = std::process::Command::new(std::env::current_exe().unwrap())
        .arg(crate::common::test_name(module_path!(), "child_reads_settings"))
        .args(["--exact", "--ignored", "--nocapture"])
        .env("EMU_TIERS_OFF", "vector,loops")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&bad.stdout).into_owned() + &String::from_utf8_lossy(&bad.stderr);
    assert!(text.contains("invalid setting EMU_TIERS_OFF=\"vector,loops\""), "{text}");
    assert!(text.contains("`interleave`"), "the valid names are listed: {text}");
    let good = std::process::Command::new(std::env::current_exe().unwrap())
        .arg(crate::common::test_name(module_path!(), "child_reads_settings"))
        .args(["--exact", "--ignored", "--nocapture"])
        .env("EMU_TIERS_OFF", "vector, ranges")
        .env("EMU_PATH", "verify")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&good.stdout).into_owned() + &String::from_utf8_lossy(&good.stderr);
    assert!(text.contains("SETTINGS Verify false false true"), "{text}");
}

#[test]
#[ignore = "run by emu_tiers_off_and_emu_path_values_are_checked in a child process"]
fn child_reads_settings() {
    match Config::from_env() {
        Ok(c) => println!(
            "SETTINGS {:?} {} {} {}",
            c.get_path(),
            c.get_tier(Tier::Vector),
            c.get_tier(Tier::Ranges),
            c.get_tier(Tier::Turn)
        ),
        Err(e) => println!("{e}"),
    }
}
