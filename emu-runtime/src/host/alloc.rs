//! Fallible host allocations for launches: what cannot be allocated is an error 2
//! ([`Error::HostMemory`]) naming it and the setting to lower, never an abort.
//!
//! Besides the allocator's own refusal, a request larger than the machine's physical memory is
//! refused up front: with overcommit, such an allocation could succeed and then be killed by the
//! kernel's OOM killer once touched.
use std::sync::OnceLock;

use crate::host::report::error::Error;

/// The machine's physical memory in bytes (`usize::MAX` when unknown).
pub(crate) fn physical_memory() -> usize {
    static MEM: OnceLock<usize> = OnceLock::new();
    *MEM.get_or_init(|| {
        // miri does not model `sysconf(_SC_PHYS_PAGES)`: no limit there.
        if cfg!(miri) {
            return usize::MAX;
        }
        // SAFETY: `sysconf` has no preconditions.
        let (pages, page) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
        if pages <= 0 || page <= 0 {
            usize::MAX
        } else {
            (pages as usize).saturating_mul(page as usize)
        }
    })
}

/// The error for `bytes` of `what` that could not be allocated.
#[cold]
pub(crate) fn error(what: impl Into<String>, bytes: usize, hint: &str) -> Error {
    Error::HostMemory { what: what.into(), bytes, hint: hint.to_owned() }
}

/// Refuses `bytes` larger than the machine's physical memory.
pub(crate) fn check(what: impl FnOnce() -> String, bytes: usize, hint: &str) -> Result<(), Error> {
    if bytes > physical_memory() {
        return Err(error(format!("{} (the machine has {} bytes of memory)", what(), physical_memory()), bytes, hint));
    }
    Ok(())
}

/// Allocations at least this big are mapped from the OS, so their zero pages cost nothing
/// until touched (`std::alloc::alloc_zeroed` writes every byte when the alignment exceeds
/// malloc's, which a 4 GiB buffer would pay in full).
const MAPPED_MIN: usize = 1 << 20;

fn mapped(layout: std::alloc::Layout) -> bool {
    cfg!(unix) && layout.size() >= MAPPED_MIN && layout.align() <= 4096
}

/// Zeroed memory for `layout` (non-zero size), or null: mapped lazily when it is big.
pub(crate) fn alloc_zeroed(layout: std::alloc::Layout) -> *mut u8 {
    #[cfg(unix)]
    if mapped(layout) {
        // SAFETY: an anonymous private mapping; no existing memory is affected.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                layout.size(),
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        return if p == libc::MAP_FAILED { std::ptr::null_mut() } else { p.cast() };
    }
    // SAFETY: the caller passes a layout of non-zero size.
    unsafe { std::alloc::alloc_zeroed(layout) }
}

/// Frees what [`alloc_zeroed`] returned.
///
/// # Safety
///
/// `p` must come from [`alloc_zeroed`] with this `layout`, and not be used afterwards.
pub(crate) unsafe fn dealloc(p: *mut u8, layout: std::alloc::Layout) {
    #[cfg(unix)]
    if mapped(layout) {
        // SAFETY: the caller's contract: `p` is a mapping of `layout.size()` bytes.
        unsafe { libc::munmap(p.cast(), layout.size()) };
        return;
    }
    // SAFETY: the caller's contract.
    unsafe { std::alloc::dealloc(p, layout) }
}

/// Grows `v` to `len` elements (copies of `value`), or says what could not be allocated.
pub(crate) fn try_resize<T: Clone>(
    v: &mut Vec<T>,
    len: usize,
    value: T,
    what: impl Fn() -> String,
    hint: &str,
) -> Result<(), Error> {
    if len > v.len() {
        let bytes = len.saturating_mul(std::mem::size_of::<T>());
        check(&what, bytes, hint)?;
        v.try_reserve_exact(len - v.len()).map_err(|_| error(what(), bytes, hint))?;
    }
    v.resize(len, value);
    Ok(())
}

/// A boxed slice of `len` values made by `make`, or says what could not be allocated.
pub(crate) fn try_slice<T>(
    len: usize,
    make: impl FnMut() -> T,
    what: impl Fn() -> String,
    hint: &str,
) -> Result<Box<[T]>, Error> {
    let bytes = len.saturating_mul(std::mem::size_of::<T>());
    check(&what, bytes, hint)?;
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| error(what(), bytes, hint))?;
    v.extend(std::iter::repeat_with(make).take(len));
    Ok(v.into_boxed_slice())
}
