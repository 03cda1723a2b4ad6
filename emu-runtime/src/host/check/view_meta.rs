//! The description of what a view points into (`ViewMeta`): the allocation's name, base,
//! size and element shape, for reports, and the slots to which the checkers attach their
//! shadows of it (initcheck's bits, racecheck's records). A leaf below the checkers: each
//! checker knows its own shadow's type, the description knows none (ARCHITECTURE.md,
//! "Invariants", 3).

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
    /// The allocation's initcheck shadow (`initcheck::InitBits`) when the launch checks it
    /// (null: not checked); initcheck attaches and reads it (`initcheck::attach`, `bits`).
    pub(crate) init: *const (),
    /// racecheck's shadow of a buffer for the launch (`racecheck::GlobalRaceShadow`), when it
    /// checks races; racecheck attaches and reads it (`racecheck::attach`, `shadow_of`).
    pub(crate) race: Option<Box<dyn std::any::Any>>,
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

/// The description of a `#[device_global]` static, made once and kept for the whole program
/// (views of the static point to it from any launch).
#[derive(Debug)]
pub(crate) struct StaticMeta(ViewMeta);

// SAFETY: a static's description has no initcheck shadow (its pointer is null, never
// dereferenced); its racecheck shadow (the only thing `attach` gives it) is records behind
// mutexes; the rest is plain data.
unsafe impl Sync for StaticMeta {}
// SAFETY: as above.
unsafe impl Send for StaticMeta {}

impl StaticMeta {
    /// The description of `bytes` bytes at `base` named `name`, whose shadow records cover
    /// `granule` bytes each; `attach` attaches the checkers' shadows.
    pub(crate) fn new(
        name: &'static str,
        base: usize,
        bytes: usize,
        granule: usize,
        attach: impl FnOnce(&mut ViewMeta),
    ) -> Self {
        let mut m = ViewMeta::new(name, None, base, bytes);
        m.granule = granule.max(1);
        attach(&mut m);
        StaticMeta(m)
    }

    /// The pointer views carry.
    pub(crate) fn as_ptr(&self) -> MetaPtr {
        &self.0
    }
}
