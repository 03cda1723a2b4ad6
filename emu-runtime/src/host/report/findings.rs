//! Findings (the bugs a launch found) and their rendering in compute-sanitizer's shape.
//!
//! A finding is structured data; rendering is separate and only happens on the cold path
//! after a launch that found something. Every line starts with `========= ` as in
//! compute-sanitizer's output, and the report ends with `ERROR SUMMARY: N errors`.

use std::fmt::{self, Write as _};
use std::panic::Location;

use crate::device::{Dim3, Space};

/// A point in the user's source.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SourceLocation {
    /// The file, as `file!()` spells it.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

impl From<&Location<'_>> for SourceLocation {
    fn from(l: &Location<'_>) -> Self {
        SourceLocation { file: l.file().to_owned(), line: l.line(), column: l.column() }
    }
}

impl fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// The kind of a memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// A load (`x[i]`).
    Read,
    /// A store (`x[i] = v`).
    Write,
    /// An atomic read-modify-write (`x.atomic_add(i, v)`).
    Atomic,
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Access::Read => "read",
            Access::Write => "write",
            Access::Atomic => "atomic",
        })
    }
}

/// One bug found while running a kernel.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Finding {
    /// An access outside the bounds of a buffer or shared array (memcheck; error 700).
    OutOfBounds {
        /// Global or shared memory.
        space: Space,
        /// Read, write or atomic.
        access: Access,
        /// Size of the access in bytes.
        size: usize,
        /// The index used; a negative index (of a signed type) is its two's complement, above
        /// `isize::MAX`, and the report shows it as the negative value.
        index: usize,
        /// The number of elements of the view.
        len: usize,
        /// What was indexed: a parameter name in backquotes, or a shared array's declaration.
        name: String,
        /// The address the access would have touched.
        address: usize,
        /// Base address of the allocation.
        base: usize,
        /// Size of the allocation in bytes.
        bytes: usize,
        /// Where the access is in the kernel's source.
        at: SourceLocation,
        /// The thread that made it.
        thread: Dim3,
        /// Its block.
        block: Dim3,
    },
    /// An access through a view whose address is not aligned for its element type (a
    /// `View::cast` of an offset start; memcheck; error 716, cudaErrorMisalignedAddress).
    MisalignedAddress {
        /// Global or shared memory.
        space: Space,
        /// Read, write or atomic.
        access: Access,
        /// Size of the access in bytes.
        size: usize,
        /// The index used.
        index: usize,
        /// What was accessed: a parameter name in backquotes, or a shared array's declaration.
        name: String,
        /// The misaligned address.
        address: usize,
        /// Where the access is in the kernel's source.
        at: SourceLocation,
        /// The thread that made it.
        thread: Dim3,
        /// Its block.
        block: Dim3,
    },
    /// An access through a view of shared memory kept past the end of the block that made it
    /// (in a `static`, a `thread_local!`, a leaked box): the memory belongs to another block
    /// now, or to nobody (memcheck; error 700).
    StaleView {
        /// Shared memory (global views cannot outlive their launch).
        space: Space,
        /// Read, write or atomic.
        access: Access,
        /// Size of the access in bytes.
        size: usize,
        /// The index used.
        index: usize,
        /// The view: its length and element type (its description may be gone with its block).
        name: String,
        /// The address the access would have touched.
        address: usize,
        /// Where the access is in the kernel's source.
        at: SourceLocation,
        /// The thread that made it.
        thread: Dim3,
        /// Its block.
        block: Dim3,
    },
    /// A panic in kernel code: `unwrap` on `None`, overflow in a debug build, `panic!` (719).
    Panic {
        /// The panic message.
        message: String,
        /// Where it panicked, if known.
        at: Option<SourceLocation>,
        /// The thread that panicked.
        thread: Dim3,
        /// Its block.
        block: Dim3,
    },
    /// Threads of a block that are still running did not all reach the same barrier (synccheck;
    /// error 719).
    BarrierDivergence {
        /// `true` when threads of one warp disagree, `false` when whole warps do.
        in_warp: bool,
        /// The barrier the report is about.
        at: SourceLocation,
        /// The first thread involved in the divergence.
        thread: Dim3,
        /// The block.
        block: Dim3,
        /// One line per group of threads: where they wait, or where they exited.
        groups: Vec<String>,
        /// Whether the block was stopped (`true` for a deadlock) or ran on.
        deadlock: bool,
    },
    /// A read (or atomic) of memory nothing has written (initcheck; error 719). Reported once
    /// per block and call site.
    UninitializedAccess {
        /// Global or shared memory.
        space: Space,
        /// Read or atomic.
        access: Access,
        /// Size of the access in bytes.
        size: usize,
        /// The index used.
        index: usize,
        /// The number of elements of the view.
        len: usize,
        /// What was read: a parameter name in backquotes, or a shared array's declaration.
        name: String,
        /// The address read.
        address: usize,
        /// Where the access is in the kernel's source.
        at: SourceLocation,
        /// The first thread of the block that made it.
        thread: Dim3,
        /// Its block.
        block: Dim3,
        /// How many such accesses the block made at this line.
        count: usize,
    },
    /// Two threads of a block accessed the same shared-memory byte with no barrier between
    /// them, at least one writing (racecheck; error 719). Reported once per block and pair of
    /// lines.
    Race {
        /// What the earlier access did.
        first: Access,
        /// Where it is.
        first_at: SourceLocation,
        /// The thread that made it.
        first_thread: Dim3,
        /// Its block.
        first_block: Dim3,
        /// What the later access did.
        second: Access,
        /// Where it is.
        second_at: SourceLocation,
        /// The thread that made the later access.
        thread: Dim3,
        /// Their block.
        block: Dim3,
        /// The shared array or buffer.
        name: String,
        /// The element of it (the index into the view the later access used).
        index: usize,
        /// The element as the kernel indexes it, every index included (`` `t[2][1]` ``), or
        /// `element N` where the array's name or shape is not known.
        element: String,
        /// How many such hazards the block had between these lines.
        count: usize,
        /// Whether it is a *warp-synchronous* hazard: volatile accesses (which are atomics, so
        /// never a data race) of lanes of one warp that no `sync_warp`, barrier or fence
        /// orders, as pre-Volta code that counts on a warp's lanes running in lockstep makes
        /// them. compute-sanitizer's racecheck reports these as warnings; deviceemu reports
        /// them as hazards, headed `Warning: (Warp Level Programming)`.
        warp_synchronous: bool,
    },
    /// A warp collective whose mask does not name the calling lane (synccheck; error 719).
    InvalidWarpMask {
        /// The collective (`shfl_sync`, `ballot_sync`, ...).
        op: &'static str,
        /// The mask it was given.
        mask: u32,
        /// The calling lane.
        lane: u32,
        /// Where it was called.
        at: SourceLocation,
        /// The calling thread.
        thread: Dim3,
        /// Its block.
        block: Dim3,
    },
    /// A GPU thread overflowed its fiber stack (error 719).
    StackOverflow {
        /// The thread.
        thread: Dim3,
        /// Its block.
        block: Dim3,
        /// The stack size it had, in bytes.
        stack_size: usize,
    },
    /// The launch made no progress for `EMU_TIMEOUT` seconds: no thread exited or passed a
    /// barrier or warp collective and no block ended, while this block's threads looped
    /// (the watchdog; error 702, `cudaErrorLaunchTimeout`).
    LaunchTimeout {
        /// Where the thread that noticed the timeout was looping.
        at: SourceLocation,
        /// That thread.
        thread: Dim3,
        /// Its block.
        block: Dim3,
        /// The watchdog's limit, in seconds.
        seconds: f64,
        /// The setting that limit comes from: `EMU_TIMEOUT` (no progress for that long) or
        /// `EMU_LAUNCH_TIMEOUT` (the launch's wall-clock bound).
        limit: &'static str,
        /// One line per group of live threads of the block (what they do and where), then
        /// what the watchdog saw.
        groups: Vec<String>,
    },
    /// A `this_grid().sync()` that can never complete (error 719): in a launch that is not
    /// cooperative (`launch_cooperative!`), or while blocks of the grid have exited without
    /// reaching it. On a GPU the first is undefined and the second hangs.
    GridSync {
        /// The grid sync the block's threads wait at.
        at: SourceLocation,
        /// The lowest of them.
        thread: Dim3,
        /// Their block.
        block: Dim3,
        /// What is wrong, and what to do.
        problem: String,
    },
    /// A misuse of the device runtime (dynamic parallelism) that CUDA leaves undefined or
    /// rejects: a device stream or event used by a block or grid that did not create it, or
    /// `device_synchronize()` in a kernel on the sm_90 (CDP2) profile (error 719; the call
    /// itself returns 400 or 801).
    DeviceRuntime {
        /// What was wrong, in one line.
        problem: String,
        /// Where the object came from, or what to do instead.
        detail: String,
        /// The call.
        at: SourceLocation,
        /// The calling thread.
        thread: Dim3,
        /// Its block.
        block: Dim3,
    },
    /// The block's shared arrays need more shared memory than the launch may use (error 701).
    SharedMemoryExceeded {
        /// Bytes needed by the static arrays seen so far plus the dynamic bytes.
        requested: usize,
        /// The limit.
        limit: usize,
        /// The `shared_array!` that went over.
        at: SourceLocation,
        /// The thread that evaluated it.
        thread: Dim3,
        /// Its block.
        block: Dim3,
    },
}

/// `Read` or `Write`, as compute-sanitizer's race reports spell them.
fn title(a: Access) -> &'static str {
    match a {
        Access::Read => "Read",
        Access::Write => "Write",
        Access::Atomic => "Atomic",
    }
}

impl Finding {
    /// The CUDA runtime error code a launch with this finding returns.
    pub fn code(&self) -> i32 {
        match self {
            Finding::OutOfBounds { .. } | Finding::StaleView { .. } => 700,
            Finding::MisalignedAddress { .. } => 716,
            Finding::SharedMemoryExceeded { .. } => 701,
            Finding::LaunchTimeout { .. } => 702,
            Finding::Panic { .. }
            | Finding::BarrierDivergence { .. }
            | Finding::InvalidWarpMask { .. }
            | Finding::UninitializedAccess { .. }
            | Finding::Race { .. }
            | Finding::StackOverflow { .. }
            | Finding::GridSync { .. }
            | Finding::DeviceRuntime { .. } => 719,
        }
    }

    /// The thread the finding is about.
    pub fn thread(&self) -> Dim3 {
        match self {
            Finding::OutOfBounds { thread, .. }
            | Finding::StaleView { thread, .. }
            | Finding::MisalignedAddress { thread, .. }
            | Finding::Panic { thread, .. }
            | Finding::BarrierDivergence { thread, .. }
            | Finding::InvalidWarpMask { thread, .. }
            | Finding::UninitializedAccess { thread, .. }
            | Finding::Race { thread, .. }
            | Finding::StackOverflow { thread, .. }
            | Finding::SharedMemoryExceeded { thread, .. }
            | Finding::GridSync { thread, .. }
            | Finding::DeviceRuntime { thread, .. }
            | Finding::LaunchTimeout { thread, .. } => *thread,
        }
    }

    /// The block the finding is about.
    pub fn block(&self) -> Dim3 {
        match self {
            Finding::OutOfBounds { block, .. }
            | Finding::StaleView { block, .. }
            | Finding::MisalignedAddress { block, .. }
            | Finding::Panic { block, .. }
            | Finding::BarrierDivergence { block, .. }
            | Finding::InvalidWarpMask { block, .. }
            | Finding::UninitializedAccess { block, .. }
            | Finding::Race { block, .. }
            | Finding::StackOverflow { block, .. }
            | Finding::SharedMemoryExceeded { block, .. }
            | Finding::GridSync { block, .. }
            | Finding::DeviceRuntime { block, .. }
            | Finding::LaunchTimeout { block, .. } => *block,
        }
    }

    /// A short name for the kind of bug, as `EMU_REPORT` writes it: `out_of_bounds`, `panic`,
    /// `stale_view`, `misaligned_address`, `barrier_divergence`, `uninitialized_access`, `race`, `invalid_warp_mask`,
    /// `stack_overflow`, `shared_memory_exceeded`, `launch_timeout`, `grid_sync`, `device_runtime`.
    pub fn kind(&self) -> &'static str {
        match self {
            Finding::OutOfBounds { .. } => "out_of_bounds",
            Finding::StaleView { .. } => "stale_view",
            Finding::MisalignedAddress { .. } => "misaligned_address",
            Finding::Panic { .. } => "panic",
            Finding::BarrierDivergence { .. } => "barrier_divergence",
            Finding::UninitializedAccess { .. } => "uninitialized_access",
            Finding::Race { .. } => "race",
            Finding::InvalidWarpMask { .. } => "invalid_warp_mask",
            Finding::StackOverflow { .. } => "stack_overflow",
            Finding::SharedMemoryExceeded { .. } => "shared_memory_exceeded",
            Finding::LaunchTimeout { .. } => "launch_timeout",
            Finding::GridSync { .. } => "grid_sync",
            Finding::DeviceRuntime { .. } => "device_runtime",
        }
    }

    /// Where in the kernel's source the finding is (for a race, the later access), if known.
    pub fn location(&self) -> Option<&SourceLocation> {
        match self {
            Finding::OutOfBounds { at, .. }
            | Finding::StaleView { at, .. }
            | Finding::MisalignedAddress { at, .. }
            | Finding::BarrierDivergence { at, .. }
            | Finding::UninitializedAccess { at, .. }
            | Finding::InvalidWarpMask { at, .. }
            | Finding::SharedMemoryExceeded { at, .. }
            | Finding::GridSync { at, .. }
            | Finding::DeviceRuntime { at, .. }
            | Finding::LaunchTimeout { at, .. } => Some(at),
            Finding::Race { second_at, .. } => Some(second_at),
            Finding::Panic { at, .. } => at.as_ref(),
            Finding::StackOverflow { .. } => None,
        }
    }

    /// The address accessed, for out-of-bounds and uninitialised accesses.
    pub fn address(&self) -> Option<usize> {
        match self {
            Finding::OutOfBounds { address, .. }
            | Finding::StaleView { address, .. }
            | Finding::MisalignedAddress { address, .. }
            | Finding::UninitializedAccess { address, .. } => Some(*address),
            _ => None,
        }
    }

    /// How many accesses this one finding stands for (races and uninitialised reads are
    /// reported once per block and line); 1 for the others.
    pub fn count(&self) -> usize {
        match self {
            Finding::UninitializedAccess { count, .. } | Finding::Race { count, .. } => *count,
            _ => 1,
        }
    }

    /// Whether this is a racecheck or initcheck finding (what `EMU_CHECK_ACTION=report` lets
    /// pass).
    pub(crate) fn is_hazard(&self) -> bool {
        matches!(self, Finding::Race { .. } | Finding::UninitializedAccess { .. })
    }

    /// The first line of the rendered finding, without compute-sanitizer's prefix.
    fn headline(&self, kernel: &str) -> String {
        let mut s = String::new();
        self.render(kernel, &mut s);
        s.lines().next().unwrap_or("").trim_start_matches('=').trim().to_owned()
    }

    fn render(&self, kernel: &str, out: &mut String) {
        const P: &str = "=========";
        let _ = match self {
            Finding::OutOfBounds { space, access, size, index, len, name, address, base, bytes, at, thread, block } => {
                let _ = writeln!(out, "{P} Invalid {space} {access} of size {size} bytes");
                let _ = writeln!(out, "{P}     at {kernel} in {at}");
                let _ = writeln!(out, "{P}     by thread {thread} in block {block}");
                let inside = *address >= *base && *address < base.saturating_add(*bytes);
                if inside {
                    // A column index past the end of a row of `t[r][c]`: the address is still
                    // inside the array (compute-sanitizer would not see it), but Rust indexing
                    // is checked per dimension.
                    writeln!(
                        out,
                        "{P}     index {index} is past the end of a row of {len} element{} of {name} \
                         ({bytes} bytes at {base:#x}); the address {address:#x} lies in another row (or \
                         outside the slice passed as the parameter)",
                        if *len == 1 { "" } else { "s" }
                    )
                } else if *index > isize::MAX as usize {
                    // A negative index (`Index` makes it its two's complement): shown as the
                    // value the kernel computed.
                    let _ = writeln!(out, "{P}     Address {address:#x} is out of bounds");
                    writeln!(
                        out,
                        "{P}     index {} is before the start of {name}, which has {len} element{} \
                         ({bytes} bytes at {base:#x})",
                        *index as isize,
                        if *len == 1 { "" } else { "s" }
                    )
                } else {
                    let _ = writeln!(out, "{P}     Address {address:#x} is out of bounds");
                    writeln!(
                        out,
                        "{P}     index {index} is past the end of {name}, which has {len} element{} \
                         ({bytes} bytes at {base:#x})",
                        if *len == 1 { "" } else { "s" }
                    )
                }
            }
            Finding::StaleView { space, access, size, index, name, address, at, thread, block } => {
                let _ = writeln!(out, "{P} Invalid {space} {access} of size {size} bytes");
                let _ = writeln!(out, "{P}     at {kernel} in {at}");
                let _ = writeln!(out, "{P}     by thread {thread} in block {block}");
                let _ = writeln!(out, "{P}     Address {address:#x} is out of bounds");
                writeln!(
                    out,
                    "{P}     element {index} of {name}, a view of shared memory made by a block that has ended: \
                     shared memory lives as long as its block, and a view kept past it (in a `static`, a \
                     `thread_local!` or a leaked box) points to memory that another block, or nobody, owns now"
                )
            }
            Finding::MisalignedAddress { space, access, size, index, name, address, at, thread, block } => {
                let _ = writeln!(out, "{P} Invalid {space} {access} of size {size} bytes");
                let _ = writeln!(out, "{P}     at {kernel} in {at}");
                let _ = writeln!(out, "{P}     by thread {thread} in block {block}");
                let _ = writeln!(out, "{P}     Address {address:#x} is misaligned");
                writeln!(
                    out,
                    "{P}     element {index} of a cast view of {name}: the view starts at an address that is not \
                     a multiple of its element type's alignment; cast at an aligned offset"
                )
            }
            Finding::DeviceRuntime { problem, detail, at, thread, block } => {
                let _ = writeln!(out, "{P} Device runtime error: {problem}");
                let _ = writeln!(out, "{P}     at {kernel} in {at}");
                let _ = writeln!(out, "{P}     by thread {thread} in block {block}");
                writeln!(out, "{P}     {detail}")
            }
            Finding::Panic { message, at, thread, block } => {
                let _ = writeln!(out, "{P} Kernel panic: {message}");
                let _ = match at {
                    Some(at) => writeln!(out, "{P}     at {kernel} in {at}"),
                    None => writeln!(out, "{P}     in {kernel}"),
                };
                writeln!(out, "{P}     by thread {thread} in block {block}")
            }
            Finding::BarrierDivergence { in_warp, at, thread, block, groups, deadlock } => {
                let scope = if *in_warp { "warp" } else { "block" };
                let _ = writeln!(out, "{P} Barrier error detected. Divergent thread(s) in {scope}");
                let _ = writeln!(out, "{P}     at {kernel} in {at}");
                let _ = writeln!(out, "{P}     by thread {thread} in block {block}");
                for g in groups {
                    let _ = writeln!(out, "{P}     {g}");
                }
                if *deadlock {
                    writeln!(out, "{P}     the block cannot continue (it would hang on a GPU); it was stopped")
                } else {
                    Ok(())
                }
            }
            Finding::UninitializedAccess {
                space,
                access,
                size,
                index,
                len,
                name,
                address,
                at,
                thread,
                block,
                count,
            } => {
                let what = if *access == Access::Atomic { "atomic" } else { "read" };
                let _ = writeln!(out, "{P} Uninitialized {space} memory {what} of size {size} bytes");
                let _ = writeln!(out, "{P}     at {kernel} in {at}");
                let _ = writeln!(out, "{P}     by thread {thread} in block {block}");
                let _ = writeln!(out, "{P}     Address {address:#x}");
                let source = if *space == Space::Global {
                    "it comes from DeviceBuffer::uninit and no kernel or copy has written it"
                } else {
                    "no thread of this block has written it"
                };
                let _ = writeln!(out, "{P}     element {index} of {name} ({len} elements): {source}");
                if *count > 1 {
                    writeln!(out, "{P}     {count} such accesses by this block at this line; only the first is shown")
                } else {
                    Ok(())
                }
            }
            Finding::Race {
                first,
                first_at,
                first_thread,
                second,
                second_at,
                thread,
                block,
                name,
                element,
                count,
                warp_synchronous: true,
                ..
            } => {
                let kind = match (first, second) {
                    (Access::Write, Access::Write) => "WAW",
                    (Access::Write, _) => "RAW",
                    _ => "WAR",
                };
                let _ = writeln!(
                    out,
                    "{P} Warning: (Warp Level Programming) Potential {kind} hazard between {} access at {first_at} and {} access at {second_at}",
                    title(*first),
                    title(*second)
                );
                let _ = writeln!(out, "{P}     in {kernel}, on {element} of {name}");
                let _ = writeln!(
                    out,
                    "{P}     by thread {first_thread} and thread {thread} of one warp in block {block}: their volatile accesses \
                     are ordered only if the warp's lanes run in lockstep, which they need not since Volta; put \
                     sync_warp(mask) between them"
                );
                if *count > 1 {
                    writeln!(
                        out,
                        "{P}     {count} such hazards in this block between these lines; only the first is shown"
                    )
                } else {
                    Ok(())
                }
            }
            Finding::Race {
                first,
                first_at,
                first_thread,
                first_block,
                second,
                second_at,
                thread,
                block,
                name,
                element,
                count,
                ..
            } => {
                let _ = writeln!(
                    out,
                    "{P} Race reported between {} access at {first_at} and {} access at {second_at}",
                    title(*first),
                    title(*second)
                );
                let _ = writeln!(out, "{P}     in {kernel}, on {element} of {name}");
                if first_block == block {
                    let _ = writeln!(out, "{P}     by thread {first_thread} and thread {thread} in block {block}, with no sync_threads (or sync_warp) between them");
                } else {
                    let _ = writeln!(out, "{P}     by thread {first_thread} in block {first_block} and thread {thread} in block {block}: blocks of one launch are not ordered (use atomics, or a second launch)");
                }
                if *count > 1 {
                    writeln!(
                        out,
                        "{P}     {count} such hazards in this block between these lines; only the first is shown"
                    )
                } else {
                    Ok(())
                }
            }
            Finding::InvalidWarpMask { op, mask, lane, at, thread, block } => {
                let _ = writeln!(out, "{P} Barrier error detected. Invalid arguments");
                let _ = writeln!(out, "{P}     at {kernel} in {at}");
                let _ = writeln!(out, "{P}     by thread {thread} in block {block}");
                writeln!(
                    out,
                    "{P}     {op} was called with mask {mask:#010x}, which does not name the calling lane {lane}; \
                     the mask must include every lane that calls it (e.g. FULL_MASK, or ballot_sync of the \
                     branch's condition)"
                )
            }
            Finding::StackOverflow { thread, block, stack_size } => {
                let _ = writeln!(out, "{P} Stack overflow in {kernel}");
                let _ = writeln!(out, "{P}     by thread {thread} in block {block}");
                writeln!(
                    out,
                    "{P}     the thread used more than its {} KiB fiber stack; set EMU_STACK_SIZE \
                     (e.g. EMU_STACK_SIZE=4M) or Config::stack_size to give it more",
                    stack_size / 1024
                )
            }
            Finding::LaunchTimeout { at, thread, block, seconds, limit, groups } => {
                if *limit == "EMU_LAUNCH_TIMEOUT" {
                    let _ = writeln!(out, "{P} Launch timeout: the launch ran for {seconds} s ({limit})");
                } else {
                    let _ = writeln!(out, "{P} Launch timeout: no progress for {seconds} s ({limit})");
                }
                let _ = writeln!(out, "{P}     at {kernel} in {at}");
                let _ = write!(out, "{P}     by thread {thread} in block {block}");
                for g in groups {
                    let _ = write!(out, "\n{P}     {g}");
                }
                writeln!(out)
            }
            Finding::GridSync { at, thread, block, problem } => {
                let _ = writeln!(out, "{P} Grid sync error: {problem}");
                let _ = writeln!(out, "{P}     at {kernel} in {at}");
                writeln!(out, "{P}     by thread {thread} in block {block}")
            }
            Finding::SharedMemoryExceeded { requested, limit, at, thread, block } => {
                let _ = writeln!(out, "{P} Too much shared memory requested: {requested} bytes, limit {limit} bytes");
                let _ = writeln!(out, "{P}     at {kernel} in {at}");
                let _ = writeln!(out, "{P}     by thread {thread} in block {block}");
                writeln!(
                    out,
                    "{P}     make the arrays smaller, or raise the limit with Config::max_shared_bytes \
                     (an H100/H200 allows up to 232448 bytes per block on opt-in)"
                )
            }
        };
        let _ = writeln!(out, "{P}");
    }
}

/// Everything a failed launch found: the findings, sorted by block then thread.
///
/// `Display` is the full compute-sanitizer-shaped report (up to the print limit); `Debug` is
/// one short line: the kernel, the code, the number of findings and where the first one is.
#[derive(Clone)]
pub struct LaunchReport {
    kernel: &'static str,
    findings: Vec<Finding>,
    /// Every finding the launch counted, stored or not.
    total: u64,
    rendered: String,
}

impl LaunchReport {
    /// Renders the report, printing at most `limit` findings in full (0: all). `total` is
    /// how many findings the launch counted: `findings` holds the lowest of them by block and
    /// thread (at least `limit` of them when there are that many), the rest were only counted.
    pub(crate) fn new(kernel: &'static str, findings: Vec<Finding>, total: u64, limit: usize) -> Self {
        let limit = if limit == 0 { usize::MAX } else { limit };
        let total = total.max(findings.len() as u64);
        let mut rendered = String::new();
        let mut shown = 0u64;
        for f in findings.iter().take(limit) {
            f.render(kernel, &mut rendered);
            shown += 1;
        }
        if total > shown {
            let _ = writeln!(
                rendered,
                "========= ... {} more error(s) not shown (EMU_PRINT_LIMIT=0 shows all)",
                total - shown
            );
        }
        let _ = write!(rendered, "========= ERROR SUMMARY: {total} error{}", if total == 1 { "" } else { "s" });
        LaunchReport { kernel, findings, total, rendered }
    }

    /// How many errors the launch found: the `ERROR SUMMARY` count. Each finding counts once:
    /// a faulting GPU thread counts one error (its first faulting access; the thread then
    /// stops, as under compute-sanitizer), and a repeated hazard at one site counts once.
    /// Past the print limit findings are counted but not stored, so this can exceed
    /// `findings().len()`.
    pub fn error_count(&self) -> u64 {
        self.total
    }

    /// The kernel's name.
    pub fn kernel(&self) -> &'static str {
        self.kernel
    }

    /// The findings stored, sorted by block and thread: all of them up to the print limit
    /// (`EMU_PRINT_LIMIT`, `Config::print_limit`; `0` stores every one), the lowest ones by
    /// block and thread past it. [`error_count`](Self::error_count) counts them all.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// The error code of the launch: that of its first finding (by block and thread) that is
    /// not a hazard, else of its first hazard. A fault stops only its thread, so other threads
    /// may then read what the faulting one never wrote (initcheck) or race; the launch still
    /// returns the fault's code, as the GPU would.
    pub fn code(&self) -> i32 {
        self.findings.iter().find(|f| !f.is_hazard()).or(self.findings.first()).map_or(719, Finding::code)
    }
}

impl fmt::Debug for LaunchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("LaunchReport");
        d.field("kernel", &self.kernel).field("code", &self.code()).field("errors", &self.total);
        if let Some(first) = self.findings.first() {
            d.field("first", &format_args!("{:?}", first.headline(self.kernel)));
            if let Some(at) = first.location() {
                d.field("at", &format_args!("{at}"));
            }
            d.field("thread", &format_args!("{}", first.thread())).field("block", &format_args!("{}", first.block()));
        }
        d.finish()
    }
}

impl fmt::Display for LaunchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.rendered)
    }
}

// ---------------------------------------------------------------------------------------------
// Where reports go: compute-sanitizer's conventions.
//
// * `EMU_LOG_FILE=path`: reports (and the exit summary) are written to `path` (truncated at the
//   first report of the process) instead of stderr.
// * `EMU_REPORT=path.json`: every finding is also written to `path` as one JSON object per
//   line (JSON Lines, truncated at the first finding of the process); the README gives the
//   schema.
// * `EMU_ERROR_EXITCODE=N`: when any launch of the process found errors, the process exits
//   with `N` (through an `atexit` hook registered at the first launch).
// * A checked program (`EMU_CHECK`, `EMU_ERROR_EXITCODE` or `EMU_REPORT` set) prints a final
//   `========= ERROR SUMMARY: N errors` at exit, also when N is 0.
// * [`quietly`] silences a host thread's reports (for property tests that shrink).
// ---------------------------------------------------------------------------------------------

use std::cell::Cell;
use std::fs::File;
use std::io::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, Once, OnceLock};

use crate::host::report::error::Error;

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with the reports of the launches it makes on this host thread silenced: nothing
/// is printed, logged or written to `EMU_REPORT`, and their findings do not count for
/// `EMU_ERROR_EXITCODE` or the exit summary. The launches still return their errors (with the
/// full report in `Display`). Restores the previous setting, also if `f` panics.
///
/// `deviceemu::testing` runs proptest's shrinking under it, then re-runs the minimal case loud.
pub fn quietly<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            QUIET.with(|q| q.set(self.0));
        }
    }
    let _restore = Restore(QUIET.with(|q| q.replace(true)));
    f()
}

/// Whether this host thread's reports are silenced ([`quietly`]): the device runtime carries
/// it to the threads that run child grids.
pub(crate) fn is_quiet() -> bool {
    QUIET.with(Cell::get)
}

/// Findings of every loud launch of the process.
static ERRORS: AtomicUsize = AtomicUsize::new(0);
static HOOK: Once = Once::new();

struct Outputs {
    log: Option<Mutex<File>>,
    json: Option<Mutex<File>>,
    exit_code: Option<i32>,
    checked: bool,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn create(variable: &str, path: &str) -> Option<Mutex<File>> {
    match File::create(path) {
        Ok(f) => Some(Mutex::new(f)),
        Err(e) => {
            eprintln!("deviceemu: cannot create {variable}={path}: {e}; writing to stderr instead");
            None
        }
    }
}

/// The process-wide output settings, read once.
fn outputs() -> &'static Outputs {
    static OUT: OnceLock<Outputs> = OnceLock::new();
    OUT.get_or_init(|| {
        // A bad value was refused by every launch (`config::process_settings`): no report
        // reaches here with one.
        let exit_code =
            env("EMU_ERROR_EXITCODE").and_then(|v| v.trim().parse::<i32>().ok().filter(|n| (0..=255).contains(n)));
        let json_path = env("EMU_REPORT");
        Outputs {
            log: env("EMU_LOG_FILE").and_then(|p| create("EMU_LOG_FILE", &p)),
            checked: env("EMU_CHECK").is_some() || exit_code.is_some() || json_path.is_some(),
            json: json_path.and_then(|p| create("EMU_REPORT", &p)),
            exit_code,
        }
    })
}

/// Writes `text` and a newline to the log file, or to stderr.
fn emit(text: &str) {
    match &outputs().log {
        Some(file) => {
            let mut f = file.lock().unwrap_or_else(|e| e.into_inner());
            let _ = writeln!(f, "{text}");
            let _ = f.flush();
        }
        None => eprintln!("{text}"),
    }
}

fn json_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// One finding as a JSON object on one line (the `EMU_REPORT` schema in the README).
pub(crate) fn finding_json(kernel: &str, f: &Finding) -> String {
    let mut o = String::from("{\"kind\":");
    json_str(f.kind(), &mut o);
    let _ = write!(o, ",\"code\":{},\"kernel\":", f.code());
    json_str(kernel, &mut o);
    match f.location() {
        Some(at) => {
            o.push_str(",\"file\":");
            json_str(&at.file, &mut o);
            let _ = write!(o, ",\"line\":{},\"column\":{}", at.line, at.column);
        }
        None => o.push_str(",\"file\":null,\"line\":null,\"column\":null"),
    }
    let (b, t) = (f.block(), f.thread());
    let _ = write!(o, ",\"block\":[{},{},{}],\"thread\":[{},{},{}]", b.x, b.y, b.z, t.x, t.y, t.z);
    match f.address() {
        Some(a) => {
            let _ = write!(o, ",\"address\":{a}");
        }
        None => o.push_str(",\"address\":null"),
    }
    let _ = write!(o, ",\"count\":{},\"message\":", f.count());
    json_str(&f.headline(kernel), &mut o);
    o.push('}');
    o
}

extern "C" fn at_exit() {
    // Nothing may unwind out of an `extern "C"` function.
    let _ = std::panic::catch_unwind(|| {
        let out = outputs();
        let n = ERRORS.load(Ordering::SeqCst);
        if out.checked {
            emit(&format!("========= ERROR SUMMARY: {n} error{}", if n == 1 { "" } else { "s" }));
        }
        if let (Some(code), true) = (out.exit_code, n > 0) {
            let _ = std::io::stdout().flush();
            let _ = std::io::stderr().flush();
            // SAFETY: `_exit` ends the process at once; it is async-signal-safe and does not
            // run the remaining `atexit` handlers (calling `exit` again from one is undefined).
            unsafe { libc::_exit(code) };
        }
    });
}

/// The end of every emulated launch: renders, prints and records the findings, and decides
/// the launch's result (`EMU_CHECK_ACTION`).
///
/// `findings` are the stored findings, sorted; `total` counts every finding, stored or not, and
/// `only_hazards` says whether all of those are hazards.
pub(crate) fn conclude(
    kernel: &'static str,
    print_limit: usize,
    hazards_only_report: bool,
    findings: Vec<Finding>,
    total: u64,
    only_hazards: bool,
) -> Result<(), Error> {
    let loud = !QUIET.with(Cell::get);
    if loud {
        HOOK.call_once(|| {
            let out = outputs();
            if out.checked || out.exit_code.is_some() {
                // SAFETY: `at_exit` is an `extern "C" fn()` that never unwinds.
                unsafe { libc::atexit(at_exit) };
            }
        });
    }
    if findings.is_empty() && total == 0 {
        return Ok(());
    }
    let report_only = hazards_only_report && only_hazards && findings.iter().all(Finding::is_hazard);
    let report = LaunchReport::new(kernel, findings, total, print_limit);
    if loud {
        record(&report);
    }
    if report_only {
        Ok(())
    } else {
        Err(Error::from_report(report))
    }
}

#[cold]
#[inline(never)]
fn record(report: &LaunchReport) {
    ERRORS.fetch_add(usize::try_from(report.total).unwrap_or(usize::MAX), Ordering::SeqCst);
    emit(&report.to_string());
    if let Some(file) = &outputs().json {
        let mut lines = String::new();
        for f in &report.findings {
            lines.push_str(&finding_json(report.kernel, f));
            lines.push('\n');
        }
        let mut f = file.lock().unwrap_or_else(|e| e.into_inner());
        let _ = f.write_all(lines.as_bytes());
        let _ = f.flush();
    }
}

/// Formats sorted linear thread indices as ranges: `threads (0,0,0) to (49,0,0)`.
pub(crate) fn thread_ranges(block_dim: Dim3, linear: &[u32]) -> String {
    let mut out = String::new();
    let mut i = 0;
    let mut shown = 0;
    while i < linear.len() {
        let mut j = i;
        while j + 1 < linear.len() && linear[j + 1] == linear[j] + 1 {
            j += 1;
        }
        if shown == 6 {
            let _ = write!(out, ", and {} more", linear.len() - i);
            break;
        }
        if shown > 0 {
            out.push_str(", ");
        }
        let a = block_dim.unlinear(linear[i] as u64);
        if i == j {
            let _ = write!(out, "{a}");
        } else {
            let b = block_dim.unlinear(linear[j] as u64);
            let _ = write!(out, "{a} to {b}");
        }
        shown += 1;
        i = j + 1;
    }
    let noun = if linear.len() == 1 { "thread" } else { "threads" };
    format!("{noun} {out}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_compress() {
        let d = Dim3::new(64, 1, 1);
        assert_eq!(thread_ranges(d, &[0, 1, 2, 5]), "threads (0,0,0) to (2,0,0), (5,0,0)");
        assert_eq!(thread_ranges(d, &[7]), "thread (7,0,0)");
    }
}
