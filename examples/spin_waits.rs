//! Spin-waits, one variant per run, timed: `cargo run --release --example spin_waits -- V BLOCKS [emu]`
//! with V = 0 (thread 0 spins on a shared flag that thread 7 of its warp sets), 1 (thread 200,
//! another warp, sets it) or 2 (decoupled look-back: block b waits for block b - 1's prefix).
//! Without `emu` it runs where `EMU_TARGET` says (the GPU with the `gpu` feature and a device).
use deviceemu::prelude::*;
use deviceemu::{with_config, Target};

#[kernel]
pub fn shared_spin(setter: u32, out: &mut [u32]) {
    let mut flag = shared_array![u32; 1];
    let t = thread_idx().x;
    if t == 0 {
        flag[0] = 0;
    }
    sync_threads();
    if t == setter {
        flag.atomic_exch(0, 1000 + t);
    }
    if t == 0 {
        let mut seen = flag.atomic_or(0, 0);
        while seen == 0 {
            seen = flag.atomic_or(0, 0);
        }
        out[block_idx().x as usize] = seen;
    }
}

#[kernel]
pub fn lookback(flags: &mut [u32], out: &mut [u32]) {
    let b = block_idx().x as usize;
    if thread_idx().x == 0 {
        let prefix = if b == 0 {
            0
        } else {
            let mut v = flags.atomic_or(b - 1, 0);
            while v == 0 {
                v = flags.atomic_or(b - 1, 0);
            }
            v
        };
        out[b] = prefix;
        thread_fence();
        flags.atomic_exch(b, prefix + 1);
    }
}

fn main() {
    let arg = |k: usize, default: &str| std::env::args().nth(k).unwrap_or_else(|| default.to_owned());
    let which: u32 = arg(1, "2").parse().expect("variant: 0, 1 or 2");
    let blocks: usize = arg(2, "4096").parse().expect("a number of blocks");
    let mut config = deviceemu::Config::from_env().expect("valid EMU_* settings");
    if arg(3, "") == "emu" {
        config = config.target(Target::Emulator);
    }
    with_config(config, || {
        let t = std::time::Instant::now();
        let mut flags = DeviceBuffer::<u32>::zeroed(blocks).unwrap();
        let mut out = DeviceBuffer::<u32>::zeroed(blocks).unwrap();
        match which {
            0 => launch!(shared_spin<<<blocks as u32, 256>>>(7, &mut out)).unwrap(),
            1 => launch!(shared_spin<<<blocks as u32, 256>>>(200, &mut out)).unwrap(),
            _ => launch!(lookback<<<blocks as u32, 256>>>(&mut flags, &mut out)).unwrap(),
        }
        let v = out.to_vec().unwrap();
        let want = |b: usize| match which {
            0 => 1007,
            1 => 1200,
            _ => b as u32,
        };
        assert!(v.iter().enumerate().all(|(b, &x)| x == want(b)), "wrong results: {v:?}");
        println!("variant {which}, {blocks} blocks: {:?}; first {:?}, last {:?}", t.elapsed(), &v[..3], v[v.len() - 1]);
    });
}
