//! `EMU_PATH=verify`: each launch of a kernel with a fast form runs twice, on the fast form and
//! on the general path, and the two must agree.
//!
//! The fast forms (`emu-macros/src/fission/`) rest on the macro's analyses of the kernel; the
//! general path runs the kernel as written, one GPU thread at a time. So the general path is
//! the reference: [`verify`] snapshots the memory the launch may write (its writable buffer
//! parameters, with their initcheck shadows, and the `#[device_global]` statics its kernel
//! views, [`note_static`]), runs the fast form quietly, keeps what it wrote, puts the memory
//! back, runs the general path, and compares:
//!
//! * the return codes and the reports (findings, in order; where the fast form wrote out
//!   `#[device]` helpers, without the line and column of their `at` lines, [`Lines`]);
//! * every byte of every buffer and static, naming the first element that differs.
//!
//! A difference fails the launch with [`Error::VerifyMismatch`]; otherwise the general run's
//! results stand. A launch in which racecheck finds a race is not compared: the order of its
//! racing accesses decides what each run computes and which pair it reports, and the general
//! run's report names the race. Both runs take their blocks in order (`EMU_BLOCKS=serial`), so that the
//! order of a kernel's atomics between blocks is the same in both; a kernel whose results
//! depend on the order of its threads' racing accesses may still differ, and racecheck finds
//! that race. A kernel that prints prints twice.

use std::cell::Cell;
use std::sync::Mutex;

use crate::device::{DeviceCopy, View, Writable};
use crate::host::check::initcheck;
use crate::host::check::view_meta::ViewMeta;
use crate::host::config::{self, BlockOrder, Config, ExecPath};
use crate::host::report::error::Error;
use crate::host::report::{quietly, Finding};

/// A buffer a launch may write, for [`verify`]: what `#[kernel]`'s launcher hands the fast
/// paths' launch functions for each `&mut [T]` parameter.
#[derive(Debug)]
pub struct Written<'a> {
    name: &'static str,
    ptr: *mut u8,
    bytes: usize,
    elem: usize,
    show: fn(&[u8]) -> String,
    meta: *const ViewMeta,
    view: std::marker::PhantomData<&'a ()>,
}

impl<'a> Written<'a> {
    /// The view `v` of the parameter `name`.
    pub fn of<T: DeviceCopy, K: Writable>(name: &'static str, v: &View<'a, T, K>) -> Self {
        Written {
            name,
            ptr: v.raw_ptr() as *mut u8,
            bytes: v.len() * std::mem::size_of::<T>(),
            elem: std::mem::size_of::<T>().max(1),
            show: show::<T>,
            meta: v.meta(),
            view: std::marker::PhantomData,
        }
    }

    /// A copy of the buffer's bytes.
    fn read(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.bytes];
        // SAFETY: the view covers `bytes` bytes, valid while the launch holds it (`'a`); no
        // kernel runs while verify copies, and bytes of a `DeviceCopy` type are initialised.
        unsafe { crate::host::mem::memory::copy_from_device(self.ptr as *const u8, out.as_mut_ptr(), self.bytes) };
        out
    }

    /// Writes `bytes` (a copy [`Written::read`] made) back.
    fn write(&self, bytes: &[u8]) {
        debug_assert_eq!(bytes.len(), self.bytes);
        // SAFETY: as in `read`; the bytes are those of valid `T`s.
        unsafe { crate::host::mem::memory::copy_to_device(self.ptr, bytes.as_ptr(), self.bytes.min(bytes.len())) };
    }

    /// initcheck's bits of the buffer, when the launch checks it.
    fn init_bits(&self) -> Option<Vec<u64>> {
        // SAFETY: the launcher keeps the description alive while the launch runs.
        let meta = unsafe { self.meta.as_ref() }?;
        // SAFETY: as above: the buffer (and its shadow) is borrowed by the launch.
        unsafe { initcheck::bits(meta).as_ref() }.map(|b| b.snapshot())
    }

    fn set_init_bits(&self, bits: &Option<Vec<u64>>) {
        // SAFETY: as in `init_bits`.
        if let (Some(meta), Some(bits)) = (unsafe { self.meta.as_ref() }, bits) {
            // SAFETY: as in `init_bits`.
            if let Some(b) = unsafe { initcheck::bits(meta).as_ref() } {
                b.restore(bits);
            }
        }
    }
}

/// An element's value for a report: the number for primitives, the bytes otherwise.
fn show<T: DeviceCopy>(b: &[u8]) -> String {
    let ty = std::any::type_name::<T>();
    macro_rules! num {
        ($($t:ty),*) => { $(
            if ty == std::any::type_name::<$t>() && b.len() == std::mem::size_of::<$t>() {
                let v = <$t>::from_ne_bytes(b.try_into().expect("sized above"));
                return format!("{v:?}");
            }
        )* };
    }
    num!(f32, f64, u8, u16, u32, u64, i8, i16, i32, i64, usize, isize);
    format!("{b:02x?}")
}

/// A `#[device_global]` static a kernel may write: its bytes before the fast run, taken when a
/// kernel first views it during a verified launch.
struct Static {
    name: &'static str,
    ptr: usize,
    bytes: usize,
    before: Vec<u8>,
}

/// The statics viewed during the verified launch in progress.
static STATICS: Mutex<Vec<Static>> = Mutex::new(Vec::new());

thread_local! {
    /// Whether this host thread runs the fast run of a verified launch (its blocks run here,
    /// in order).
    static VERIFYING: Cell<bool> = const { Cell::new(false) };
}

/// A kernel views the `#[device_global]` static `name` (`bytes` at `ptr`): during the fast run
/// of a verified launch, its value is kept the first time, to be put back before the general
/// run.
pub(crate) fn note_static(name: &'static str, ptr: usize, bytes: usize) {
    if !VERIFYING.with(Cell::get) {
        return;
    }
    let mut s = STATICS.lock().unwrap_or_else(|e| e.into_inner());
    if s.iter().any(|x| x.ptr == ptr) {
        return;
    }
    let mut before = vec![0u8; bytes];
    // SAFETY: a device global's cell holds `bytes` bytes for the whole program, accessed only
    // by relaxed atomic copies; this is the first view of it in the fast run, before any write.
    unsafe { crate::host::mem::memory::copy_from_device(ptr as *const u8, before.as_mut_ptr(), bytes) };
    s.push(Static { name, ptr, bytes, before });
}

fn read_static(s: &Static) -> Vec<u8> {
    let mut now = vec![0u8; s.bytes];
    // SAFETY: as in `note_static`; no kernel runs now.
    unsafe { crate::host::mem::memory::copy_from_device(s.ptr as *const u8, now.as_mut_ptr(), s.bytes) };
    now
}

fn write_static(s: &Static, bytes: &[u8]) {
    // SAFETY: as in `note_static`; no kernel runs now.
    unsafe { crate::host::mem::memory::copy_to_device(s.ptr as *mut u8, bytes.as_ptr(), s.bytes) };
}

/// Which source lines a fast form's reports name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lines {
    /// The general path's, for every access.
    Same,
    /// The general path's, but for accesses of `#[device]` helpers written out in the region
    /// form (`emu-macros/src/fission/inline.rs`): those name the line of the helper's call in
    /// the kernel, where the general path names the helper's own line. The reports are
    /// compared without the line and column of their `at` lines.
    CallsOfHelpers,
}

/// A report's lines, with `at <kernel> in <file>:<line>:<col>` cut to `at <kernel> in <file>`
/// for [`Lines::CallsOfHelpers`].
fn comparable(report: &str, lines: Lines) -> String {
    if lines == Lines::Same {
        return report.to_owned();
    }
    report
        .lines()
        .map(|l| match l.trim_start_matches('=').trim_start().starts_with("at ") {
            true => l.rsplitn(3, ':').nth(2).unwrap_or(l),
            false => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs a launch on its fast form (`fast`) and on the general path (`general`) and compares
/// them (see the module docs). `taken` names the fast form, for the report, and `lines`
/// whether its reports name the general path's lines.
pub(crate) fn verify(
    kernel: &str,
    taken: &str,
    base: &Config,
    written: &[Written<'_>],
    lines: Lines,
    fast: impl FnOnce() -> Result<(), Error>,
    general: impl FnOnce() -> Result<(), Error>,
) -> Result<(), Error> {
    let serial = base.clone().blocks(BlockOrder::Serial);
    let before: Vec<Vec<u8>> = written.iter().map(Written::read).collect();
    let init_before: Vec<Option<Vec<u64>>> = written.iter().map(Written::init_bits).collect();
    // Statics are noted by one verified launch at a time.
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    STATICS.lock().unwrap_or_else(|e| e.into_inner()).clear();
    VERIFYING.with(|v| v.set(true));
    let r_fast = config::with_config(serial.clone().path(ExecPath::Auto), || quietly(fast));
    VERIFYING.with(|v| v.set(false));
    if INJECT.with(Cell::get) {
        // A fast form that is wrong, for the tests of this comparison: it flipped the first
        // byte of the first buffer it may write.
        if let Some(w) = written.first().filter(|w| w.bytes > 0) {
            let mut b = w.read();
            b[0] ^= 0x01;
            w.write(&b);
        }
    }
    let after_fast: Vec<Vec<u8>> = written.iter().map(Written::read).collect();
    let statics = std::mem::take(&mut *STATICS.lock().unwrap_or_else(|e| e.into_inner()));
    let statics_fast: Vec<Vec<u8>> = statics.iter().map(read_static).collect();
    for ((w, b), i) in written.iter().zip(&before).zip(&init_before) {
        w.write(b);
        w.set_init_bits(i);
    }
    statics.iter().for_each(|s| write_static(s, &s.before));
    let r_general = config::with_config(serial.path(ExecPath::General), general);

    // A race found in either run: the order of the racing accesses decides what each run
    // computed and which pair it reported, so the two may differ; the general run's report
    // stands, and names the race.
    let raced = |r: &Result<(), Error>| {
        r.as_ref()
            .err()
            .and_then(Error::report)
            .is_some_and(|rep| rep.findings().iter().any(|f| matches!(f, Finding::Race { .. })))
    };
    if raced(&r_fast) || raced(&r_general) {
        return r_general;
    }
    let outcome = |r: &Result<(), Error>| match r {
        Ok(()) => "success".to_owned(),
        Err(e) => comparable(&without_addresses(&e.to_string()), lines),
    };
    let (of, og) = (outcome(&r_fast), outcome(&r_general));
    if of != og {
        let k = of.lines().zip(og.lines()).position(|(a, b)| a != b).unwrap_or(0);
        return Err(mismatch(
            kernel,
            format!(
                "the launch's outcome differs: on the {taken} form, {}; on the general path, {} (first differing line: {:?} against {:?})",
                r_fast.as_ref().map_or_else(|e| format!("error {}", e.code()), |_| "success".to_owned()),
                r_general.as_ref().map_or_else(|e| format!("error {}", e.code()), |_| "success".to_owned()),
                of.lines().nth(k).unwrap_or(""),
                og.lines().nth(k).unwrap_or(""),
            ),
        ));
    }
    for (w, f) in written.iter().zip(&after_fast) {
        let g = w.read();
        if let Some(at) = f.iter().zip(&g).position(|(a, b)| a != b) {
            let e = at / w.elem;
            let (lo, hi) = (e * w.elem, ((e + 1) * w.elem).min(f.len()));
            return Err(mismatch(
                kernel,
                format!(
                    "element {e} of `{}` differs: {} on the {taken} form, {} on the general path",
                    w.name,
                    (w.show)(&f[lo..hi]),
                    (w.show)(&g[lo..hi])
                ),
            ));
        }
    }
    for (s, f) in statics.iter().zip(&statics_fast) {
        let g = read_static(s);
        if let Some(at) = f.iter().zip(&g).position(|(a, b)| a != b) {
            return Err(mismatch(
                kernel,
                format!(
                    "byte {at} of `{}` differs: {:#04x} on the {taken} form, {:#04x} on the general path",
                    s.name, f[at], g[at]
                ),
            ));
        }
    }
    r_general
}

thread_local! {
    static INJECT: Cell<bool> = const { Cell::new(false) };
}

/// Makes the fast runs of this host thread's verified launches wrong on purpose (the first
/// byte of their first writable buffer flipped), to test that verify finds it.
pub fn inject_fast_path_fault(on: bool) {
    INJECT.with(|c| c.set(on));
}

/// A report with its addresses (`0x` and eight or more hex digits) blanked: each run has
/// shared arenas of its own, at other addresses.
fn without_addresses(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("0x") {
        out.push_str(&rest[..at]);
        let digits = rest[at + 2..].bytes().take_while(u8::is_ascii_hexdigit).count();
        if digits >= 8 {
            out.push_str("0x…");
        } else {
            out.push_str(&rest[at..at + 2 + digits]);
        }
        rest = &rest[at + 2 + digits..];
    }
    out.push_str(rest);
    out
}

/// One verified launch at a time notes statics.
static ONE: Mutex<()> = Mutex::new(());

fn mismatch(kernel: &str, what: String) -> Error {
    Error::VerifyMismatch { kernel: kernel.to_owned(), message: what }
}

#[cfg(test)]
mod tests {
    use super::{comparable, Lines};

    #[test]
    fn written_out_helpers_are_compared_without_their_lines() {
        let fast = "failed:\n=========     at k in src/a.rs:751:23\n=========     index 9 of `x`";
        let general = "failed:\n=========     at k in src/a.rs:733:29\n=========     index 9 of `x`";
        assert_ne!(comparable(fast, Lines::Same), comparable(general, Lines::Same));
        assert_eq!(comparable(fast, Lines::CallsOfHelpers), comparable(general, Lines::CallsOfHelpers));
        assert_eq!(
            comparable(fast, Lines::CallsOfHelpers),
            "failed:\n=========     at k in src/a.rs\n=========     index 9 of `x`"
        );
        // Anything else still differs.
        let other = "failed:\n=========     at k in src/a.rs:751:23\n=========     index 8 of `x`";
        assert_ne!(comparable(fast, Lines::CallsOfHelpers), comparable(other, Lines::CallsOfHelpers));
    }

    #[test]
    fn addresses_are_blanked_and_short_numbers_kept() {
        let t = "Address 0x7f3dd40052c0 is out of bounds of 0x40 bytes at 0x7f3dd4013540.";
        assert_eq!(super::without_addresses(t), "Address 0x… is out of bounds of 0x40 bytes at 0x….");
    }
}
