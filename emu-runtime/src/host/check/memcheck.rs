//! memcheck: accesses outside the memory a view covers.
//!
//! # Algorithm
//!
//! There is no shadow: every element access of a view (`View::get`, `set`, indexing, atomics)
//! compares its index with the view's length before it touches memory (`check_index` in
//! `device/backend/host.rs`), always, whatever `EMU_CHECK` says: the emulator's memory safety
//! rests on it, since a view's pointer is only valid for `len` elements. An index past the end
//! is reported here with the view's description (the kernel parameter's name, or the
//! `__shared__` array's declaration), the address and the allocation's bounds, in
//! compute-sanitizer's words, and the thread stops there, as if it had exited. The block's
//! other threads carry on, so every faulting thread counts one error, as under
//! compute-sanitizer, where a faulting thread stops at its first fault (on an H200 with
//! `--destroy-on-device-error kernel`, 10^6 threads that each make two faulting writes count
//! 1,000,000 errors; `tools/probes/RESULTS.md`). The launch returns the report (error 700).
//!
//! A thread stops by unwinding, which costs microseconds. So past the first 256 faults of a
//! launch (`UNWIND_LIMIT` in `sched/launch.rs`) a faulting
//! thread is only marked *faulted*: the access does nothing (a load gives zero bits), its later
//! faults and findings are dropped, and it stops at its next barrier, warp collective or loop
//! progress point. What it computes until then is not defined, as memory after a faulting
//! launch is not on the GPU (the context is lost there): its stores and atomics on in-bounds
//! memory still happen. A fault's report is built only if it is among the lowest (block,
//! thread) of the launch, which the report stores (`report::LaunchFindings`). So a launch in
//! which every thread faults costs about what a clean one does, in bounded memory
//! (`benches/failures.rs`).
//!
//! The description ([`ViewMeta`]) is made by the launcher for each buffer parameter and by the
//! shared arena for each shared array; it also carries initcheck's and racecheck's shadows of
//! the allocation, when those checkers are on.

use core::panic::Location;

use crate::device::Space;
use crate::host::check::{Fault, Site};
use crate::host::report::{Access, Finding, SourceLocation};

/// What a view points into, for reports: the allocation's name, base address and size.
#[doc(hidden)]
#[derive(Debug)]
pub struct ViewMeta {
    /// The kernel parameter's name, or a description of the shared array.
    pub name: &'static str,
    /// Where a shared array was declared (`None` for kernel parameters).
    pub declared_at: Option<(&'static str, u32)>,
    /// Address of the allocation's first byte.
    pub base: usize,
    /// Size of the allocation in bytes.
    pub bytes: usize,
    /// The allocation's initcheck shadow when the launch checks it (null: not checked).
    pub(crate) init: *const crate::host::check::initcheck::InitBits,
    /// racecheck's shadow of a buffer for the launch, when it checks races.
    pub(crate) race: Option<Box<crate::host::check::racecheck::GlobalRaceShadow>>,
    /// The bytes each shadow record of a global buffer covers: the alignment of its element
    /// type, so that the elements of arrays (`t[r][c]`) are told apart.
    pub(crate) granule: usize,
    /// The size of an element of the buffer or array (0: unknown, dynamic shared memory), and
    /// the lengths of the arrays nested in it (`DeviceCopy::__EMU_DIMS`): what turns an
    /// address into `t[2][1]`.
    pub(crate) elem_size: usize,
    pub(crate) dims: [usize; 3],
    /// The `let` binding a shared array was declared with (`None`: not known).
    pub(crate) binding: Option<&'static str>,
}

impl ViewMeta {
    /// The shadow records (`granule`-byte units) that `size` bytes at `address` cover.
    #[inline]
    pub(crate) fn granules(&self, address: usize, size: usize) -> std::ops::Range<usize> {
        let g = self.granule.max(1);
        if g.is_power_of_two() {
            let shift = g.trailing_zeros();
            let first = (address - self.base) >> shift;
            return first..first + ((size + g - 1) >> shift);
        }
        let first = (address - self.base) / g;
        first..first + size.div_ceil(g)
    }
}

impl ViewMeta {
    /// The description of a buffer parameter or shared array, without an initcheck shadow.
    pub(crate) fn new(name: &'static str, declared_at: Option<(&'static str, u32)>, base: usize, bytes: usize) -> Self {
        ViewMeta {
            name,
            declared_at,
            base,
            bytes,
            init: std::ptr::null(),
            race: None,
            granule: 1,
            elem_size: 0,
            dims: [0; 3],
            binding: None,
        }
    }

    /// The same, for elements of type `T`.
    pub(crate) fn of<T: crate::device::DeviceCopy>(mut self) -> Self {
        self.elem_size = std::mem::size_of::<T>();
        self.dims = T::__EMU_DIMS;
        self
    }

    /// The element that an access of `size` bytes at `address` touches, as the kernel indexes
    /// it: `` `t[2][1]` `` (the name, then one index per array level the access lies in), or
    /// `element 17` where the shape or the name is not known.
    pub(crate) fn element(&self, address: usize, size: usize) -> String {
        let offset = address.wrapping_sub(self.base);
        let name = match self.declared_at {
            None => Some(self.name),
            Some(_) => self.binding,
        };
        let (Some(name), true) = (name, self.elem_size > 0) else {
            return format!("element {}", offset / size.max(1));
        };
        let mut unit = self.elem_size;
        let mut s = format!("`{name}[{}]", offset / unit);
        let mut rest = offset % unit;
        for &d in self.dims.iter().take_while(|&&d| d > 0) {
            let sub = unit / d;
            if sub < size.max(1) || sub == 0 {
                break;
            }
            s += &format!("[{}]", rest / sub);
            rest %= sub;
            unit = sub;
        }
        s.push('`');
        s
    }
}

/// How reports name what a view points into.
pub(crate) fn describe(meta: &ViewMeta) -> String {
    match meta.declared_at {
        Some((file, line)) => match meta.binding {
            Some(b) => format!("__shared__ array declared at {file}:{line} (`{b}`)"),
            None => format!("__shared__ array declared at {file}:{line}"),
        },
        None => format!("`{}`", meta.name),
    }
}

/// How a view refers to its allocation's description (null when it has none).
#[doc(hidden)]
pub type MetaPtr = *const ViewMeta;

/// Reports an out-of-bounds access by the running GPU thread and marks it faulted (the caller
/// then skips the access; a load gives zero bits): an access of `size` bytes at index `index`
/// of a view of `len` elements of `stride` bytes at `view_base` (the stride is the size but
/// for a row index of `t[i][j]`, where it is the row's).
///
/// `site` is the running block (`None` outside a kernel: a view used from host code, then this
/// is an ordinary panic).
#[inline]
#[allow(clippy::too_many_arguments)]
pub(crate) fn out_of_bounds<S: Site + ?Sized>(
    site: Option<&S>,
    meta: *const ViewMeta,
    space: Space,
    access: Access,
    size: usize,
    stride: usize,
    index: usize,
    len: usize,
    view_base: usize,
    at: &'static Location<'static>,
) {
    let Some(ctx) = site else {
        // SAFETY: a view's meta pointer is either null or points to a `ViewMeta` that outlives
        // the launch (kept by the launcher or the block's shared arena).
        let name = unsafe { meta.as_ref() }.map_or("<view>", |m| m.name);
        panic!("index {index} out of bounds for `{name}` of length {len}");
    };
    // First the count: a fault past what the launch stores costs nothing more.
    match ctx.fault() {
        Fault::Repeat => return,
        Fault::Report => report(ctx, meta, space, access, size, stride, index, len, view_base, at),
        Fault::Count => {}
    }
    ctx.after_fault();
}

/// Builds and stores the report of a fault that the launch keeps.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn report<S: Site + ?Sized>(
    ctx: &S,
    meta: *const ViewMeta,
    space: Space,
    access: Access,
    size: usize,
    stride: usize,
    index: usize,
    len: usize,
    view_base: usize,
    at: &'static Location<'static>,
) {
    // SAFETY: as in `out_of_bounds`.
    let meta = unsafe { meta.as_ref() };
    let (name, base, bytes) = match meta {
        Some(m) => (m.name, m.base, m.bytes),
        None => ("<view>", view_base, len * stride),
    };
    let address = view_base.wrapping_add(index.wrapping_mul(stride));
    ctx.keep_fault(Finding::OutOfBounds {
        space,
        access,
        size,
        index,
        len,
        name: match meta {
            Some(m) => describe(m),
            None => format!("`{name}`"),
        },
        address,
        base,
        bytes,
        at: SourceLocation::from(at),
        thread: ctx.thread(),
        block: ctx.block_idx(),
    })
}


/// Reports an access through a view whose start is misaligned for the element type (a
/// `View::cast` of an offset start) by the running GPU thread, and unwinds it, as the GPU
/// faults with cudaErrorMisalignedAddress (716).
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn misaligned<S: Site + ?Sized>(
    site: Option<&S>,
    meta: *const ViewMeta,
    space: Space,
    access: Access,
    size: usize,
    index: usize,
    view_base: usize,
    at: &'static Location<'static>,
) -> ! {
    // SAFETY: as in `out_of_bounds`.
    let meta = unsafe { meta.as_ref() };
    let address = view_base.wrapping_add(index.wrapping_mul(size));
    let name = meta.map_or_else(|| "`<view>`".to_owned(), describe);
    let Some(ctx) = site else {
        panic!("misaligned access of size {size} at {address:#x} through a cast view of {name}");
    };
    ctx.fail(Finding::MisalignedAddress {
        space,
        access,
        size,
        index,
        name,
        address,
        at: SourceLocation::from(at),
        thread: ctx.thread(),
        block: ctx.block_idx(),
    })
}

/// memcheck's report of an access of element `index` (of `size` bytes) through a view of
/// shared memory whose block has ended (its stamp is stale, `mem/stamp.rs`): counted and
/// reported as a fault; the caller skips the access. `what` describes the view without its
/// description, which may be gone with its arena. Outside a kernel it is a panic.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn stale<S: Site + ?Sized>(
    site: Option<&S>,
    space: Space,
    access: Access,
    size: usize,
    index: usize,
    what: String,
    address: usize,
    at: &'static Location<'static>,
) {
    let Some(ctx) = site else {
        panic!("{what}, a view of shared memory, was used at {at} after the block that made it ended");
    };
    match ctx.fault() {
        Fault::Repeat => return,
        Fault::Report => ctx.keep_fault(Finding::StaleView {
            space,
            access,
            size,
            index,
            name: what,
            address,
            at: SourceLocation::from(at),
            thread: ctx.thread(),
            block: ctx.block_idx(),
        }),
        Fault::Count => {}
    }
    ctx.after_fault();
}

/// The description of a `#[device_global]` static, made once and kept for the whole program
/// (views of the static point to it from any launch).
#[derive(Debug)]
pub(crate) struct StaticMeta(ViewMeta);

// SAFETY: a static's description has no initcheck shadow (its pointer is null, never
// dereferenced); its racecheck shadow is records behind mutexes; the rest is plain data.
unsafe impl Sync for StaticMeta {}
// SAFETY: as above.
unsafe impl Send for StaticMeta {}

impl StaticMeta {
    /// The description of `bytes` bytes at `base` named `name`, whose shadow records cover
    /// `granule` bytes each; with racecheck's shadow when `race`.
    pub(crate) fn new(name: &'static str, base: usize, bytes: usize, granule: usize, race: bool) -> Self {
        let mut m = ViewMeta::new(name, None, base, bytes);
        m.granule = granule.max(1);
        if race {
            m.race = Some(Box::new(crate::host::check::racecheck::GlobalRaceShadow::new(bytes / m.granule, name)));
        }
        StaticMeta(m)
    }

    /// The pointer views carry.
    pub(crate) fn as_ptr(&self) -> MetaPtr {
        &self.0
    }
}
