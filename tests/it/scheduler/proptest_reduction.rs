//! Property test: a block reduction in dynamic shared memory equals a sequential computation,
//! for random lengths (1..5000), power-of-two block sizes (32..=1024), thread schedules
//! (`seed`) and warp sizes.
//!
//! Two properties: with integer-valued floats every partial sum is exact, so the total equals
//! the plain sequential sum; with arbitrary floats each block's partial equals, bit for bit, a
//! CPU tree reduction done in the kernel's order.

use deviceemu::prelude::*;
use deviceemu::testing::Model;
use proptest::prelude::*;

/// Tree reduction of one block in `dynamic_shared` memory (`block_dim().x * 4` bytes).
#[kernel]
fn dyn_block_sum(input: &[f32], partial: &mut [f32]) {
    let tile = dynamic_shared::<f32>();
    let tid = thread_idx().x as usize;
    let i = block_idx().x as usize * block_dim().x as usize + tid;
    tile[tid] = if i < input.len() { input[i] } else { 0.0 };
    sync_threads();
    let mut s = block_dim().x as usize / 2;
    while s > 0 {
        if tid < s {
            tile[tid] += tile[tid + s];
        }
        sync_threads();
        s /= 2;
    }
    if tid == 0 {
        partial[block_idx().x as usize] = tile[0];
    }
}

/// Runs the kernel and returns the per-block partial sums.
fn partials(input: &[f32], block: usize) -> Vec<f32> {
    let blocks = input.len().div_ceil(block);
    let d_in = DeviceBuffer::from_slice(input).unwrap();
    // NaN-filled: a block that writes nothing cannot pass for a zero sum.
    let mut d_partial = DeviceBuffer::from_slice(&vec![f32::NAN; blocks]).unwrap();
    launch!(dyn_block_sum<<<blocks as u32, block as u32, block * 4>>>(&d_in, &mut d_partial))
        .unwrap_or_else(|e| panic!("launch failed:\n{e}"));
    d_partial.to_vec().unwrap()
}

/// The kernel's reduction order, on the CPU.
fn tree_partials(input: &[f32], block: usize) -> Vec<f32> {
    input
        .chunks(block)
        .map(|c| {
            let mut tile = vec![0.0f32; block];
            tile[..c.len()].copy_from_slice(c);
            let mut s = block / 2;
            while s > 0 {
                for t in 0..s {
                    tile[t] += tile[t + s];
                }
                s /= 2;
            }
            tile[0]
        })
        .collect()
}

/// Each case runs under one of `deviceemu::testing`'s settings (block order, thread order,
/// warp size 32 or 1, fibers or threads, every checker), drawn along with the input.
fn model() -> Model {
    Model::new().cases(32).seeds(&[None, Some(1), Some(7), Some(42), Some(0xDEAD_BEEF), Some(u64::MAX)])
}

#[test]
fn integer_valued_reduction_equals_sequential_sum() {
    model().proptest((prop::collection::vec(-1000i32..1000, 1..5000), 5u32..=10), |(data, log_block)| {
        let block = 1usize << log_block;
        let input: Vec<f32> = data.iter().map(|&v| v as f32).collect();
        let got = partials(&input, block);
        prop_assert_eq!(got.len(), data.len().div_ceil(block));
        // Every intermediate is an integer below 2^24 in magnitude: all sums are exact.
        for (b, (chunk, &p)) in data.chunks(block).zip(&got).enumerate() {
            prop_assert_eq!(p, chunk.iter().sum::<i32>() as f32, "block {}", b);
        }
        let total: i64 = got.iter().map(|&p| p as i64).sum();
        prop_assert_eq!(total, data.iter().map(|&v| v as i64).sum::<i64>());
        Ok(())
    });
}

#[test]
fn float_reduction_matches_cpu_tree_bit_for_bit() {
    model().proptest((prop::collection::vec(-1.0e3f32..1.0e3, 1..5000), 5u32..=10), |(data, log_block)| {
        let block = 1usize << log_block;
        let got = partials(&data, block);
        let want = tree_partials(&data, block);
        prop_assert_eq!(got.len(), want.len());
        for (b, (g, w)) in got.iter().zip(&want).enumerate() {
            prop_assert_eq!(g.to_bits(), w.to_bits(), "block {}: got {} want {}", b, g, w);
        }
        Ok(())
    });
}
