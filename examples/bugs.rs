//! A tour of the bugs deviceemu finds: each kernel below has one (or none, where it says so).
//! Every launch prints its report on stderr, and this program prints each launch's error code.
//!
//! `cargo run --example bugs`
use deviceemu::prelude::*;

#[kernel]
fn oob(x: &[f32], y: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    y[i] = x[i] * 2.0;
}

#[kernel]
fn skip(out: &mut [u32]) {
    let tid = thread_idx().x as usize;
    if tid < 50 {
        sync_threads();
    }
    out[tid] = 1;
}

/// Not a bug: threads that return before a barrier count as arrived.
#[kernel]
fn early(out: &mut [u32], cut: u32) {
    let tid = thread_idx().x;
    if tid >= cut {
        return;
    }
    let mut t = shared_array![u32; 64];
    t[tid as usize] = tid;
    sync_threads();
    out[tid as usize] = t[(cut - 1 - tid) as usize];
}

#[kernel]
fn brk(out: &mut [f32]) {
    let mut tile = shared_array![f32; 64];
    let tid = thread_idx().x as usize;
    tile[tid] = 1.0;
    sync_threads();
    let mut s = 32;
    while s > 0 {
        if tid >= s {
            break;
        }
        tile[tid] += tile[tid + s];
        sync_threads();
        s /= 2;
    }
    if tid == 0 {
        out[0] = tile[0];
    }
}

#[kernel]
fn deadlock(out: &mut [u32]) {
    let tid = thread_idx().x as usize;
    if tid % 2 == 0 {
        sync_threads();
    } else {
        sync_threads();
    }
    out[tid] = 1;
}

#[kernel]
fn panicky(out: &mut [u32]) {
    let tid = thread_idx().x as usize;
    let v: Option<u32> = if tid == 5 { None } else { Some(1) };
    out[tid] = v.unwrap();
}

#[device]
fn recurse(n: u64) -> u64 {
    let a = [n; 64];
    if n == 0 {
        0
    } else {
        core::hint::black_box(a)[3] + recurse(n - 1)
    }
}

#[kernel]
fn overflow(out: &mut [u64]) {
    let tid = thread_idx().x as usize;
    out[tid] = recurse(1_000_000);
}

#[kernel]
fn shared_oob(out: &mut [f32]) {
    let mut t = shared_array![[f32; 4]; 4];
    let tid = thread_idx().x as usize;
    t[tid / 4][tid % 4 + 1] = 1.0;
    sync_threads();
    out[tid] = t[0][0];
}

/// Reads an element nothing wrote (with `EMU_CHECK=initcheck`).
#[kernel]
fn uninit_read(x: &[f32], y: &mut [f32]) {
    let i = thread_idx().x as usize;
    y[i] = x[i + 1];
}

/// A tree reduction that forgot its barrier (a race, with `EMU_CHECK=racecheck`).
#[kernel]
fn racy_tree(out: &mut [u32]) {
    let tile = shared_array![u32; 64];
    let tid = thread_idx().x as usize;
    tile[tid] = tid as u32;
    sync_threads();
    let mut s = 32;
    while s > 0 {
        if tid < s {
            tile[tid] += tile[tid + s];
        }
        s /= 2;
    }
    if tid == 0 {
        out[0] = tile[0];
    }
}

/// Thread 0 spins on a flag nothing sets while the others wait at the barrier after it (the
/// watchdog stops it: error 702).
#[kernel]
fn unreleased(flag: &mut [u32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    if t == 0 {
        while flag.atomic_or(0, 0) == 0 {}
    }
    sync_threads();
    out[t] = 1;
}

fn main() {
    let x = DeviceBuffer::from_slice(&vec![1.0f32; 1000]).unwrap();
    let mut y = DeviceBuffer::<f32>::zeroed(1000).unwrap();
    let e = launch!(oob<<<4, 256>>>(&x, &mut y)).unwrap_err();
    println!("oob -> {}", e.code());
    let mut o = DeviceBuffer::<u32>::zeroed(64).unwrap();
    let e = launch!(skip<<<1, 64>>>(&mut o)).unwrap_err();
    println!("skip -> {}", e.code());
    let r = launch!(early<<<1, 64>>>(&mut o, 50));
    println!("early -> {:?} {:?}", r.is_ok(), &o.to_vec().unwrap()[..5]);
    let mut f = DeviceBuffer::<f32>::zeroed(1).unwrap();
    let e = launch!(brk<<<1, 64>>>(&mut f)).unwrap_err();
    println!("brk -> {}", e.code());
    let e = launch!(deadlock<<<1, 64>>>(&mut o)).unwrap_err();
    println!("deadlock -> {}", e.code());
    let e = launch!(panicky<<<2, 64>>>(&mut o)).unwrap_err();
    println!("panic -> {}", e.code());
    let mut big = DeviceBuffer::<u64>::zeroed(4).unwrap();
    let e = launch!(overflow<<<1, 4>>>(&mut big)).unwrap_err();
    println!("overflow -> {}", e.code());
    let mut f = DeviceBuffer::<f32>::zeroed(16).unwrap();
    let e = launch!(shared_oob<<<1, 16>>>(&mut f)).unwrap_err();
    println!("shared oob -> {}", e.code());
    let e = launch!(oob<<<1, 2048>>>(&x, &mut y)).unwrap_err();
    println!("config -> {} {e}", e.code());
    let checks = deviceemu::Checks { initcheck: true, racecheck: true, ..deviceemu::Checks::default() };
    let checked = deviceemu::Config::default().checks(checks);
    let u = DeviceBuffer::<f32>::uninit(65).unwrap();
    let mut v = DeviceBuffer::<f32>::zeroed(64).unwrap();
    let e = deviceemu::with_config(checked.clone(), || launch!(uninit_read<<<1, 64>>>(&u, &mut v))).unwrap_err();
    println!("uninit read -> {}", e.code());
    let e = deviceemu::with_config(checked, || launch!(racy_tree<<<1, 64>>>(&mut o))).unwrap_err();
    println!("race -> {}", e.code());
    let mut flag = DeviceBuffer::<u32>::zeroed(1).unwrap();
    let watched = deviceemu::Config::default().timeout(std::time::Duration::from_millis(500));
    let e = deviceemu::with_config(watched, || launch!(unreleased<<<1, 64>>>(&mut flag, &mut o))).unwrap_err();
    println!("hang -> {}", e.code());
    let r = launch!(early<<<1, 64>>>(&mut o, 64));
    println!("a correct launch after all of them: {:?}", r.is_ok());
}
