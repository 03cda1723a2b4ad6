//! Helpers a debugger can call while a kernel is stopped at a breakpoint.
//!
//! With fibers, gdb and lldb see the worker host threads, not the GPU threads. These
//! `extern "C"` functions tell which GPU thread a stopped host thread is running, and what the
//! other threads of its block are doing:
//!
//! ```text
//! (gdb) break examples/saxpy.rs:7 if deviceemu_thread_idx_x() == 37 && deviceemu_block_idx_x() == 2
//! (gdb) printf "%s\n", deviceemu_where()
//! kernel saxpy, block (2,0,0), thread (37,0,0)
//! (gdb) printf "%s\n", deviceemu_block_threads()
//! ```
//!
//! `tools/gdb/deviceemu.py` wraps them as the commands `emu-where` and `emu-threads`. lldb
//! calls them through the function-pointer statics `DEVICEEMU_WHERE`,
//! `DEVICEEMU_BLOCK_THREADS`, `DEVICEEMU_THREAD_IDX_X` and `DEVICEEMU_BLOCK_IDX_X`:
//! `expr -l c -- (char*)DEVICEEMU_WHERE()`.

// The `deviceemu_*` functions are reached by debuggers through their symbols, not by paths.
#![allow(unreachable_pub)]

use std::cell::RefCell;
use std::ffi::c_char;
use std::fmt::Write as _;

use crate::host::sched::block::State;
use crate::host::sched::context;
use crate::host::report::SourceLocation;

thread_local! {
    static TEXT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

fn publish(s: String) -> *const c_char {
    TEXT.with(|t| {
        let mut t = t.borrow_mut();
        t.clear();
        t.extend_from_slice(s.as_bytes());
        t.push(0);
        t.as_ptr() as *const c_char
    })
}

// The exported functions contain no closures: a closure's debug information is a namespace
// named after its function, which makes lldb call the name ambiguous.

/// Component `c` (0 = x, 1 = y, 2 = z) of the running thread's index (`block` = false) or its
/// block's index, or `u32::MAX` outside kernels.
fn component(block: bool, c: usize) -> u32 {
    if context::current().is_none() {
        return u32::MAX;
    }
    let d = if block { context::block_idx() } else { context::thread_idx() };
    [d.x, d.y, d.z][c]
}

/// `threadIdx.x` of the GPU thread running on this host thread, or `u32::MAX` outside kernels.
#[no_mangle]
pub extern "C" fn deviceemu_thread_idx_x() -> u32 {
    component(false, 0)
}
/// `threadIdx.y`, or `u32::MAX` outside kernels.
#[no_mangle]
pub extern "C" fn deviceemu_thread_idx_y() -> u32 {
    component(false, 1)
}
/// `threadIdx.z`, or `u32::MAX` outside kernels.
#[no_mangle]
pub extern "C" fn deviceemu_thread_idx_z() -> u32 {
    component(false, 2)
}
/// `blockIdx.x` of the GPU thread running on this host thread, or `u32::MAX` outside kernels.
#[no_mangle]
pub extern "C" fn deviceemu_block_idx_x() -> u32 {
    component(true, 0)
}
/// `blockIdx.y`, or `u32::MAX` outside kernels.
#[no_mangle]
pub extern "C" fn deviceemu_block_idx_y() -> u32 {
    component(true, 1)
}
/// `blockIdx.z`, or `u32::MAX` outside kernels.
#[no_mangle]
pub extern "C" fn deviceemu_block_idx_z() -> u32 {
    component(true, 2)
}

/// A NUL-terminated line naming the kernel, block and thread running on this host thread.
/// The text stays valid until the next call on the same host thread.
#[no_mangle]
pub extern "C" fn deviceemu_where() -> *const c_char {
    publish(where_text())
}

fn where_text() -> String {
    match context::current() {
        Some(b) => {
            let mut s = format!("kernel {}, block {}, thread {}", b.launch().kernel.name, b.block_idx(), context::thread_idx());
            // A child grid (device-side launch): who launched it, up to the host's grid.
            if let Some(p) = &b.launch().devrt.parent {
                for line in p.lines() {
                    s.push_str("\n  ");
                    s.push_str(&line);
                }
            }
            s
        }
        None => "no GPU thread is running on this host thread".to_owned(),
    }
}

/// What `emu-where` prints for the running GPU thread (tests).
#[cfg(not(target_arch = "nvptx64"))]
pub(crate) fn where_now() -> String {
    where_text()
}

/// A NUL-terminated list of the threads of the running block and what each is doing
/// (running, waiting at a barrier, exited, not started), one group per line.
#[no_mangle]
pub extern "C" fn deviceemu_block_threads() -> *const c_char {
    publish(block_threads_text())
}

fn block_threads_text() -> String {
    let Some(b) = context::current() else {
        return "no GPU thread is running on this host thread".to_owned();
    };
    let mut groups: Vec<(String, Vec<u32>)> = Vec::new();
    let me = context::thread_idx();
    for (i, s) in b.slots.iter().enumerate() {
        let state = if b.launch().thread_index(i as u32) == me {
            State::Running
        } else {
            b.state_of(i as u32)
        };
        let what = match state {
            State::NotStarted => "not started".to_owned(),
            State::Running => "running (this thread)".to_owned(),
            State::Waiting => format!("waiting at the barrier at {}", s.at.get().map(SourceLocation::from).map_or("?".into(), |l| l.to_string())),
            State::WarpWaiting => format!(
                "waiting in {} at {}",
                b.arrival(i as u32).get().op.name(),
                s.at.get().map(SourceLocation::from).map_or("?".into(), |l| l.to_string())
            ),
            State::Ready => "about to resume after a warp collective".to_owned(),
            State::Spinning => format!(
                "spinning (yielded at the loop at {})",
                s.at.get().map(SourceLocation::from).map_or("?".into(), |l| l.to_string())
            ),
            State::Exited => "exited".to_owned(),
            State::Failed => "failed".to_owned(),
        };
        match groups.iter_mut().find(|(w, _)| *w == what) {
            Some((_, v)) => v.push(i as u32),
            None => groups.push((what, vec![i as u32])),
        }
    }
    let mut out = format!("block {} of kernel {}:\n", b.block_idx(), b.launch().kernel.name);
    for (what, ts) in groups {
        let _ = writeln!(out, "  {}: {what}", crate::host::report::thread_ranges(b.launch().block, &ts));
    }
    out
}

/// Pointers to the helpers, for debuggers that resolve a Rust function's name through its
/// namespace but cannot call it by that name (lldb): `expr -l c -- (char*)DEVICEEMU_WHERE()`.
#[no_mangle]
pub static DEVICEEMU_WHERE: extern "C" fn() -> *const c_char = deviceemu_where;
/// See [`DEVICEEMU_WHERE`].
#[no_mangle]
pub static DEVICEEMU_BLOCK_THREADS: extern "C" fn() -> *const c_char = deviceemu_block_threads;
/// See [`DEVICEEMU_WHERE`].
#[no_mangle]
pub static DEVICEEMU_THREAD_IDX_X: extern "C" fn() -> u32 = deviceemu_thread_idx_x;
/// See [`DEVICEEMU_WHERE`].
#[no_mangle]
pub static DEVICEEMU_BLOCK_IDX_X: extern "C" fn() -> u32 = deviceemu_block_idx_x;

/// Keeps the helpers in the final binary (the linker drops unreferenced functions).
#[inline(never)]
pub(crate) fn keep() {
    let fns: [usize; 8] = [
        deviceemu_thread_idx_x as *const () as usize,
        deviceemu_thread_idx_y as *const () as usize,
        deviceemu_thread_idx_z as *const () as usize,
        deviceemu_block_idx_x as *const () as usize,
        deviceemu_block_idx_y as *const () as usize,
        deviceemu_block_idx_z as *const () as usize,
        deviceemu_where as *const () as usize,
        deviceemu_block_threads as *const () as usize,
    ];
    std::hint::black_box(fns);
    std::hint::black_box((&DEVICEEMU_WHERE, &DEVICEEMU_BLOCK_THREADS, &DEVICEEMU_THREAD_IDX_X, &DEVICEEMU_BLOCK_IDX_X));
}
