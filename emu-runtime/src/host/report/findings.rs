//! Findings (the bugs a launch found) and their rendering in compute-sanitizer's shape.
//!
//! A finding is structured data; rendering is separate and only happens on the cold path
//! after a launch that found something. Every line starts with `========= ` as in
//! compute-sanitizer's output, and the report ends with `ERROR SUMMARY: N errors`.

use std::fmt::{self, Write as _};
use std::panic::Location;

use crate::device::{Dim3, Space};

/// How many findings a report prints in full; the summary still counts all of them.
pub(crate) const PRINT_LIMIT: usize = 20;

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
        /// The index used.
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
        /// The shared array.
        name: String,
        /// The element of it.
        index: usize,
        /// How many such hazards the block had between these lines.
        count: usize,
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
            Finding::OutOfBounds { .. } => 700,
            Finding::SharedMemoryExceeded { .. } => 701,
            Finding::Panic { .. }
            | Finding::BarrierDivergence { .. }
            | Finding::InvalidWarpMask { .. }
            | Finding::UninitializedAccess { .. }
            | Finding::Race { .. }
            | Finding::StackOverflow { .. } => 719,
        }
    }

    /// The thread the finding is about.
    pub fn thread(&self) -> Dim3 {
        match self {
            Finding::OutOfBounds { thread, .. }
            | Finding::Panic { thread, .. }
            | Finding::BarrierDivergence { thread, .. }
            | Finding::InvalidWarpMask { thread, .. }
            | Finding::UninitializedAccess { thread, .. }
            | Finding::Race { thread, .. }
            | Finding::StackOverflow { thread, .. }
            | Finding::SharedMemoryExceeded { thread, .. } => *thread,
        }
    }

    /// The block the finding is about.
    pub fn block(&self) -> Dim3 {
        match self {
            Finding::OutOfBounds { block, .. }
            | Finding::Panic { block, .. }
            | Finding::BarrierDivergence { block, .. }
            | Finding::InvalidWarpMask { block, .. }
            | Finding::UninitializedAccess { block, .. }
            | Finding::Race { block, .. }
            | Finding::StackOverflow { block, .. }
            | Finding::SharedMemoryExceeded { block, .. } => *block,
        }
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
                         ({bytes} bytes at {base:#x}); the address {address:#x} lies in another row",
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
            Finding::UninitializedAccess { space, access, size, index, len, name, address, at, thread, block, count } => {
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
            Finding::Race { first, first_at, first_thread, first_block, second, second_at, thread, block, name, index, count } => {
                let _ = writeln!(out, "{P} Race reported between {} access at {first_at} and {} access at {second_at}", title(*first), title(*second));
                let _ = writeln!(out, "{P}     in {kernel}, on element {index} of {name}");
                if first_block == block {
                    let _ = writeln!(out, "{P}     by thread {first_thread} and thread {thread} in block {block}, with no sync_threads (or sync_warp) between them");
                } else {
                    let _ = writeln!(out, "{P}     by thread {first_thread} in block {first_block} and thread {thread} in block {block}: blocks of one launch are not ordered (use atomics, or a second launch)");
                }
                if *count > 1 {
                    writeln!(out, "{P}     {count} such hazards in this block between these lines; only the first is shown")
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
#[derive(Clone, Debug)]
pub struct LaunchReport {
    kernel: &'static str,
    findings: Vec<Finding>,
    rendered: String,
}

impl LaunchReport {
    pub(crate) fn new(kernel: &'static str, findings: Vec<Finding>) -> Self {
        let mut rendered = String::new();
        for f in findings.iter().take(PRINT_LIMIT) {
            f.render(kernel, &mut rendered);
        }
        if findings.len() > PRINT_LIMIT {
            let _ = writeln!(
                rendered,
                "========= ... {} more error(s) not shown",
                findings.len() - PRINT_LIMIT
            );
        }
        let n = findings.len();
        let _ = write!(rendered, "========= ERROR SUMMARY: {n} error{}", if n == 1 { "" } else { "s" });
        LaunchReport { kernel, findings, rendered }
    }

    /// The kernel's name.
    pub fn kernel(&self) -> &'static str {
        self.kernel
    }

    /// The findings, sorted by block and thread.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// The error code of the launch: that of its first finding.
    pub fn code(&self) -> i32 {
        self.findings.first().map_or(719, Finding::code)
    }
}

impl fmt::Display for LaunchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.rendered)
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
