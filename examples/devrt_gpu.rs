//! The device runtime (dynamic parallelism) on the GPU against the emulator: the same kernels
//! that launch kernels run on both targets with the same inputs, and their results are
//! compared (issue 14, item 6).
//!
//! - `quicksort` (examples/cdp_quicksort.rs): two children per segment, each into a
//!   non-blocking stream of its own; checked against the CPU's sort on both targets.
//! - `streams`: children into the null stream, a non-blocking stream, a second stream that
//!   waits on an event recorded in the first, the tail-launch and the fire-and-forget stream;
//!   every child reports what it saw of a write its parent made before the launch.
//! - `layout`: a child with scalars of every size (u8, u16, u32, u64, f32, f64, a
//!   `#[repr(C)]` pair) around two slices, so that the parameter buffer's layout (each at its
//!   alignment, a slice as pointer then length) is checked value by value.
//! - `recurse`: a chain of 40 nested null-stream launches (no depth error on sm_90, p7).
//! - `tail_limit`: 2100 tail launches from one thread; the 2049th fails with 69
//!   (`cudaErrorLaunchPendingCountExceeded`), as on the H200 (p7) and in the emulator.
//! - `devsync`: `device_synchronize()` in a kernel returns 801 on both (sm_90 has none).
//!
//! Prints one line per check and `devrt_gpu: N checks, M differ`; exits non-zero when any
//! differs. `cargo run --release --example devrt_gpu --features gpu` (needs an NVIDIA GPU
//! and libcudadevrt.a: `EMU_CUDADEVRT`, `CUDA_PATH`, `CUDA_HOME` or /usr/local/cuda).

#[path = "cdp_quicksort.rs"]
#[allow(dead_code)]
mod cdp_quicksort_example;

use deviceemu::prelude::*;
use deviceemu::{get_last_error, Config, Error, Target};

fn code(r: Result<(), Error>) -> i32 {
    match r {
        Ok(()) => 0,
        Err(e) => e.code(),
    }
}

/// `res[2 * slot]` = `data[0]` as the child saw it, `res[2 * slot + 1]` = 1 (it ran).
#[kernel]
pub fn report_child(data: &[u32], res: &mut [u32], slot: u32) {
    res[2 * slot as usize] = data[0];
    res[2 * slot as usize + 1] = 1;
}

/// Thread 0 writes `data[0] = 42`, then launches `report_child` into five streams;
/// `codes[k]` = each call's result (launches, event record and wait), `codes[7]` = the last
/// error afterwards.
#[kernel]
pub fn streams(data: &mut [u32], res: &mut [u32], codes: &mut [i32]) {
    if thread_idx().x != 0 {
        return;
    }
    data[0] = 42;
    codes[0] = code(launch!(report_child<<<1, 1>>>(data, res, 0)));
    let s = DeviceStream::non_blocking();
    codes[1] = code(launch!(report_child<<<1, 1, 0, &s>>>(data, res, 1)));
    let e = DeviceEvent::without_timing();
    codes[2] = code(e.record(&s));
    let s2 = DeviceStream::non_blocking();
    codes[3] = code(s2.wait_event(&e));
    codes[4] = code(launch!(report_child<<<1, 1, 0, &s2>>>(data, res, 2)));
    codes[5] = code(launch!(report_child<<<1, 1, 0, &DeviceStream::tail_launch()>>>(data, res, 3)));
    codes[6] = code(launch!(report_child<<<1, 1, 0, &DeviceStream::fire_and_forget()>>>(data, res, 4)));
    codes[7] = code(get_last_error());
}

/// A `#[repr(C)]` scalar parameter: 16 bytes, 8-aligned.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair {
    /// The first field.
    pub a: u32,
    /// Fills the hole before `b`.
    pub pad: u32,
    /// An 8-aligned field.
    pub b: f64,
}

// SAFETY: `repr(C)`, no padding (`pad` fills the hole before `b`), zero is valid, no pointers.
unsafe impl DeviceCopy for Pair {}

/// Writes every parameter it got into `out`, as u64 bits.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub fn layout_child(out: &mut [u64], a: u8, b: u64, c: u16, d: &[u32], e: f32, f: u32, g: f64, h: Pair, i: u8) {
    if thread_idx().x == 0 && block_idx().x == 0 {
        out[0] = a as u64;
        out[1] = b;
        out[2] = c as u64;
        out[3] = d.len() as u64;
        out[4] = d[0] as u64 + ((d[d.len() - 1] as u64) << 32);
        out[5] = e.to_bits() as u64;
        out[6] = f as u64;
        out[7] = g.to_bits();
        out[8] = h.a as u64;
        out[9] = h.b.to_bits();
        out[10] = i as u64;
        out[11] = (grid_dim().x * 1000 + block_dim().x) as u64;
    }
}

#[kernel]
pub fn layout(out: &mut [u64], d: &[u32]) {
    if thread_idx().x == 0 {
        let h = Pair { a: 0xdead_beef, pad: 0, b: -2.5 };
        launch!(layout_child<<<3, 32>>>(out, 0xab, 0x0123_4567_89ab_cdef, 0xbeef, d, 1.5, 7, 6.25, h, 0x5a)).unwrap();
    }
}

/// Depth `depth` launches depth + 1 until `max`; `reached[0]` = the deepest depth that ran.
#[kernel]
pub fn recurse(reached: &mut [u32], codes: &mut [u32], depth: u32, max: u32) {
    reached.atomic_max(0, depth);
    if depth < max {
        codes[depth as usize] = code(launch!(recurse<<<1, 1>>>(reached, codes, depth + 1, max))) as u32;
    }
}

#[kernel]
pub fn count_child(counts: &mut [u32]) {
    counts.atomic_add(0, 1);
}

/// `n` tail launches from one thread: `stats` = [first failing index + 1, its code, failures].
#[kernel]
pub fn tail_limit(counts: &mut [u32], stats: &mut [u32], n: u32) {
    let (mut first, mut first_code, mut fails) = (0u32, 0u32, 0u32);
    let mut i = 0;
    while i < n {
        let c = code(launch!(count_child<<<1, 1, 0, &DeviceStream::tail_launch()>>>(counts)));
        if c != 0 {
            if fails == 0 {
                first = i + 1;
                first_code = c as u32;
            }
            fails += 1;
        }
        i += 1;
    }
    stats[0] = first;
    stats[1] = first_code;
    stats[2] = fails;
}

#[kernel]
pub fn devsync(out: &mut [i32]) {
    out[0] = code(device_synchronize());
}

fn on<R>(target: Target, f: impl FnOnce() -> Result<R, Error>) -> Result<R, Error> {
    deviceemu::with_config(Config::default().target(target), f)
}

struct Tally {
    checks: usize,
    differ: usize,
}

impl Tally {
    fn check<T: PartialEq + std::fmt::Debug>(&mut self, name: &str, gpu: &T, emu: &T, want: Option<&T>) {
        self.checks += 1;
        let ok = gpu == emu && want.is_none_or(|w| w == gpu);
        if !ok {
            self.differ += 1;
        }
        let verdict = if ok { "same" } else { "DIFFER" };
        match want {
            Some(w) => println!("devrt_gpu {name}: {verdict}: gpu {gpu:?}, emulator {emu:?}, expected {w:?}"),
            None => println!("devrt_gpu {name}: {verdict}: gpu {gpu:?}, emulator {emu:?}"),
        }
    }
}

fn quicksort_on(target: Target, input: &[u32]) -> Result<(Vec<u32>, f64), Error> {
    on(target, || {
        let mut data = DeviceBuffer::from_slice(input)?;
        let t = std::time::Instant::now();
        launch!(cdp_quicksort_example::quicksort<<<1, 1>>>(&mut data, 0, input.len() as i32 - 1, 0))?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        Ok((data.to_vec()?, ms))
    })
}

#[cfg(feature = "gpu")]
fn gpu_available() -> bool {
    deviceemu::gpu::available()
}

#[cfg(not(feature = "gpu"))]
fn gpu_available() -> bool {
    false
}

fn main() -> Result<(), Error> {
    // Without a GPU the emulator runs on both sides: a check of the expected values only.
    let gpu_target = if gpu_available() {
        Target::Gpu
    } else {
        println!("devrt_gpu: no GPU (or built without the `gpu` feature): the emulator runs as both sides");
        Target::Emulator
    };
    let mut t = Tally { checks: 0, differ: 0 };

    // Quicksort, 20 000 elements.
    let n = 20_000usize;
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let input: Vec<u32> = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u32
        })
        .collect();
    let mut want = input.clone();
    want.sort_unstable();
    let (gpu, gpu_ms) = quicksort_on(gpu_target, &input)?;
    let (emu, emu_ms) = quicksort_on(Target::Emulator, &input)?;
    println!("devrt_gpu quicksort of {n}: gpu {gpu_ms:.1} ms, emulator {emu_ms:.1} ms");
    let sorted = |v: &Vec<u32>| (v == &want, v.len());
    t.check("quicksort sorted like the CPU (matches, length)", &sorted(&gpu), &sorted(&emu), Some(&(true, n)));

    // Streams and events.
    let streams_on = |target| {
        on(target, || {
            let mut data = DeviceBuffer::<u32>::zeroed(1)?;
            let mut res = DeviceBuffer::<u32>::zeroed(10)?;
            let mut codes = DeviceBuffer::<i32>::from_slice(&[-1; 8])?;
            launch!(streams<<<1, 32>>>(&mut data, &mut res, &mut codes))?;
            Ok((res.to_vec()?, codes.to_vec()?))
        })
    };
    let (g, e) = (streams_on(gpu_target)?, streams_on(Target::Emulator)?);
    let seen = vec![42, 1, 42, 1, 42, 1, 42, 1, 42, 1];
    t.check("streams: what each child saw of data[0] (42), and that it ran", &g.0, &e.0, Some(&seen));
    t.check("streams: codes of the launches, record, wait_event, last error", &g.1, &e.1, Some(&vec![0; 8]));

    // The parameter buffer's layout.
    let layout_on = |target| {
        on(target, || {
            let mut out = DeviceBuffer::<u64>::zeroed(12)?;
            let d = DeviceBuffer::<u32>::from_slice(&(100..117).collect::<Vec<u32>>())?;
            launch!(layout<<<1, 4>>>(&mut out, &d))?;
            out.to_vec()
        })
    };
    let want_layout = vec![
        0xab,
        0x0123_4567_89ab_cdef,
        0xbeef,
        17,
        100 + (116 << 32),
        1.5f32.to_bits() as u64,
        7,
        6.25f64.to_bits(),
        0xdead_beef,
        (-2.5f64).to_bits(),
        0x5a,
        3032,
    ];
    let (g, e) = (layout_on(gpu_target)?, layout_on(Target::Emulator)?);
    t.check("layout: the child's parameters", &g, &e, Some(&want_layout));

    // Nested launches.
    let recurse_on = |target| {
        on(target, || {
            let mut reached = DeviceBuffer::<u32>::zeroed(1)?;
            let mut codes = DeviceBuffer::<u32>::from_slice(&[9999; 40])?;
            launch!(recurse<<<1, 1>>>(&mut reached, &mut codes, 0, 40))?;
            let c = codes.to_vec()?;
            Ok((reached.to_vec()?[0], c.iter().filter(|&&c| c != 0).count()))
        })
    };
    let (g, e) = (recurse_on(gpu_target)?, recurse_on(Target::Emulator)?);
    t.check("recurse: deepest depth, failed launches", &g, &e, Some(&(40, 0)));

    // The pending-launch limit of tail launches.
    let tail_on = |target| {
        on(target, || {
            let mut counts = DeviceBuffer::<u32>::zeroed(1)?;
            let mut stats = DeviceBuffer::<u32>::zeroed(3)?;
            launch!(tail_limit<<<1, 1>>>(&mut counts, &mut stats, 2100))?;
            Ok((stats.to_vec()?, counts.to_vec()?[0]))
        })
    };
    let (g, e) = (tail_on(gpu_target)?, tail_on(Target::Emulator)?);
    t.check("tail_limit: [first failing + 1, code, failures], children ran", &g, &e, Some(&(vec![2049, 69, 52], 2048)));

    // device_synchronize() in a kernel: 801 on both. The emulator also reports it (the launch
    // fails with 719 there, on purpose); the GPU's launch succeeds.
    let devsync_on = |target| {
        on(target, || {
            let mut out = DeviceBuffer::<i32>::zeroed(1)?;
            let r = deviceemu::quietly(|| launch!(devsync<<<1, 1>>>(&mut out)));
            Ok((out.to_vec()?[0], code(r)))
        })
    };
    let (g, e) = (devsync_on(gpu_target)?, devsync_on(Target::Emulator)?);
    t.check("devsync: device_synchronize() code in the kernel", &g.0, &e.0, Some(&801));
    println!("devrt_gpu devsync: launch result gpu {}, emulator {} (reported there)", g.1, e.1);

    println!("devrt_gpu: {} checks, {} differ", t.checks, t.differ);
    if t.differ > 0 {
        std::process::exit(1);
    }
    Ok(())
}
