//! What the watchdog compares to tell a loop that computes from one that spins: a fingerprint
//! of the device memory kernels can write (`sched/progress.rs`, "Progress").
//!
//! Every emulator allocation of a [`DeviceBuffer`](super::buffer::DeviceBuffer) and every
//! `#[device_global]` static a kernel has used is registered here, by address and size; the
//! fingerprint is a hash of all their bytes (and of a block's shared arena, which its caller
//! adds), read with relaxed atomic word loads while kernels may write them. Two equal
//! fingerprints taken some time apart mean that no kernel wrote a different value meanwhile (up
//! to a 64-bit hash collision); a write of the value already there is not seen, and neither is
//! memory outside these (a host buffer, a thread's locals).
//!
//! Cost: one pass over all registered memory, at about memory bandwidth, made only when a
//! block has gone `EMU_TIMEOUT / 2` seconds without a thread starting or exiting and without a
//! block of its launch ending (at most once per such half-period and launch: the launch keeps
//! the last one). Untouched pages of a large buffer are read as zero pages.
//!
//! Invariant: a region stays registered only while its memory is valid; a buffer's storage
//! removes itself before it frees its memory, under the lock the fingerprint holds while it
//! reads.

use std::sync::Mutex;

/// The registered regions: (base address, bytes).
static REGIONS: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());

/// Registers `bytes` bytes at `base`, valid until [`forget`] (or forever, for a static).
pub(crate) fn register(base: usize, bytes: usize) {
    if bytes == 0 {
        return;
    }
    let mut r = REGIONS.lock().unwrap_or_else(|e| e.into_inner());
    if !r.iter().any(|&(b, _)| b == base) {
        r.push((base, bytes));
    }
}

/// Unregisters the region at `base` (before its memory is freed).
pub(crate) fn forget(base: usize) {
    let mut r = REGIONS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = r.iter().position(|&(b, _)| b == base) {
        r.swap_remove(i);
    }
}

/// The fingerprint of every registered region (in address order, so that it does not depend
/// on the order they were registered in).
pub(crate) fn global() -> u64 {
    let r = REGIONS.lock().unwrap_or_else(|e| e.into_inner());
    let mut sorted: Vec<(usize, usize)> = r.clone();
    sorted.sort_unstable();
    sorted.iter().fold(0x5EED, |h, &(base, bytes)| {
        // SAFETY: a registered region is valid for reads of `bytes` bytes while it is
        // registered, and we hold the lock that its removal takes; kernels write it only with
        // relaxed atomics, stores of the same kind as these loads, or `copy_to_device`.
        unsafe { super::memory::fingerprint(base as *const u8, bytes, h) }
    })
}
