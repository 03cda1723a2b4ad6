//! Determinism: race-free kernels (reduction, matmul, histogram) give identical results under
//! every block order (`BlockOrder::Serial`/`Parallel`) and thread schedule (`seed`), identical
//! to the default parallel run.
//!
//! So that these comparisons could fail, the last tests check that the settings really change
//! the schedule: a seed shuffles the order in which threads start and resume, the same seed
//! gives the same order every time, serial blocks run in index order, and a racy kernel's result
//! does depend on the seed. The `EMU_BLOCKS`/`EMU_SEED` variables (in a child process) give
//! the same schedule as the equivalent `Config`.

use crate::kernels::block_sum;
use deviceemu::prelude::*;
use deviceemu::testing::Model;
use deviceemu::{with_config, BlockOrder, Checks, Config};

const SEEDS: [u64; 5] = [0, 1, 7, 42, 0xDEAD_BEEF_CAFE_F00D];

/// `deviceemu::testing`'s model over block orders, index order and each of `SEEDS`, warp sizes
/// 32 and 1, with the default checkers (these are large launches: racecheck multiplies their
/// time; CI's `EMU_CHECK=all` run pins every checker on).
fn everywhere() -> Model {
    let mut seeds = vec![None];
    seeds.extend(SEEDS.map(Some));
    Model::new().seeds(&seeds).checks(&[Checks::default()])
}

/// [`everywhere`] with fibers and three thread orders only, for the largest launches.
fn large() -> Model {
    everywhere().fibers_only().seeds(&[None, Some(SEEDS[1]), Some(SEEDS[4])])
}

/// Runs `run` under the default configuration, then under every combination of `model`, and
/// asserts the results are identical.
fn assert_same_everywhere<T: PartialEq + std::fmt::Debug>(what: &str, model: Model, run: impl Fn() -> T) {
    let reference = with_config(Config::default(), &run);
    model.check_with(|config| {
        let got = run();
        assert!(got == reference, "{what}: {config:?} differs from the default parallel run");
    });
}

fn inputs(n: usize, seed: u32) -> Vec<f32> {
    // Full-mantissa values in [-1, 1): any change of summation order would change bits.
    let mut x = seed.wrapping_mul(2_654_435_761) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 8) as f32 / (1u32 << 23) as f32 - 1.0
        })
        .collect()
}

fn bits(v: Vec<f32>) -> Vec<u32> {
    v.into_iter().map(f32::to_bits).collect()
}

// ---------------------------------------------------------------------------------------------
// Race-free kernels
// ---------------------------------------------------------------------------------------------

const TILE: usize = 16;

#[kernel]
fn matmul_tiled(m: u32, n: u32, k: u32, a: &[f32], b: &[f32], c: &mut [f32]) {
    let ta = shared_array![[f32; TILE]; TILE];
    let tb = shared_array![[f32; TILE]; TILE];
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let row = block_idx().y as usize * TILE + ty;
    let col = block_idx().x as usize * TILE + tx;
    let (m, n, k) = (m as usize, n as usize, k as usize);
    let mut acc = 0.0f32;
    for t in 0..k.div_ceil(TILE) {
        let ak = t * TILE + tx;
        ta[ty][tx] = if row < m && ak < k { a[row * k + ak] } else { 0.0 };
        let bk = t * TILE + ty;
        tb[ty][tx] = if bk < k && col < n { b[bk * n + col] } else { 0.0 };
        sync_threads();
        for kk in 0..TILE {
            acc += ta[ty][kk] * tb[kk][tx];
        }
        sync_threads();
    }
    if row < m && col < n {
        c[row * n + col] = acc;
    }
}

const BINS: usize = 64;

#[kernel]
fn hist_shared(data: &[u32], hist: &mut [u32]) {
    let local = shared_array![u32; BINS];
    let t = thread_idx().x as usize;
    let bd = block_dim().x as usize;
    let mut j = t;
    while j < BINS {
        local[j] = 0;
        j += bd;
    }
    sync_threads();
    let stride = (grid_dim().x * block_dim().x) as usize;
    let mut i = block_idx().x as usize * bd + t;
    while i < data.len() {
        local.atomic_add(data[i] as usize, 1);
        i += stride;
    }
    sync_threads();
    let mut j = t;
    while j < BINS {
        hist.atomic_add(j, local[j]);
        j += bd;
    }
}

#[test]
fn reduction_is_identical_under_every_schedule() {
    let input = inputs(40_000, 1);
    let blocks = input.len().div_ceil(256);
    let d_in = DeviceBuffer::from_slice(&input).unwrap();
    assert_same_everywhere("block_sum", large(), || {
        let mut partial = DeviceBuffer::<f32>::zeroed(blocks).unwrap();
        launch!(block_sum<<<blocks as u32, 256>>>(&d_in, &mut partial)).unwrap();
        bits(partial.to_vec().unwrap())
    });
}

#[test]
fn matmul_is_identical_under_every_schedule() {
    let (m, n, k) = (45usize, 38usize, 61usize);
    let da = DeviceBuffer::from_slice(&inputs(m * k, 2)).unwrap();
    let db = DeviceBuffer::from_slice(&inputs(k * n, 3)).unwrap();
    let grid = (n.div_ceil(TILE) as u32, m.div_ceil(TILE) as u32);
    assert_same_everywhere("matmul", large(), || {
        let mut dc = DeviceBuffer::<f32>::zeroed(m * n).unwrap();
        launch!(matmul_tiled<<<grid, (16, 16)>>>(m as u32, n as u32, k as u32, &da, &db, &mut dc)).unwrap();
        bits(dc.to_vec().unwrap())
    });
}

#[test]
fn histogram_is_identical_under_every_schedule() {
    let data: Vec<u32> =
        inputs(30_000, 4).iter().map(|&v| ((v + 1.0) * 0.5 * BINS as f32) as u32 % BINS as u32).collect();
    let d = DeviceBuffer::from_slice(&data).unwrap();
    let mut want = vec![0u32; BINS];
    for &v in &data {
        want[v as usize] += 1;
    }
    assert_same_everywhere("histogram", everywhere(), || {
        let mut h = DeviceBuffer::<u32>::zeroed(BINS).unwrap();
        launch!(hist_shared<<<12, 96>>>(&d, &mut h)).unwrap();
        let h = h.to_vec().unwrap();
        assert_eq!(h, want, "histogram counts");
        h
    });
}

// ---------------------------------------------------------------------------------------------
// The settings do change the schedule
// ---------------------------------------------------------------------------------------------

/// Records, per thread, the order in which it started (`start`) and in which it resumed after
/// a barrier (`resume`), counted per block.
#[kernel]
fn schedule_order(counters: &mut [u32], start: &mut [u32], resume: &mut [u32]) {
    let b = block_idx().x as usize;
    let gid = b * block_dim().x as usize + thread_idx().x as usize;
    start[gid] = counters.atomic_add(2 * b, 1);
    sync_threads();
    resume[gid] = counters.atomic_add(2 * b + 1, 1);
}

const GRID: u32 = 3;
const BLOCK: u32 = 64;

fn schedule(config: Config) -> (Vec<u32>, Vec<u32>) {
    let n = (GRID * BLOCK) as usize;
    let mut counters = DeviceBuffer::<u32>::zeroed(2 * GRID as usize).unwrap();
    let mut start = DeviceBuffer::<u32>::zeroed(n).unwrap();
    let mut resume = DeviceBuffer::<u32>::zeroed(n).unwrap();
    with_config(config, || launch!(schedule_order<<<GRID, BLOCK>>>(&mut counters, &mut start, &mut resume))).unwrap();
    (start.to_vec().unwrap(), resume.to_vec().unwrap())
}

#[test]
fn without_a_seed_threads_start_and_resume_in_index_order() {
    let identity: Vec<u32> = (0..GRID).flat_map(|_| 0..BLOCK).collect();
    for config in [Config::default(), Config::default().blocks(BlockOrder::Serial)] {
        let (start, resume) = schedule(config);
        assert_eq!(start, identity);
        assert_eq!(resume, identity);
    }
}

#[test]
fn a_seed_shuffles_the_schedule_reproducibly() {
    let identity: Vec<u32> = (0..GRID).flat_map(|_| 0..BLOCK).collect();
    let mut seen = Vec::new();
    for s in SEEDS {
        let a = schedule(Config::default().seed(s));
        let b = schedule(Config::default().blocks(BlockOrder::Serial).seed(s));
        assert_eq!(a, b, "seed {s}: the schedule does not depend on the block order");
        assert_eq!(a, schedule(Config::default().seed(s)), "seed {s}: the same seed gives the same schedule");
        assert_ne!(a.0, identity, "seed {s}: threads should not start in index order");
        assert_ne!(a.1, identity, "seed {s}: threads should not resume in index order");
        assert_ne!(a.0, a.1, "seed {s}: the resume order is shuffled afresh after the barrier");
        // Each block has its own shuffle.
        let per_block: Vec<&[u32]> = a.0.chunks(BLOCK as usize).collect();
        assert!(per_block.windows(2).any(|w| w[0] != w[1]), "seed {s}: every block has the same order");
        for chunk in a.0.chunks(BLOCK as usize).chain(a.1.chunks(BLOCK as usize)) {
            let mut c = chunk.to_vec();
            c.sort_unstable();
            assert_eq!(c, (0..BLOCK).collect::<Vec<_>>(), "seed {s}: an order is a permutation");
        }
        seen.push(a);
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), SEEDS.len(), "different seeds give different schedules");
}

/// Blocks record the order in which they started.
#[kernel]
fn block_order(counter: &mut [u32], first: &mut [u32]) {
    if thread_idx().x == 0 {
        first[block_idx().x as usize] = counter.atomic_add(0, 1);
    }
}

#[test]
fn serial_blocks_run_in_index_order() {
    let blocks = 200usize;
    for config in [Config::default().blocks(BlockOrder::Serial), Config::default().blocks(BlockOrder::Serial).seed(5)] {
        let mut counter = DeviceBuffer::<u32>::zeroed(1).unwrap();
        let mut first = DeviceBuffer::<u32>::zeroed(blocks).unwrap();
        with_config(config, || launch!(block_order<<<blocks as u32, 32>>>(&mut counter, &mut first))).unwrap();
        assert_eq!(first.to_vec().unwrap(), (0..blocks as u32).collect::<Vec<_>>());
    }
}

/// A racy kernel: every thread of the block writes the same element; the last writer wins.
#[kernel]
fn last_writer(out: &mut [u32]) {
    out[block_idx().x as usize] = thread_idx().x;
}

#[test]
fn racy_kernels_do_depend_on_the_seed() {
    let run = |config: Config| {
        let mut out = DeviceBuffer::<u32>::zeroed(4).unwrap();
        with_config(config, || launch!(last_writer<<<4, 64>>>(&mut out))).unwrap();
        out.to_vec().unwrap()
    };
    assert_eq!(run(Config::default()), vec![63; 4], "index order: thread 63 writes last");
    let seeded: Vec<Vec<u32>> = SEEDS.iter().map(|&s| run(Config::default().seed(s))).collect();
    assert!(seeded.iter().any(|v| v != &vec![63; 4]), "no seed changed the last writer");
    for (s, v) in SEEDS.iter().zip(&seeded) {
        assert_eq!(&run(Config::default().seed(*s)), v, "seed {s} is reproducible");
    }
}

// ---------------------------------------------------------------------------------------------
// EMU_BLOCKS / EMU_SEED equal their Config counterparts
// ---------------------------------------------------------------------------------------------

const CHILD_VAR: &str = "DEVICEEMU_DETERMINISM_TEST_CHILD";

/// Runs only in the child process started by [`env_seed_gives_the_config_schedule`]: prints the
/// schedule under the `EMU_*` variables it was given. Does nothing in a normal test run.
#[test]
fn env_child_process_helper() {
    if std::env::var_os(CHILD_VAR).is_none() {
        return;
    }
    let (start, resume) = schedule(Config::from_env().expect("valid EMU_* settings"));
    println!("CHILD-SCHEDULE {start:?} {resume:?}");
    // The launch without any Config reads the environment itself.
    let n = (GRID * BLOCK) as usize;
    let mut counters = DeviceBuffer::<u32>::zeroed(2 * GRID as usize).unwrap();
    let mut s = DeviceBuffer::<u32>::zeroed(n).unwrap();
    let mut r = DeviceBuffer::<u32>::zeroed(n).unwrap();
    launch!(schedule_order<<<GRID, BLOCK>>>(&mut counters, &mut s, &mut r)).unwrap();
    println!("CHILD-ENV-SCHEDULE {:?} {:?}", s.to_vec().unwrap(), r.to_vec().unwrap());
}

#[test]
fn env_seed_gives_the_config_schedule() {
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.arg(crate::common::test_name(module_path!(), "env_child_process_helper")).args([
        "--exact",
        "--nocapture",
        "--test-threads=1",
    ]);
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("EMU_") {
            cmd.env_remove(k);
        }
    }
    cmd.env(CHILD_VAR, "1").env("EMU_BLOCKS", "serial").env("EMU_SEED", "42");
    let output = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "child failed:\n{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    let (start, resume) = schedule(Config::default().blocks(BlockOrder::Serial).seed(42));
    let want = format!("{start:?} {resume:?}");
    for marker in ["CHILD-SCHEDULE ", "CHILD-ENV-SCHEDULE "] {
        let line = stdout
            .lines()
            .find_map(|l| l.find(marker).map(|i| &l[i + marker.len()..]))
            .unwrap_or_else(|| panic!("the child printed no {marker}:\n{stdout}"));
        assert_eq!(line, want, "{marker}under EMU_SEED=42 differs from Config::seed(42)");
    }
}
