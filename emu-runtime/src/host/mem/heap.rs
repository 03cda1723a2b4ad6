//! The emulator's device heap: what `device_malloc` and `device_free` use in a kernel.
//!
//! ```text
//!  arena (heap size bytes, allocated at the first device_malloc, never released)
//!  ┌──────────┬───────┬──────────────┬─────────────────────────────────────────┐
//!  │ block #1 │ free  │ block #3     │ free                                    │
//!  └──────────┴───────┴──────────────┴─────────────────────────────────────────┘
//!  live:  address -> Block { id, bytes, where allocated, its ViewMeta }
//!  free:  offset -> length (first fit, 16-byte granules, neighbours merged on free)
//!  freed: id -> where it was allocated and freed (the last 65536, for use-after-free reports)
//! ```
//!
//! **Why one arena.** A `DevicePtr` is a plain value that kernels store and copy, so views of a
//! block can outlive its `free`. The arena is never returned to the system, so such a view
//! still points into valid memory, which (like all device memory here) is only accessed with
//! relaxed atomics: a use after free is a bug the checks report, never undefined behaviour of
//! the emulator. A block's `ViewMeta` (which memcheck's reports read through views) is leaked
//! for the same reason, about 100 bytes per allocation.
//!
//! **What is checked.** Out-of-bounds indices by memcheck, through the block's view (its
//! length is the allocation's); a `view`, `load`, `store` or `free` of a block that was freed
//! (its id is not live: use after free, double free) or of an address that is no block's:
//! the thread panics with the allocation's and the free's sites and threads. Leaks: the live
//! blocks, listed by [`device_heap_leaks`] and printed at the program's exit.
//!
//! **Size.** CUDA's `cudaLimitMallocHeapSize`: [`set_malloc_heap_size`] before the first
//! allocation (afterwards it is error 1, as CUDA refuses it once a kernel used the heap), else
//! `EMU_MALLOC_HEAP_SIZE` (bytes, with an optional `K`, `M` or `G`), else CUDA's default, 8 MiB.
//! One heap serves the whole program (every emulated device).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::panic::Location;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, Once};

use crate::device::Dim3;
use crate::host::check::view_meta::ViewMeta;
use crate::host::report::error::Error;
use crate::host::report::findings::SourceLocation;

/// CUDA's default `cudaLimitMallocHeapSize`.
pub(crate) const DEFAULT_HEAP_SIZE: usize = 8 << 20;
/// Blocks start at multiples of this (CUDA's `malloc` alignment) and are sized in it.
const GRANULE: usize = 16;
/// How many freed blocks are remembered for use-after-free reports.
const FREED_KEPT: usize = 1 << 16;

/// The size asked for with `set_malloc_heap_size` (0: not asked).
static ASKED: AtomicUsize = AtomicUsize::new(0);
static HEAP: Mutex<Option<Heap>> = Mutex::new(None);
static AT_EXIT: Once = Once::new();

/// Who called: the GPU thread and its block (None: host code).
type Caller = Option<(Dim3, Dim3)>;

struct Block {
    id: u64,
    bytes: usize,
    /// Offset and length of the granules it holds.
    span: (usize, usize),
    at: &'static Location<'static>,
    by: Caller,
    /// Its leaked `ViewMeta`'s address (a `ViewMeta` holds raw pointers, so not `Sync`).
    meta: usize,
}

struct Freed {
    bytes: usize,
    at: &'static Location<'static>,
    by: Caller,
    freed_at: &'static Location<'static>,
    freed_by: Caller,
}

struct Heap {
    base: usize,
    size: usize,
    free: BTreeMap<usize, usize>,
    live: HashMap<u64, Block>,
    freed: HashMap<u64, Freed>,
    freed_order: VecDeque<u64>,
    next_id: u64,
    names: HashMap<(&'static str, u32, u32), &'static str>,
}

fn lock() -> MutexGuard<'static, Option<Heap>> {
    HEAP.lock().unwrap_or_else(|e| e.into_inner())
}

/// `EMU_MALLOC_HEAP_SIZE`: bytes, with an optional `K`, `M` or `G` (powers of 1024).
fn size_from_env() -> Option<usize> {
    let v = std::env::var("EMU_MALLOC_HEAP_SIZE").ok()?;
    let v = v.trim();
    let (num, mul) = match v.chars().last()?.to_ascii_uppercase() {
        'K' => (&v[..v.len() - 1], 1 << 10),
        'M' => (&v[..v.len() - 1], 1 << 20),
        'G' => (&v[..v.len() - 1], 1 << 30),
        _ => (v, 1),
    };
    num.trim().parse::<usize>().ok().and_then(|n| n.checked_mul(mul)).filter(|&n| n > 0)
}

/// The heap's size: set, or what the first allocation will use.
pub(crate) fn heap_size() -> usize {
    if let Some(h) = lock().as_ref() {
        return h.size;
    }
    size_to_make()
}

/// The size a heap made now gets (the caller may hold the lock).
fn size_to_make() -> usize {
    match ASKED.load(Ordering::Relaxed) {
        0 => size_from_env().unwrap_or(DEFAULT_HEAP_SIZE),
        n => n,
    }
}

/// `cudaDeviceSetLimit(cudaLimitMallocHeapSize, bytes)` for the emulator: refused (error 1)
/// once the heap exists.
pub(crate) fn set_heap_size(bytes: usize) -> Result<(), Error> {
    let heap = lock();
    if heap.is_some() {
        return Err(Error::InvalidValue {
            message: "the device heap's size is fixed once a kernel has allocated from it: set it \
                      (set_malloc_heap_size or EMU_MALLOC_HEAP_SIZE) before the first device_malloc, as CUDA wants \
                      cudaLimitMallocHeapSize set before the first launch that uses malloc"
                .into(),
        });
    }
    if bytes == 0 {
        return Err(Error::InvalidValue { message: "the device heap's size must be more than 0 bytes".into() });
    }
    ASKED.store(bytes, Ordering::Relaxed);
    Ok(())
}

/// CUDA's `cudaDeviceSetLimit(cudaLimitMallocHeapSize, bytes)`: the size of the heap that
/// kernels' [`device_malloc`](crate::device::device_malloc) allocates from. In the emulator it
/// must be set before the first allocation (error 1 afterwards, as CUDA refuses it once a
/// kernel has used the heap); with the GPU as the target it is also the GPU context's limit.
/// Without it the size is `EMU_MALLOC_HEAP_SIZE` (bytes, or with `K`, `M`, `G`), else CUDA's
/// default of 8 MiB.
pub fn set_malloc_heap_size(bytes: usize) -> Result<(), Error> {
    #[cfg(feature = "gpu")]
    if crate::host::config::effective()?.get_target() == crate::host::config::Target::Gpu {
        crate::gpu::set_malloc_heap_size(bytes)?;
    }
    set_heap_size(bytes)
}

/// CUDA's `cudaDeviceGetLimit(cudaLimitMallocHeapSize)`: the emulator's device heap size, in
/// bytes (set, or what the first allocation will use).
pub fn malloc_heap_size() -> usize {
    heap_size()
}

fn round_up(x: usize, to: usize) -> usize {
    x.div_ceil(to) * to
}

impl Heap {
    fn new() -> Option<Heap> {
        let size = round_up(size_to_make(), GRANULE);
        let layout = std::alloc::Layout::from_size_align(size, 4096).ok()?;
        let base = crate::host::alloc::alloc_zeroed(layout);
        if base.is_null() {
            return None;
        }
        let mut free = BTreeMap::new();
        free.insert(0, size);
        Some(Heap {
            base: base as usize,
            size,
            free,
            live: HashMap::new(),
            freed: HashMap::new(),
            freed_order: VecDeque::new(),
            next_id: 1,
            names: HashMap::new(),
        })
    }

    /// First fit: the offset of `len` bytes aligned to `align`, taken from the free ranges.
    fn take(&mut self, len: usize, align: usize) -> Option<(usize, usize)> {
        let (&off, &flen, start) = self.free.iter().find_map(|(off, flen)| {
            let start = round_up(self.base + off, align) - self.base;
            (start + len <= off + flen).then_some((off, flen, start))
        })?;
        self.free.remove(&off);
        if start > off {
            self.free.insert(off, start - off);
        }
        if start + len < off + flen {
            self.free.insert(start + len, off + flen - start - len);
        }
        Some((start, len))
    }

    /// Gives the range back, merged with its free neighbours.
    fn give(&mut self, (mut off, mut len): (usize, usize)) {
        if let Some((&p, &plen)) = self.free.range(..off).next_back() {
            if p + plen == off {
                self.free.remove(&p);
                off = p;
                len += plen;
            }
        }
        if let Some(&nlen) = self.free.get(&(off + len)) {
            self.free.remove(&(off + len));
            len += nlen;
        }
        self.free.insert(off, len);
    }

    fn name(&mut self, at: &'static Location<'static>) -> &'static str {
        self.names
            .entry((at.file(), at.line(), at.column()))
            .or_insert_with(|| Box::leak(format!("device_malloc at {}:{}", at.file(), at.line()).into_boxed_str()))
    }

    /// The live block at `addr` with serial `id`.
    fn block(&self, addr: u64, id: u64) -> Option<&Block> {
        self.live.get(&id).filter(|b| (self.base + b.span.0) as u64 == addr)
    }
}

fn who(c: Caller) -> String {
    match c {
        Some((t, b)) => format!("thread ({},{},{}) in block ({},{},{})", t.x, t.y, t.z, b.x, b.y, b.z),
        None => "host code".to_owned(),
    }
}

/// A block of `bytes` aligned to `align`: its address and serial, or `None` when the heap has
/// no room (or could not be made).
pub(crate) fn alloc(bytes: usize, align: usize, at: &'static Location<'static>, by: Caller) -> Option<(u64, u64)> {
    let mut guard = lock();
    if guard.is_none() {
        *guard = Some(Heap::new()?);
        AT_EXIT.call_once(|| {
            // SAFETY: `print_leaks_at_exit` is an `extern "C" fn()` that does not unwind
            // (it catches panics).
            unsafe { libc::atexit(print_leaks_at_exit) };
        });
    }
    let heap = guard.as_mut()?;
    let len = round_up(bytes.max(1), GRANULE);
    let span = heap.take(len, align.max(GRANULE))?;
    let id = heap.next_id;
    heap.next_id += 1;
    let addr = heap.base + span.0;
    let name = heap.name(at);
    // Leaked: views of the block may outlive its free (see the module doc).
    let meta = Box::leak(Box::new(ViewMeta::new(name, None, addr, bytes))) as *const ViewMeta as usize;
    heap.live.insert(id, Block { id, bytes, span, at, by, meta });
    Some((addr as u64, id))
}

/// The description of a use of a block that is not live.
#[cold]
#[inline(never)]
fn not_live(heap: &Heap, what: &str, addr: u64, id: u64, at: &'static Location<'static>, by: Caller) -> String {
    match heap.freed.get(&id) {
        Some(f) => format!(
            "device heap: {what} of a block already freed (use after free): {} bytes at {addr:#x}, allocated at {} by {}, \
             freed at {} by {}; this {what} at {} by {}",
            f.bytes,
            SourceLocation::from(f.at),
            who(f.by),
            SourceLocation::from(f.freed_at),
            who(f.freed_by),
            SourceLocation::from(at),
            who(by)
        ),
        None if id != 0 && id < heap.next_id => format!(
            "device heap: {what} of a block already freed (use after free) at {addr:#x}, by {} at {}",
            who(by),
            SourceLocation::from(at)
        ),
        None => format!(
            "device heap: {what} of {addr:#x}, which device_malloc did not return, by {} at {}",
            who(by),
            SourceLocation::from(at)
        ),
    }
}

/// Frees the block `addr` with serial `id`; a block not live panics with the sites.
#[track_caller]
pub(crate) fn free(addr: u64, id: u64, at: &'static Location<'static>, by: Caller) {
    let mut guard = lock();
    let Some(heap) = guard.as_mut() else {
        drop(guard);
        panic!(
            "device heap: free of {addr:#x}, which device_malloc did not return, by {} at {}",
            who(by),
            SourceLocation::from(at)
        );
    };
    if heap.block(addr, id).is_none() {
        let m = not_live(heap, "free", addr, id, at, by);
        drop(guard);
        panic!("{m}");
    }
    let b = heap.live.remove(&id).expect("checked above");
    heap.give(b.span);
    heap.freed.insert(b.id, Freed { bytes: b.bytes, at: b.at, by: b.by, freed_at: at, freed_by: by });
    heap.freed_order.push_back(b.id);
    if heap.freed_order.len() > FREED_KEPT {
        if let Some(old) = heap.freed_order.pop_front() {
            heap.freed.remove(&old);
        }
    }
}

/// The description of the live block `addr` with serial `id`, for a view of it; a block not
/// live panics with the sites.
#[track_caller]
pub(crate) fn meta(addr: u64, id: u64, at: &'static Location<'static>, by: Caller) -> *const ViewMeta {
    let guard = lock();
    let found = guard.as_ref().map(|h| h.block(addr, id).map(|b| b.meta as *const ViewMeta));
    match found {
        Some(Some(m)) => m,
        Some(None) => {
            let m = not_live(guard.as_ref().expect("some"), "use", addr, id, at, by);
            drop(guard);
            panic!("{m}");
        }
        None => {
            drop(guard);
            panic!(
                "device heap: use of {addr:#x}, which device_malloc did not return, by {} at {}",
                who(by),
                SourceLocation::from(at)
            );
        }
    }
}

/// A block of the device heap that was allocated and not freed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeapLeak {
    /// Its address.
    pub address: u64,
    /// The bytes asked for.
    pub bytes: usize,
    /// Where `device_malloc` was called.
    pub allocated_at: SourceLocation,
    /// The GPU thread and block that allocated it (`None`: host code).
    pub thread_block: Option<(Dim3, Dim3)>,
}

impl std::fmt::Display for HeapLeak {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "========= Leaked {} bytes at {:#x} on the device heap\n=========     allocated by device_malloc at {} by {}",
            self.bytes,
            self.address,
            self.allocated_at,
            who(self.thread_block)
        )
    }
}

/// The blocks of the device heap that are allocated and not freed, oldest first: what the
/// program's exit reports as leaks (compute-sanitizer's `--leak-check full`).
pub fn device_heap_leaks() -> Vec<HeapLeak> {
    let guard = lock();
    let Some(heap) = guard.as_ref() else { return Vec::new() };
    let mut blocks: Vec<&Block> = heap.live.values().collect();
    blocks.sort_by_key(|b| b.id);
    blocks
        .into_iter()
        .map(|b| HeapLeak {
            address: (heap.base + b.span.0) as u64,
            bytes: b.bytes,
            allocated_at: SourceLocation::from(b.at),
            thread_block: b.by,
        })
        .collect()
}

/// The leak report: each leaked block, then the summary (empty when nothing leaked).
pub(crate) fn leak_report(leaks: &[HeapLeak]) -> String {
    if leaks.is_empty() {
        return String::new();
    }
    let mut s = String::new();
    for l in leaks {
        s += &format!("{l}\n");
    }
    let bytes: usize = leaks.iter().map(|l| l.bytes).sum();
    s += &format!(
        "========= LEAK SUMMARY: {bytes} bytes leaked in {} device_malloc allocations (never freed)\n",
        leaks.len()
    );
    s
}

extern "C" fn print_leaks_at_exit() {
    let _ = std::panic::catch_unwind(|| {
        let report = leak_report(&device_heap_leaks());
        if !report.is_empty() {
            eprint!("{report}");
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn here() -> &'static Location<'static> {
        Location::caller()
    }

    #[test]
    fn blocks_are_aligned_reused_merged_and_checked() {
        let at = here();
        let (a, ia) = alloc(10, 4, at, None).unwrap();
        let (b, ib) = alloc(100, 8, at, None).unwrap();
        assert_eq!(a % 16, 0);
        assert_eq!(b % 16, 0);
        assert_ne!(a, b);
        assert!(!meta(a, ia, at, None).is_null());
        free(a, ia, at, None);
        // The freed block's serial is not live any more, even when its address is reused.
        let uaf = std::panic::catch_unwind(|| meta(a, ia, here(), None)).unwrap_err();
        let msg = uaf.downcast_ref::<String>().unwrap();
        assert!(msg.contains("use after free") && msg.contains("freed at") && msg.contains("heap.rs"), "{msg}");
        let double = std::panic::catch_unwind(|| free(a, ia, here(), None)).unwrap_err();
        assert!(double.downcast_ref::<String>().unwrap().contains("free of a block already freed"));
        let bogus = std::panic::catch_unwind(|| meta(a + 8, 999_999_999, here(), None)).unwrap_err();
        assert!(bogus.downcast_ref::<String>().unwrap().contains("did not return"));
        assert!(device_heap_leaks().iter().any(|l| l.address == b && l.bytes == 100));
        free(b, ib, at, None);
        assert!(!device_heap_leaks().iter().any(|l| l.address == b));
        // More than the heap holds: None, as CUDA's malloc returns NULL.
        assert!(alloc(heap_size() + 1, 16, at, None).is_none());
        assert!(set_heap_size(1 << 20).is_err(), "fixed once the heap exists");
    }

    #[test]
    fn the_leak_report_names_each_block_and_sums_them() {
        let leak = HeapLeak {
            address: 0x1000,
            bytes: 400,
            allocated_at: SourceLocation { file: "k.rs".into(), line: 3, column: 9 },
            thread_block: Some((Dim3::new(3, 0, 0), Dim3::new(1, 0, 0))),
        };
        let r = leak_report(&[leak.clone(), leak]);
        assert!(r.starts_with("========= Leaked 400 bytes at 0x1000 on the device heap\n"), "{r}");
        assert!(r.contains("allocated by device_malloc at k.rs:3:9 by thread (3,0,0) in block (1,0,0)"), "{r}");
        assert!(
            r.ends_with("========= LEAK SUMMARY: 800 bytes leaked in 2 device_malloc allocations (never freed)\n"),
            "{r}"
        );
    }
}
