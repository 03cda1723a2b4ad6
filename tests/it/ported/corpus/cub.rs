//! CUB's block-level patterns (github.com/NVIDIA/cub, commit
//! 0fc3c3701632a4be906765b73be20a9ad0da603d): the kernels of examples/block/
//! example_block_reduce.cu (BlockReduceKernel<256, 4, BLOCK_REDUCE_WARP_REDUCTIONS>) and
//! example_block_scan.cu (BlockPrefixSumKernel<256, 4, BLOCK_SCAN_RAKING>) for `int`, with the
//! collectives they instantiate written out as `#[device]` functions, one per CUB method, in
//! CUB's order of operations:
//!
//! - cub/block/block_load.cuh (LoadDirectStriped, LoadDirectWarpStriped, BlockLoad
//!   WARP_TRANSPOSE) and cub/block/block_store.cuh (StoreDirectWarpStriped, BlockStore
//!   WARP_TRANSPOSE);
//! - cub/block/block_exchange.cuh (WarpStripedToBlocked, BlockedToWarpStriped; no padding for
//!   four items per thread);
//! - cub/thread/thread_reduce.cuh and thread_scan.cuh (ThreadReduce, ThreadScanExclusive);
//! - cub/warp/specializations/warp_reduce_shfl.cuh (for `int` sums on sm_80 and later,
//!   `__reduce_add_sync`) and warp_scan_shfl.cuh (InclusiveScan by InclusiveScanStep's
//!   generic form, ShuffleIndex, Update for integer sums);
//! - cub/block/specializations/block_reduce_warp_reductions.cuh and block_scan_raking.cuh, with
//!   cub/block/block_raking_layout.cuh's constants for 256 threads (8-item segments, one
//!   padding element each).
//!
//! Template recursion over `Int2Type<ITEM>` is a `for` loop. The examples launch their grid on
//! one tile; here each block takes its own tile (`d_in + blockIdx.x * TILE`, written as an
//! offset: deviceemu has no pointer arithmetic on views), and the clock() timing is left out.
use deviceemu::prelude::*;

use super::{same, Case, Entry, Rng, Size};

pub fn entries() -> Vec<Entry> {
    vec![
        Entry {
            name: "cub_block_reduce",
            suite: "CUB",
            original: "examples/block/example_block_reduce.cu: BlockReduceKernel<256, 4, BLOCK_REDUCE_WARP_REDUCTIONS>",
            barriers: true,
            make: BlockReduce::make,
        },
        Entry {
            name: "cub_block_scan",
            suite: "CUB",
            original: "examples/block/example_block_scan.cu: BlockPrefixSumKernel<256, 4, BLOCK_SCAN_RAKING>",
            barriers: true,
            make: BlockScan::make,
        },
    ]
}

const BLOCK_THREADS: i32 = 256;
const ITEMS_PER_THREAD: usize = 4;
const TILE: i32 = BLOCK_THREADS * ITEMS_PER_THREAD as i32;
const WARP_THREADS: i32 = 32;
const LOG_WARP_THREADS: i32 = 5;
const WARPS: i32 = (BLOCK_THREADS + WARP_THREADS - 1) / WARP_THREADS;
const LOGICAL_WARP_SIZE: i32 = if BLOCK_THREADS < WARP_THREADS { BLOCK_THREADS } else { WARP_THREADS };
/// WarpScanShfl: log2 of the logical warp's threads.
const STEPS: i32 = 5;
const member_mask: u32 = 0xffffffff;

// BlockRakingLayout<int, 256>.
const SHARED_ELEMENTS: i32 = BLOCK_THREADS;
const MAX_RAKING_THREADS: i32 = if BLOCK_THREADS < WARP_THREADS { BLOCK_THREADS } else { WARP_THREADS };
const SEGMENT_LENGTH: i32 = (SHARED_ELEMENTS + MAX_RAKING_THREADS - 1) / MAX_RAKING_THREADS;
const RAKING_THREADS: i32 = (SHARED_ELEMENTS + SEGMENT_LENGTH - 1) / SEGMENT_LENGTH;
const USE_SEGMENT_PADDING: i32 = (((SEGMENT_LENGTH & 1) == 0) && (SEGMENT_LENGTH > 2)) as i32;
const GRID_ELEMENTS: i32 = RAKING_THREADS * (SEGMENT_LENGTH + USE_SEGMENT_PADDING);
const UNGUARDED: bool = SHARED_ELEMENTS % RAKING_THREADS == 0;

// ---------------------------------------------------------------------------------------------
// Thread-level and warp-level pieces.

/// internal::ThreadReduce (cub/thread/thread_reduce.cuh) with cub::Sum.
#[device]
fn thread_reduce(input: &[i32; ITEMS_PER_THREAD]) -> i32 {
    let mut prefix: i32 = input[0];
    for i in 1..ITEMS_PER_THREAD {
        prefix = prefix + input[i];
    }
    prefix
}

/// internal::ThreadScanExclusive (cub/thread/thread_scan.cuh) with cub::Sum.
#[device]
fn thread_scan_exclusive(
    input: &[i32; ITEMS_PER_THREAD],
    output: &mut [i32; ITEMS_PER_THREAD],
    prefix: i32,
    apply_prefix: bool,
) -> i32 {
    let mut inclusive: i32 = input[0];
    if apply_prefix {
        inclusive = prefix + inclusive;
    }
    output[0] = prefix;
    let mut exclusive: i32 = inclusive;

    for i in 1..ITEMS_PER_THREAD {
        inclusive = exclusive + input[i];
        output[i] = exclusive;
        exclusive = inclusive;
    }

    inclusive
}

/// LoadDirectStriped<BLOCK_THREADS> (cub/block/block_load.cuh).
#[device]
fn load_direct_striped(linear_tid: i32, block_itr: &[i32], block_offset: i32, items: &mut [i32; ITEMS_PER_THREAD]) {
    for ITEM in 0..ITEMS_PER_THREAD as i32 {
        items[ITEM as usize] = block_itr[block_offset + linear_tid + ITEM * BLOCK_THREADS];
    }
}

/// LoadDirectWarpStriped (cub/block/block_load.cuh).
#[device]
fn load_direct_warp_striped(
    linear_tid: i32,
    block_itr: &[i32],
    block_offset: i32,
    items: &mut [i32; ITEMS_PER_THREAD],
) {
    let tid: i32 = linear_tid & (WARP_THREADS - 1);
    let wid: i32 = linear_tid >> LOG_WARP_THREADS;
    let warp_offset: i32 = wid * WARP_THREADS * ITEMS_PER_THREAD as i32;

    // Load directly in warp-striped order
    for ITEM in 0..ITEMS_PER_THREAD as i32 {
        items[ITEM as usize] = block_itr[block_offset + warp_offset + tid + (ITEM * WARP_THREADS)];
    }
}

/// StoreDirectWarpStriped (cub/block/block_store.cuh).
#[device]
fn store_direct_warp_striped(
    linear_tid: i32,
    block_itr: &mut [i32],
    block_offset: i32,
    items: &[i32; ITEMS_PER_THREAD],
) {
    let tid: i32 = linear_tid & (WARP_THREADS - 1);
    let wid: i32 = linear_tid >> LOG_WARP_THREADS;
    let warp_offset: i32 = wid * WARP_THREADS * ITEMS_PER_THREAD as i32;

    // Store directly in warp-striped order
    for ITEM in 0..ITEMS_PER_THREAD as i32 {
        block_itr[block_offset + warp_offset + tid + (ITEM * WARP_THREADS)] = items[ITEM as usize];
    }
}

/// BlockExchange<int, 256, 4>::WarpStripedToBlocked, no time slicing, no padding.
#[device]
fn warp_striped_to_blocked(
    temp_storage: Shared<i32>,
    linear_tid: i32,
    input_items: &[i32; ITEMS_PER_THREAD],
    output_items: &mut [i32; ITEMS_PER_THREAD],
) {
    let lane_id: i32 = linear_tid & (WARP_THREADS - 1);
    let warp_id: i32 = linear_tid >> LOG_WARP_THREADS;
    let warp_offset: i32 = warp_id * WARP_THREADS * ITEMS_PER_THREAD as i32;

    for ITEM in 0..ITEMS_PER_THREAD as i32 {
        let item_offset: i32 = warp_offset + (ITEM * WARP_THREADS) + lane_id;
        temp_storage[item_offset] = input_items[ITEM as usize];
    }

    sync_warp(0xffffffff);

    for ITEM in 0..ITEMS_PER_THREAD as i32 {
        let item_offset: i32 = warp_offset + ITEM + (lane_id * ITEMS_PER_THREAD as i32);
        output_items[ITEM as usize] = temp_storage[item_offset];
    }
}

/// BlockExchange<int, 256, 4>::BlockedToWarpStriped, no time slicing, no padding.
#[device]
fn blocked_to_warp_striped(
    temp_storage: Shared<i32>,
    linear_tid: i32,
    input_items: &[i32; ITEMS_PER_THREAD],
    output_items: &mut [i32; ITEMS_PER_THREAD],
) {
    let lane_id: i32 = linear_tid & (WARP_THREADS - 1);
    let warp_id: i32 = linear_tid >> LOG_WARP_THREADS;
    let warp_offset: i32 = warp_id * WARP_THREADS * ITEMS_PER_THREAD as i32;

    for ITEM in 0..ITEMS_PER_THREAD as i32 {
        let item_offset: i32 = warp_offset + ITEM + (lane_id * ITEMS_PER_THREAD as i32);
        temp_storage[item_offset] = input_items[ITEM as usize];
    }

    sync_warp(0xffffffff);

    for ITEM in 0..ITEMS_PER_THREAD as i32 {
        let item_offset: i32 = warp_offset + (ITEM * WARP_THREADS) + lane_id;
        output_items[ITEM as usize] = temp_storage[item_offset];
    }
}

/// WarpScanShfl<int, 32>::InclusiveScanStep, the generic form (the `int` form is PTX:
/// `shfl.sync.up` with a predicate and a predicated add, which this is).
#[device]
fn inclusive_scan_step(input: i32, lane_id: i32, first_lane: i32, offset: i32) -> i32 {
    let temp: i32 = shfl_up_sync(member_mask, input, offset as u32);

    // Perform scan op if from a valid peer
    let mut output: i32 = temp + input;
    if lane_id < first_lane + offset {
        output = input;
    }

    output
}

/// WarpScanShfl<int, 32>::ExclusiveScan(input, exclusive, initial_value, cub::Sum, warp_aggregate).
#[device]
fn warp_scan_exclusive(
    lane_id: i32,
    input: i32,
    exclusive_output: &mut i32,
    initial_value: i32,
    warp_aggregate: &mut i32,
) {
    // InclusiveScan
    let mut inclusive: i32 = input;
    let segment_first_lane: i32 = 0;
    for STEP in 0..STEPS {
        inclusive = inclusive_scan_step(inclusive, lane_id, segment_first_lane, 1 << STEP);
    }

    // Update(input, inclusive, exclusive, warp_aggregate, scan_op, initial_value, is_integer)
    *warp_aggregate = shfl_sync(member_mask, inclusive, (LOGICAL_WARP_SIZE - 1) as u32);
    inclusive = initial_value + inclusive;
    *exclusive_output = inclusive - input;
}

// ---------------------------------------------------------------------------------------------
// examples/block/example_block_reduce.cu: BlockReduceKernel<256, 4, BLOCK_REDUCE_WARP_REDUCTIONS>
// with BlockReduceWarpReductions<int, 256>::Sum<true> and ApplyWarpAggregates.

/// BlockReduceWarpReductions::ApplyWarpAggregates<FULL_TILE = true>.
#[device]
fn apply_warp_aggregates(
    warp_aggregates: Shared<i32>,
    linear_tid: i32,
    lane_id: i32,
    warp_id: i32,
    warp_aggregate: i32,
    num_valid: i32,
) -> i32 {
    let mut warp_aggregate = warp_aggregate;
    // Share lane aggregates
    if lane_id == 0 {
        warp_aggregates[warp_id] = warp_aggregate;
    }

    sync_threads(); // CTA_SYNC

    // Update total aggregate in warp 0, lane 0
    if linear_tid == 0 {
        for SUCCESSOR_WARP in 1..WARPS {
            let addend: i32 = warp_aggregates[SUCCESSOR_WARP];
            warp_aggregate = warp_aggregate + addend;
        }
    }

    warp_aggregate
}

/// BlockReduce<int, 256, BLOCK_REDUCE_WARP_REDUCTIONS>::Sum(T (&inputs)[4]).
#[device]
fn block_reduce_sum(warp_aggregates: Shared<i32>, inputs: &[i32; ITEMS_PER_THREAD]) -> i32 {
    let linear_tid: i32 = thread_idx().x as i32;
    let warp_id: i32 = if WARPS == 1 { 0 } else { linear_tid / WARP_THREADS };
    let lane_id: i32 = deviceemu::lane_id() as i32;

    // Reduce partials
    let partial: i32 = thread_reduce(inputs);

    // BlockReduceWarpReductions::Sum<true>(partial, BLOCK_THREADS)
    let num_valid: i32 = BLOCK_THREADS;
    // Warp reduction in every warp (WarpReduceShfl: __reduce_add_sync for int on sm_80 and later)
    let warp_aggregate: i32 = reduce_add_sync(member_mask, partial);

    // Update outputs and block_aggregate with warp-wide aggregates from lane-0s
    apply_warp_aggregates(warp_aggregates, linear_tid, lane_id, warp_id, warp_aggregate, num_valid)
}

#[kernel]
pub fn cub_block_reduce(d_in: &[i32], d_out: &mut [i32]) {
    // Shared memory (BlockReduceWarpReductions' TempStorage: the warp aggregates; WarpReduceShfl
    // needs none)
    let temp_storage = shared_array![i32; WARPS as usize];

    // Per-thread tile data
    let mut data = [0i32; ITEMS_PER_THREAD];
    load_direct_striped(thread_idx().x as i32, d_in, block_idx().x as i32 * TILE, &mut data);

    // Compute sum
    let aggregate: i32 = block_reduce_sum(temp_storage, &data);

    // Store aggregate
    if thread_idx().x == 0 {
        d_out[block_idx().x] = aggregate;
    }
}

struct BlockReduce {
    x: Vec<i32>,
    dx: DeviceBuffer<i32>,
    dout: DeviceBuffer<i32>,
    want: Vec<i32>,
}

impl BlockReduce {
    fn make(size: Size) -> Box<dyn Case> {
        let tiles = match size {
            Size::Test => 16,
            Size::Bench => 256,
        };
        // The example's input: i % 17.
        let x: Vec<i32> = (0..tiles * TILE as usize).map(|i| (i % 17) as i32).collect();
        Box::new(BlockReduce {
            dx: DeviceBuffer::from_slice(&x).unwrap(),
            dout: DeviceBuffer::zeroed(tiles).unwrap(),
            want: vec![0; tiles],
            x,
        })
    }
}

impl Case for BlockReduce {
    fn launch(&mut self) {
        launch!(cub_block_reduce<<<self.want.len() as u32, BLOCK_THREADS as u32>>>(&self.dx, &mut self.dout)).unwrap();
    }
    fn serial(&mut self) {
        for (b, tile) in self.x.chunks(TILE as usize).enumerate() {
            self.want[b] = tile.iter().fold(0i32, |a, &v| a.wrapping_add(v));
        }
    }
    fn check(&mut self) -> Result<(), String> {
        same("aggregates", &self.dout.to_vec().unwrap(), &self.want)
    }
}

// ---------------------------------------------------------------------------------------------
// examples/block/example_block_scan.cu: BlockPrefixSumKernel<256, 4, BLOCK_SCAN_RAKING>, with
// BlockLoad and BlockStore WARP_TRANSPOSE and BlockScanRaking<int, 256, MEMOIZE = false>'s
// ExclusiveScan with an initial value and a block aggregate (what ExclusiveSum calls).

/// BlockRakingLayout::PlacementPtr, as an index into the raking grid.
#[device]
fn placement_ptr(linear_tid: i32) -> i32 {
    let mut offset: i32 = linear_tid;

    if USE_SEGMENT_PADDING > 0 {
        offset += offset / SEGMENT_LENGTH;
    }

    offset
}

/// BlockRakingLayout::RakingPtr, as an index into the raking grid.
#[device]
fn raking_ptr(linear_tid: i32) -> i32 {
    linear_tid * (SEGMENT_LENGTH + USE_SEGMENT_PADDING)
}

/// BlockScanRaking::Upsweep with CopySegment and GuardedReduce.
#[device]
fn upsweep(raking_grid: Shared<i32>, linear_tid: i32, cached_segment: &mut [i32; SEGMENT_LENGTH as usize]) -> i32 {
    let smem_raking_ptr: i32 = raking_ptr(linear_tid);

    // Read data into registers
    for ITERATION in 0..SEGMENT_LENGTH {
        cached_segment[ITERATION as usize] = raking_grid[smem_raking_ptr + ITERATION];
    }

    let mut raking_partial: i32 = cached_segment[0];

    for ITERATION in 1..SEGMENT_LENGTH {
        if UNGUARDED || ((linear_tid * SEGMENT_LENGTH) + ITERATION) < BLOCK_THREADS {
            let addend: i32 = cached_segment[ITERATION as usize];
            raking_partial = raking_partial + addend;
        }
    }

    raking_partial
}

/// BlockScanRaking::ExclusiveDownsweep (not MEMOIZE: the segment is read again).
#[device]
fn exclusive_downsweep(
    raking_grid: Shared<i32>,
    linear_tid: i32,
    cached_segment: &mut [i32; SEGMENT_LENGTH as usize],
    raking_partial: i32,
    apply_prefix: bool,
) {
    let smem_raking_ptr: i32 = raking_ptr(linear_tid);

    // Read data back into registers
    for ITERATION in 0..SEGMENT_LENGTH {
        cached_segment[ITERATION as usize] = raking_grid[smem_raking_ptr + ITERATION];
    }

    // internal::ThreadScanExclusive(cached_segment, cached_segment, scan_op, raking_partial, apply_prefix)
    let mut inclusive: i32 = cached_segment[0];
    if apply_prefix {
        inclusive = raking_partial + inclusive;
    }
    cached_segment[0] = raking_partial;
    let mut exclusive: i32 = inclusive;
    for i in 1..SEGMENT_LENGTH as usize {
        inclusive = exclusive + cached_segment[i];
        cached_segment[i] = exclusive;
        exclusive = inclusive;
    }

    // Write data back to smem
    for ITERATION in 0..SEGMENT_LENGTH {
        raking_grid[smem_raking_ptr + ITERATION] = cached_segment[ITERATION as usize];
    }
}

/// BlockScanRaking::ExclusiveScan(input, output, initial_value, scan_op, block_aggregate).
/// `temp_storage` is BlockScanRaking's: the raking grid, then the block aggregate (the warp
/// scan's storage is empty).
#[device]
fn block_scan_raking_exclusive_scan(
    temp_storage: Shared<i32>,
    input: i32,
    output: &mut i32,
    initial_value: i32,
    block_aggregate: &mut i32,
) {
    let linear_tid: i32 = thread_idx().x as i32;
    let mut cached_segment = [0i32; SEGMENT_LENGTH as usize];

    // Place thread partial into shared memory raking grid
    let raking_grid = temp_storage;
    let placement: i32 = placement_ptr(linear_tid);
    raking_grid[placement] = input;

    sync_threads(); // CTA_SYNC

    // Reduce parallelism down to just raking threads
    if linear_tid < RAKING_THREADS {
        // Raking upsweep reduction across shared partials
        let upsweep_partial: i32 = upsweep(raking_grid, linear_tid, &mut cached_segment);

        // Warp-synchronous scan
        let mut exclusive_partial: i32 = 0;
        warp_scan_exclusive(
            deviceemu::lane_id() as i32,
            upsweep_partial,
            &mut exclusive_partial,
            initial_value,
            block_aggregate,
        );

        // Exclusive raking downsweep scan
        exclusive_downsweep(raking_grid, linear_tid, &mut cached_segment, exclusive_partial, true);

        // Broadcast aggregate to other threads
        if linear_tid == 0 {
            temp_storage[GRID_ELEMENTS] = *block_aggregate;
        }
    }

    sync_threads(); // CTA_SYNC

    // Grab exclusive partial from shared memory
    *output = raking_grid[placement];

    // Retrieve block aggregate
    *block_aggregate = temp_storage[GRID_ELEMENTS];
}

#[kernel]
pub fn cub_block_scan(d_in: &[i32], d_out: &mut [i32], d_aggregates: &mut [i32]) {
    // Shared memory: the union of BlockLoad's, BlockStore's (BlockExchange: TILE ints) and
    // BlockScanRaking's (the raking grid, then the block aggregate) storage.
    let temp_storage = shared_array![i32; TILE as usize];
    let load = temp_storage;
    let store = temp_storage;
    let scan = temp_storage;

    let linear_tid: i32 = thread_idx().x as i32;
    let block_offset: i32 = block_idx().x as i32 * TILE;

    // Per-thread tile data
    let mut data = [0i32; ITEMS_PER_THREAD];

    // Load items into a blocked arrangement (BlockLoad WARP_TRANSPOSE: LoadDirectWarpStriped,
    // then WarpStripedToBlocked)
    let mut striped = [0i32; ITEMS_PER_THREAD];
    load_direct_warp_striped(linear_tid, d_in, block_offset, &mut striped);
    warp_striped_to_blocked(load, linear_tid, &striped, &mut data);

    // Barrier for smem reuse
    sync_threads();

    // Compute exclusive prefix sum (ExclusiveSum: initial value 0)
    let mut aggregate: i32 = 0;
    let initial_value: i32 = 0;
    let thread_prefix_in: i32 = thread_reduce(&data);
    let mut thread_prefix: i32 = 0;
    block_scan_raking_exclusive_scan(scan, thread_prefix_in, &mut thread_prefix, initial_value, &mut aggregate);
    let input = data;
    thread_scan_exclusive(&input, &mut data, thread_prefix, true);

    // Barrier for smem reuse
    sync_threads();

    // Store items from a blocked arrangement (BlockStore WARP_TRANSPOSE: BlockedToWarpStriped,
    // then StoreDirectWarpStriped)
    let blocked = data;
    blocked_to_warp_striped(store, linear_tid, &blocked, &mut data);
    store_direct_warp_striped(linear_tid, d_out, block_offset, &data);

    // Store aggregate
    if thread_idx().x == 0 {
        d_aggregates[block_idx().x] = aggregate;
    }
}

struct BlockScan {
    x: Vec<i32>,
    dx: DeviceBuffer<i32>,
    dout: DeviceBuffer<i32>,
    dagg: DeviceBuffer<i32>,
    want: Vec<i32>,
    want_agg: Vec<i32>,
}

impl BlockScan {
    fn make(size: Size) -> Box<dyn Case> {
        let tiles = match size {
            Size::Test => 16,
            Size::Bench => 64,
        };
        let x: Vec<i32> = Rng::new(50).u32s(tiles * TILE as usize, 100).into_iter().map(|v| v as i32).collect();
        Box::new(BlockScan {
            dx: DeviceBuffer::from_slice(&x).unwrap(),
            dout: DeviceBuffer::zeroed(x.len()).unwrap(),
            dagg: DeviceBuffer::zeroed(tiles).unwrap(),
            want: vec![0; x.len()],
            want_agg: vec![0; tiles],
            x,
        })
    }
}

impl Case for BlockScan {
    fn launch(&mut self) {
        launch!(cub_block_scan<<<self.want_agg.len() as u32, BLOCK_THREADS as u32>>>(&self.dx, &mut self.dout, &mut self.dagg)).unwrap();
    }
    fn serial(&mut self) {
        for (b, tile) in self.x.chunks(TILE as usize).enumerate() {
            let mut acc = 0i32;
            for (j, &v) in tile.iter().enumerate() {
                self.want[b * TILE as usize + j] = acc;
                acc = acc.wrapping_add(v);
            }
            self.want_agg[b] = acc;
        }
    }
    fn check(&mut self) -> Result<(), String> {
        same("prefix sums", &self.dout.to_vec().unwrap(), &self.want)?;
        same("aggregates", &self.dagg.to_vec().unwrap(), &self.want_agg)
    }
}
