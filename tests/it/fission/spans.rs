//! Lane loops over spans of consecutive blocks (`emu-macros/src/fission/spans.rs`,
//! `Regions::each_span_chunk`): which kernels take them, and that a span gives what its
//! blocks give one at a time, reports included.

use deviceemu::__private::last_spanned;
use deviceemu::prelude::*;
use deviceemu::{with_config, BlockOrder, Config, Tier};

/// `y = a * x + y` by the global index.
#[kernel]
fn span_axpy(a: f32, x: &[f32], y: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

/// The global index with its parts cast, and the sum's operands the other way round.
#[kernel]
fn span_cast(x: &[u32], y: &mut [u32]) {
    let i = thread_idx().x as usize + block_idx().x as usize * block_dim().x as usize;
    if i < y.len() {
        y[i] = x[i] * 3 + 1;
    }
}

/// SHOC's triad as written: the product in parentheses, the thread's index first.
#[kernel]
fn span_triad(a: &[f32], b: &[f32], c: &mut [f32], s: f32) {
    let gid: i32 = (thread_idx().x + (block_idx().x * block_dim().x)) as i32;
    c[gid] = a[gid] + s * b[gid];
}

/// The thread's index named first, then used only in the global index.
#[kernel]
fn span_named(x: &[u32], y: &mut [u32]) {
    let tid = thread_idx().x;
    let i = (block_idx().x * block_dim().x + tid) as usize;
    if i < y.len() {
        y[i] = x[i] + 5;
    }
}

/// Reads `thread_idx().x` beside the global index: a span's lane would see its index in the
/// span, not in its block.
#[kernel]
fn plus_lane(x: &[u32], y: &mut [u32]) {
    let tid = thread_idx().x;
    let i = (block_idx().x * block_dim().x + tid) as usize;
    if i < y.len() {
        y[i] = x[i] + tid;
    }
}

/// Reads `block_idx().x` beside the global index.
#[kernel]
fn plus_block(x: &[u32], y: &mut [u32]) {
    let b = block_idx().x;
    let i = (b * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        y[i] = x[i] + b;
    }
}

/// An integer division that traps where `d` is zero.
#[kernel]
fn span_divide(x: &[u32], d: &[u32], y: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        y[i] = x[i] / d[i];
    }
}

/// Runs `f` with `EMU_VERBOSE` on (and `c`'s settings), one block order or the other, and
/// returns its result and how many blocks of its last lane loop ran in spans.
fn spanned<R>(c: Config, f: impl FnOnce() -> R) -> (R, usize) {
    with_config(c.verbose(true), || {
        let r = f();
        (r, last_spanned())
    })
}

fn axpy_run(n: usize, block: u32, x: &[f32], y0: &[f32]) -> Vec<f32> {
    let dx = DeviceBuffer::from_slice(x).unwrap();
    let mut dy = DeviceBuffer::from_slice(y0).unwrap();
    launch!(span_axpy<<<(n as u32).div_ceil(block), block>>>(1.5, &dx, &mut dy)).unwrap();
    dy.to_vec().unwrap()
}

#[test]
fn a_global_index_kernel_runs_in_spans_with_the_same_bits_as_block_by_block() {
    // A last block that is partial (its span's proof fails there), and block sizes that do
    // and do not divide a chunk of 256 lanes.
    for (n, block) in [(256 * 37 + 100, 256), (96 * 50 + 7, 96), (64 * 300, 64), (1024 * 9, 1024)] {
        let x: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin() * 1e3).collect();
        let y0: Vec<f32> = (0..n).map(|i| (i % 97) as f32 - 31.5).collect();
        let want: Vec<u32> = x.iter().zip(&y0).map(|(&x, &y)| (1.5 * x + y).to_bits()).collect();
        for order in [BlockOrder::Serial, BlockOrder::Parallel] {
            let c = Config::default().blocks(order);
            let (on, spans) = spanned(c.clone(), || axpy_run(n, block, &x, &y0));
            let (off, none) = spanned(c.clone().tier_off(Tier::Spans), || axpy_run(n, block, &x, &y0));
            let bits = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<_>>();
            assert_eq!(bits(on), want, "n {n}, block {block}, {order:?}");
            assert_eq!(bits(off), want, "n {n}, block {block}, {order:?}, spans off");
            assert_eq!(none, 0, "spans off");
            let blocks = n.div_ceil(block as usize);
            if block > 256 {
                // Blocks wider than a chunk never do.
                assert_eq!(spans, 0, "block {block}");
            } else if order == BlockOrder::Serial {
                // Every block of a whole grid; before a partial last block, spans of halved
                // length where a span would reach it, which leave at most the two blocks
                // before it alone. (In parallel, how many blocks a worker takes at a time
                // decides.)
                let whole = n / block as usize;
                if whole == blocks {
                    assert_eq!(spans, blocks);
                } else {
                    assert!(spans + 2 >= whole && spans <= whole, "{spans} of {blocks} blocks in spans");
                }
            }
        }
    }
}

#[test]
fn cast_parts_of_the_global_index_run_in_spans() {
    let n = 128 * 40;
    let x: Vec<u32> = (0..n as u32).map(|v| v * 7).collect();
    let (out, spans) = spanned(Config::default().blocks(BlockOrder::Serial), || {
        let dx = DeviceBuffer::from_slice(&x).unwrap();
        let mut dy = DeviceBuffer::<u32>::zeroed(n).unwrap();
        launch!(span_cast<<<40, 128>>>(&dx, &mut dy)).unwrap();
        dy.to_vec().unwrap()
    });
    assert_eq!(spans, 40);
    for (i, (&o, &x)) in out.iter().zip(&x).enumerate() {
        assert_eq!(o, x * 3 + 1, "y[{i}]");
    }
}

#[test]
fn the_index_in_parentheses_or_through_a_name_runs_in_spans() {
    let n = 256 * 24;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| (i % 13) as f32).collect();
    let serial = || Config::default().blocks(BlockOrder::Serial);
    let (c, spans) = spanned(serial(), || {
        let (da, db) = (DeviceBuffer::from_slice(&a).unwrap(), DeviceBuffer::from_slice(&b).unwrap());
        let mut dc = DeviceBuffer::<f32>::zeroed(n).unwrap();
        launch!(span_triad<<<24, 256>>>(&da, &db, &mut dc, 1.75)).unwrap();
        dc.to_vec().unwrap()
    });
    assert_eq!(spans, 24, "triad");
    for i in 0..n {
        assert_eq!(c[i].to_bits(), (a[i] + 1.75 * b[i]).to_bits(), "c[{i}]");
    }
    let x: Vec<u32> = (0..n as u32).collect();
    let (y, spans) = spanned(serial(), || {
        let dx = DeviceBuffer::from_slice(&x).unwrap();
        let mut dy = DeviceBuffer::<u32>::zeroed(n).unwrap();
        launch!(span_named<<<24, 256>>>(&dx, &mut dy)).unwrap();
        dy.to_vec().unwrap()
    });
    assert_eq!(spans, 24, "named index");
    assert!(y.iter().enumerate().all(|(i, &v)| v == i as u32 + 5));
}

#[test]
fn kernels_that_read_their_thread_or_block_index_alone_take_no_span() {
    let n = 256 * 12;
    let x: Vec<u32> = (0..n as u32).map(|v| v * 10).collect();
    for lane in [true, false] {
        let (out, spans) = spanned(Config::default().blocks(BlockOrder::Serial), || {
            let dx = DeviceBuffer::from_slice(&x).unwrap();
            let mut dy = DeviceBuffer::<u32>::zeroed(n).unwrap();
            match lane {
                true => launch!(plus_lane<<<12, 256>>>(&dx, &mut dy)).unwrap(),
                false => launch!(plus_block<<<12, 256>>>(&dx, &mut dy)).unwrap(),
            }
            dy.to_vec().unwrap()
        });
        for (i, &o) in out.iter().enumerate() {
            let add = if lane { i % 256 } else { i / 256 } as u32;
            assert_eq!(o, x[i] + add, "y[{i}], lane {lane}");
        }
        assert_eq!(spans, 0, "lane {lane}");
    }
}

#[test]
fn a_span_stays_in_its_grid_row() {
    // A grid of two rows of 16 blocks: every thread writes `y[i]` for its global x index
    // `i < 16 * 64`, twice (once per row). A span that ran on past its row's last block would
    // write the elements after it, which no thread writes.
    let (row, block) = (16usize, 64usize);
    let n = 2 * row * block;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let (out, spans) = spanned(Config::default().blocks(BlockOrder::Serial), || {
        let dx = DeviceBuffer::from_slice(&x).unwrap();
        let mut dy = DeviceBuffer::from_slice(&vec![-1.0f32; n]).unwrap();
        launch!(span_axpy<<<(row as u32, 2), block as u32>>>(2.0, &dx, &mut dy)).unwrap();
        dy.to_vec().unwrap()
    });
    assert_eq!(spans, 2 * row, "both rows in spans");
    for (i, &o) in out.iter().enumerate() {
        // Row 0 then row 1 each add `2 * x` to the element.
        let want = if i < row * block { -1.0 + 2.0 * x[i] + 2.0 * x[i] } else { -1.0 };
        assert_eq!(o, want, "y[{i}]");
    }
}

#[test]
fn a_panic_in_a_span_is_reported_by_its_lane_as_block_by_block() {
    // Lane 77 of block 5 (of 8) divides by zero: the span stops before that block's chunk,
    // which runs again alone and reports the thread, as the general path does; the blocks
    // before it have written their values.
    let n = 8 * 256;
    let mut ds = vec![3u32; n];
    ds[5 * 256 + 77] = 0;
    let run = |c: Config| {
        with_config(c, || {
            let x = DeviceBuffer::from_slice(&(0..n as u32).collect::<Vec<_>>()).unwrap();
            let d = DeviceBuffer::from_slice(&ds).unwrap();
            let mut y = DeviceBuffer::<u32>::zeroed(n).unwrap();
            let r = launch!(span_divide<<<8, 256>>>(&x, &d, &mut y)).map_err(|e| e.to_string());
            (y.to_vec().unwrap(), r)
        })
    };
    let serial = Config::default().blocks(BlockOrder::Serial);
    let (out, r) = run(serial.clone());
    let (off_out, off_r) = run(serial.tier_off(Tier::Spans));
    let report = r.unwrap_err();
    assert!(report.contains("thread (77,0,0)") && report.contains("block (5,0,0)"), "{report}");
    assert!(report.contains("divide by zero"), "{report}");
    assert_eq!(Err(report), off_r);
    assert_eq!(out, off_out);
    assert!((0..5 * 256 + 77).all(|i| out[i] == i as u32 / 3), "the blocks and lanes before the fault wrote");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 64, ..Default::default() })]

    /// Any grid, block size and length: spans on and off write the same elements, and the
    /// ones the kernel's threads cover (`i < n`, every row writing the same values) only.
    #[test]
    fn spans_write_what_blocks_one_by_one_write(
        gx in 1u32..80,
        gy in 1u32..3,
        block in 1u32..300,
        extra in 0usize..600,
        serial in proptest::bool::ANY,
    ) {
        let covered = (gx * block) as usize;
        let n = covered.saturating_sub(300) + extra + 1;
        let x: Vec<u32> = (0..n as u32).map(|v| v % 1000).collect();
        let order = if serial { BlockOrder::Serial } else { BlockOrder::Parallel };
        let run = |c: Config| {
            with_config(c, || {
                let dx = DeviceBuffer::from_slice(&x).unwrap();
                let mut dy = DeviceBuffer::from_slice(&vec![7u32; n]).unwrap();
                launch!(span_cast<<<(gx, gy), block>>>(&dx, &mut dy)).unwrap();
                dy.to_vec().unwrap()
            })
        };
        let on = run(Config::default().blocks(order));
        let off = run(Config::default().blocks(order).tier_off(Tier::Spans));
        proptest::prop_assert_eq!(&on, &off);
        for (i, &o) in on.iter().enumerate() {
            let want = if i < covered { x[i] * 3 + 1 } else { 7 };
            proptest::prop_assert_eq!(o, want, "y[{}]", i);
        }
    }
}
