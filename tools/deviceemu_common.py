"""What tools/gdb/deviceemu.py and tools/lldb/deviceemu.py share: the text of emu-where and
emu-threads, built from what each debugger reads in the stopped program's memory (no call into
the program), and the parsing of their arguments.

A debugger script reads a block into a `Block` and a GPU thread into a `Thread`; this module
only formats. The texts are the ones the runtime's `deviceemu_where()` and
`deviceemu_block_threads()` printed when the scripts called them.
"""

# The name of each warp collective, by its `WarpOp` as Rust's `Debug` spells it
# (`emu-runtime/src/host/sched/warp.rs`, `WarpOp::name`; a unit test there checks this table).
WARP_OP_NAMES = {
    "ActiveMask": "active_mask",
    "Sync": "sync_warp",
    "Vote(All)": "all_sync",
    "Vote(Any)": "any_sync",
    "Vote(Ballot)": "ballot_sync",
    "Shfl(Idx)": "shfl_sync",
    "Shfl(Up)": "shfl_up_sync",
    "Shfl(Down)": "shfl_down_sync",
    "Shfl(Bfly)": "shfl_xor_sync",
    "Redux(Add)": "reduce_add_sync",
    "Redux(MinU)": "reduce_min_sync",
    "Redux(MinS)": "reduce_min_sync",
    "Redux(MaxU)": "reduce_max_sync",
    "Redux(MaxS)": "reduce_max_sync",
    "Redux(And)": "reduce_and_sync",
    "Redux(Or)": "reduce_or_sync",
    "Redux(Xor)": "reduce_xor_sync",
    "MatchAny": "match_any_sync",
    "MatchAll": "match_all_sync",
    "Tile(Sync)": "thread_block_tile::sync",
    "Tile(Shfl)": "thread_block_tile::shfl",
    "Tile(Any)": "thread_block_tile::any",
    "Tile(All)": "thread_block_tile::all",
}

# `WarpOp`'s variants by their tag (the first of its two bytes), for debuggers that cannot
# decode a Rust enum (lldb 14); the payload's type for each variant with one. The unit test
# that checks WARP_OP_NAMES checks these tags too.
WARP_OP_TAGS = ["ActiveMask", "Sync", "Vote", "Shfl", "Redux", "MatchAny", "MatchAll", "Tile"]
WARP_OP_PAYLOADS = {
    "Vote": "emu_runtime::device::backend::VoteOp",
    "Shfl": "emu_runtime::device::backend::ShflMode",
    "Redux": "emu_runtime::host::sched::warp::ReduxOp",
    "Tile": "emu_runtime::device::backend::TileOp",
}

# Type and symbol names the scripts look up.
HOST_THREADS = "DEVICEEMU_HOST_THREADS"
HOST_THREADS_PATH = "emu_runtime::host::sched::debugger::DEVICEEMU_HOST_THREADS"
HOST_THREADS_VERSION = 1
BLOCK_RUN = "emu_runtime::host::sched::block::BlockRun"
STATE = "emu_runtime::host::sched::block::State"


class DebuggerError(Exception):
    """A message for the user (the command fails with it)."""


def parse_dim(text):
    """'5' -> [5], '5,2' -> [5, 2], '(5,2,0)' -> [5, 2, 0]."""
    parts = [p.strip() for p in text.strip().strip("()").split(",") if p.strip() != ""]
    try:
        parts = [int(p, 0) for p in parts]
    except ValueError:
        parts = []
    if not 1 <= len(parts) <= 3:
        raise DebuggerError("a thread or block index is X, X,Y or X,Y,Z (e.g. 3 or 3,2 or (3,2,0)), not %r" % text)
    return parts


def parse_break(arg, usage):
    """`LOCATION TX[,TY[,TZ]] [BX[,BY[,BZ]]]` -> (location, thread, block or None)."""
    parts = arg.split()
    if len(parts) not in (2, 3):
        raise DebuggerError(usage)
    return parts[0], parse_dim(parts[1]), parse_dim(parts[2]) if len(parts) == 3 else None


def parse_focus(arg):
    """`(BX,BY,BZ) (TX,TY,TZ)`, also `BX,BY TX,TY` -> (block, thread), each three components."""
    # Split on the space between the two groups, allowing spaces inside parentheses.
    groups = [g for g in arg.replace(", ", ",").replace("( ", "(").replace(" )", ")").split() if g]
    if len(groups) != 2:
        raise DebuggerError("usage: emu-focus (BX,BY,BZ) (TX,TY,TZ)   e.g. emu-focus (1,0,0) (3,0,0)")
    pad = lambda d: (d + [0, 0])[:3]
    return pad(parse_dim(groups[0])), pad(parse_dim(groups[1]))


def matches(want, have):
    """Whether the components given in `want` (a prefix of x, y, z) equal `have`'s."""
    return all(w == h for w, h in zip(want or [], have))


def dim(d):
    return "(%d,%d,%d)" % tuple(d)


def unlinear(shape, i):
    x, y = shape[0], shape[1]
    return (i % x, (i // x) % y, i // (x * y))


def linear(shape, d):
    return d[0] + shape[0] * (d[1] + shape[1] * d[2])


def thread_ranges(block_dim, ids):
    """Sorted linear thread indices as ranges: `threads (0,0,0) to (49,0,0), (52,0,0)`, as the
    runtime's `report::thread_ranges` writes them."""
    out = []
    i = 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        if len(out) == 6:
            out.append("and %d more" % (len(ids) - i))
            break
        a = dim(unlinear(block_dim, ids[i]))
        out.append(a if i == j else "%s to %s" % (a, dim(unlinear(block_dim, ids[j]))))
        i = j + 1
    text = ", ".join(out)
    return ("thread " if len(ids) == 1 else "threads ") + text


class Block(object):
    """A running block, as read from memory: its kernel, indices and threads' states.

    `states[t]` is the name of `State` of thread t (the running one excepted: its slot is not
    kept up to date); `ats[t]` its `file:line:col` or None; `ops[t]` the warp collective it
    waits in (a `WARP_OP_NAMES` key) or None; `started(t)` whether it started."""

    def __init__(self, kernel, block_idx, block_dim, grid_dim, current, states, ats, ops, started, launched_by):
        self.kernel, self.block_idx, self.block_dim, self.grid_dim = kernel, block_idx, block_dim, grid_dim
        self.current, self.states, self.ats, self.ops, self.started = current, states, ats, ops, started
        self.launched_by = launched_by

    def linear_block(self):
        return linear(self.grid_dim, self.block_idx)

    def state_of(self, t):
        """What thread t is doing, as the runtime's `BlockRun::state_of` says."""
        s = self.states[t]
        if s == "NotStarted" and self.started(t):
            return "Exited"
        return s

    def describe(self, t, me=None):
        """The words emu-threads uses for thread t; `me` is the linear index of the GPU thread
        the user looks at (running, or, with EMU_SCHEDULE=threads, maybe waiting)."""
        s = "Running" if t == self.current else self.state_of(t)
        at = self.ats[t] or "?"
        if s == "Running":
            text = "running (this thread)" if me in (None, t) else "running"
        elif s == "NotStarted":
            text = "not started"
        elif s == "Waiting":
            text = "waiting at the barrier at %s" % at
        elif s == "WarpWaiting":
            text = "waiting in %s at %s" % (WARP_OP_NAMES.get(self.ops[t] or "", self.ops[t] or "a warp collective"), at)
        elif s == "Ready":
            text = "about to resume after a warp collective"
        elif s == "Spinning":
            text = "spinning (yielded at the loop at %s)" % at
        elif s == "Exited":
            text = "exited"
        elif s == "Failed":
            text = "failed"
        else:
            text = s
        if t == me and s != "Running":
            text += " (this thread)"
        return text

    def threads_text(self, me=None):
        """emu-threads: one line per group of threads doing the same thing."""
        groups = []
        n = len(self.states)
        for t in range(n):
            what = self.describe(t, me)
            for g in groups:
                if g[0] == what:
                    g[1].append(t)
                    break
            else:
                groups.append((what, [t]))
        lines = ["block %s of kernel %s:" % (dim(self.block_idx), self.kernel)]
        for what, ts in groups:
            lines.append("  %s: %s" % (thread_ranges(self.block_dim, ts), what))
        return "\n".join(lines)


def focus_refusal(block, want_block, want_thread, debugger):
    """Why emu-focus cannot select thread `want_thread` of the running block `block`."""
    t = linear(block.block_dim, want_thread)
    who = "thread %s of block %s" % (dim(want_thread), dim(want_block))
    what = block.describe(t)
    if what in ("exited", "not started"):
        return "emu-focus: %s %s: it has no stack to select" % (who, "has exited" if what == "exited" else "has not started")
    return (
        "emu-focus: %s is %s, on a fiber no host thread runs now; %s reaches a GPU thread only while it runs. "
        "Run with EMU_SCHEDULE=threads (each GPU thread an OS thread), or emu-break a line in that thread" % (who, what, debugger)
    )


def where_text(kernel, block_idx, thread_idx, launched_by=""):
    """emu-where's line, with who launched the grid when it is a child grid."""
    return "kernel %s, block %s, thread %s%s" % (kernel, dim(block_idx), dim(thread_idx), launched_by or "")


def kernel_from_function(name):
    """The kernel's name in a kernel frame's function name: gdb's `m::{impl#3}::k::{async_block#0}<false>`
    or `m::k::k<true>`, lldb's `m::k::k::_$u7b$$u7b$closure$u7d$$u7d$::h0123` -> `k`."""
    import re

    name = re.sub(r"<[^<>]*>$", "", name or "")
    parts = [p for p in name.split("::") if p and not p.startswith("{") and not p.startswith("_$") and not re.match(r"^h[0-9a-f]{16}$", p)]
    return parts[-1] if parts else "?"
