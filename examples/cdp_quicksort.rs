//! Dynamic parallelism (the device runtime): CUDA's cdpSimpleQuicksort in Rust.
//!
//! Each launch partitions its segment around a pivot and launches two children, one per half,
//! each into a stream of its own; below 32 elements, or 16 levels deep, it finishes the
//! segment with a selection sort. The host's `launch!` returns when the whole tree of child
//! grids has finished. Run it with `EMU_DEVICE_RUNTIME=cdp1` for the legacy device runtime (it
//! sorts the same). Built with `--features gpu` on a machine with a GPU, it runs there,
//! through CUDA's device runtime (ARCHITECTURE.md, *The device runtime*); on the H200 it
//! sorted 100 000 elements in 93.4 ms (tools/probes/logs/devrt_gpu_run2.log).
//!
//! `cargo run --release --example cdp_quicksort [N]`
use deviceemu::prelude::*;

const MAX_DEPTH: u32 = 16;
const SELECTION_SORT: i32 = 32;

#[device]
fn selection_sort(data: &mut [u32], left: i32, right: i32) {
    let mut i = left;
    while i <= right {
        let mut min = data[i as usize];
        let mut min_at = i;
        let mut j = i + 1;
        while j <= right {
            if data[j as usize] < min {
                min = data[j as usize];
                min_at = j;
            }
            j += 1;
        }
        if min_at != i {
            data[min_at as usize] = data[i as usize];
            data[i as usize] = min;
        }
        i += 1;
    }
}

/// Sorts `data[left..=right]`: one thread partitions, then two children sort the halves.
#[kernel]
pub fn quicksort(data: &mut [u32], left: i32, right: i32, depth: u32) {
    if depth >= MAX_DEPTH || right - left <= SELECTION_SORT {
        selection_sort(data, left, right);
        return;
    }
    let pivot = data[((left + right) / 2) as usize];
    let (mut l, mut r) = (left, right);
    while l <= r {
        while data[l as usize] < pivot {
            l += 1;
        }
        while data[r as usize] > pivot {
            r -= 1;
        }
        if l <= r {
            let t = data[l as usize];
            data[l as usize] = data[r as usize];
            data[r as usize] = t;
            l += 1;
            r -= 1;
        }
    }
    // The children see the partition (written before their launch); each gets a stream of
    // its own, so that they may run concurrently.
    if left < r {
        let s = DeviceStream::non_blocking();
        if let Err(e) = launch!(quicksort<<<1, 1, 0, &s>>>(data, left, r, depth + 1)) {
            panic!("launch of the left half failed: {e}");
        }
    }
    if l < right {
        let s = DeviceStream::non_blocking();
        if let Err(e) = launch!(quicksort<<<1, 1, 0, &s>>>(data, l, right, depth + 1)) {
            panic!("launch of the right half failed: {e}");
        }
    }
}

fn main() -> Result<(), deviceemu::Error> {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    // A fixed pseudo-random input (xorshift), so that runs compare.
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let input: Vec<u32> = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u32
        })
        .collect();
    let mut data = DeviceBuffer::from_slice(&input)?;
    let start = std::time::Instant::now();
    launch!(quicksort<<<1, 1>>>(&mut data, 0, n as i32 - 1, 0))?;
    let took = start.elapsed();
    let mut want = input;
    want.sort_unstable();
    let got = data.to_vec()?;
    assert_eq!(got, want, "the device quicksort disagrees with the CPU's sort");
    println!(
        "sorted {n} elements with dynamic parallelism in {:.1} ms; matches the CPU's sort",
        took.as_secs_f64() * 1e3
    );
    Ok(())
}
