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
//! compute-sanitizer's words, and the thread is unwound: its block fails and the launch
//! returns the report.
//!
//! The description ([`ViewMeta`]) is made by the launcher for each buffer parameter and by the
//! shared arena for each shared array; it also carries initcheck's and racecheck's shadows of
//! the allocation, when those checkers are on.

use core::panic::Location;

use crate::device::Space;
use crate::host::check::Site;
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
    pub(crate) fn granules(&self, address: usize, size: usize) -> std::ops::Range<usize> {
        let g = self.granule.max(1);
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

/// Reports an out-of-bounds access by the running GPU thread and unwinds it: an access of
/// `size` bytes at index `index` of a view of `len` elements of `stride` bytes at `view_base`
/// (the stride is the size but for a row index of `t[i][j]`, where it is the row's).
///
/// `site` is the running block (`None` outside a kernel: a view used from host code, then this
/// is an ordinary panic).
#[cold]
#[inline(never)]
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
) -> ! {
    // SAFETY: a view's meta pointer is either null or points to a `ViewMeta` that outlives the
    // launch (kept by the launcher or the block's shared arena).
    let meta = unsafe { meta.as_ref() };
    let (name, base, bytes) = match meta {
        Some(m) => (m.name, m.base, m.bytes),
        None => ("<view>", view_base, len * stride),
    };
    let address = view_base.wrapping_add(index.wrapping_mul(stride));
    let Some(ctx) = site else {
        panic!("index {index} out of bounds for `{name}` of length {len}");
    };
    ctx.fail(Finding::OutOfBounds {
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

