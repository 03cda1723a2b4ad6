"""gdb commands for deviceemu: which GPU thread is this, what is its block doing, and how to
stop and step in one GPU thread.

Load it with `source tools/gdb/deviceemu.py` (or add that line to ~/.gdbinit). Commands:

  emu-where                     kernel, block and thread of the selected frame (a kernel
                                frame, or a #[device] helper called from one)
  emu-threads                   every thread of that block: running, waiting at a barrier or
                                in a warp collective (with the line), exited, not started
  emu-break LOCATION TX[,TY[,TZ]] [BX[,BY[,BZ]]]
                                break at LOCATION only in GPU thread (TX,TY,TZ) of block
                                (BX,BY,BZ); missing components are not compared, e.g.
                                `emu-break blur.rs:30 5,2 1,0` stops in thread (5,2,0)
                                of block (1,0,0) of a 2-D launch.
  emu-next                      `next` for a GPU thread: steps over the current line, a
                                sync_threads(), warp collective or #[device] helper call
                                included, and stops at the next line this same GPU thread
                                runs (plain `next` over a barrier lands in the runtime's
                                scheduler, or in another GPU thread).
  emu-step                      `step` for a GPU thread: as emu-next, but enters the
                                functions of the program the line calls (#[device] helpers,
                                closures); it steps over the runtime's and the standard
                                library's.
  emu-focus (BX,BY,BZ) (TX,TY,TZ)
                                cuda-gdb's `cuda block (..) thread (..)`: select that GPU
                                thread where the schedule lets gdb reach it (an OS thread of
                                its own with EMU_SCHEDULE=threads; a GPU thread running on
                                another host thread with fibers), or say why not.

None of them calls a function in the program (they run with `set may-call-functions off`):
they read the GPU thread's coordinates from the kernel frame (`__emu_ctx`, a ThreadCtx with
`thread_idx` and `block_idx`), and the block's state from the runtime's list of host threads
(`DEVICEEMU_HOST_THREADS`, see emu-runtime/src/host/sched/debugger.rs). Without the script,
`break FILE:LINE if __emu_ctx.thread_idx.x == 3 && __emu_ctx.block_idx.x == 1` stops in the
same thread (in a kernel frame; not in a helper's).

The script turns `print thread-events` off: with EMU_SCHEDULE=threads a launch starts an OS
thread per GPU thread, and gdb would print a line for each.
"""

import os
import re
import struct
import sys

import gdb

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import deviceemu_common as common  # noqa: E402

gdb.execute("set print thread-events off", to_string=True)

# Frames this far above the stop are searched for the kernel frame.
_MAX_DEPTH = 64


def _read(addr, n):
    return bytes(gdb.selected_inferior().read_memory(addr, n))


def _u64(addr):
    return struct.unpack("<Q", _read(addr, 8))[0]


def _cell(v):
    """The value inside `Cell`s and `UnsafeCell`s (a struct whose one field is `value`)."""
    while v.type.strip_typedefs().code == gdb.TYPE_CODE_STRUCT:
        fields = v.type.strip_typedefs().fields()
        if len(fields) != 1 or fields[0].name != "value":
            break
        v = v["value"]
    return v


def _fat(v):
    """(address, length) of a slice, `&str` or `Box<[T]>` (or a wrapper around one)."""
    for _ in range(4):
        names = [f.name for f in v.type.strip_typedefs().fields()]
        if "data_ptr" in names and "length" in names:
            return int(v["data_ptr"]), int(v["length"])
        if len(names) != 1:
            break
        v = v[names[0]]
    raise common.DebuggerError("deviceemu: unexpected layout of %s" % v.type)


def _str(v):
    addr, n = _fat(v)
    return _read(addr, n).decode("utf-8", "replace") if n else ""


def _dim3(v):
    return (int(v["x"]), int(v["y"]), int(v["z"]))


def _offset(ty, name):
    for f in ty.strip_typedefs().fields():
        if f.name == name:
            return f.bitpos // 8
    raise common.DebuggerError("deviceemu: %s has no field %s" % (ty, name))


# ---------------------------------------------------------------------------------------------
# The GPU thread of a frame


def _ctx_of(frame):
    """(thread_idx, block_idx) of `frame` if it is a per-thread kernel frame, else None."""
    try:
        fn = frame.function()
        if fn is not None and "__regions" in fn.name:
            return None
        ctx = frame.read_var("__emu_ctx")
        return _dim3(ctx["thread_idx"]), _dim3(ctx["block_idx"])
    except (ValueError, RuntimeError, gdb.error):
        return None


def _kernel_frame(frame):
    """The nearest frame at or above `frame` that runs a kernel's GPU thread, with its
    coordinates: (frame, thread_idx, block_idx), or None."""
    f, depth = frame, 0
    while f is not None and depth < _MAX_DEPTH:
        c = _ctx_of(f)
        if c is not None:
            return f, c[0], c[1]
        try:
            f = f.older()
        except gdb.error:
            return None
        depth += 1
    return None


# ---------------------------------------------------------------------------------------------
# The block a host thread runs (DEVICEEMU_HOST_THREADS)


def _registry_address():
    for look in (gdb.lookup_global_symbol, gdb.lookup_static_symbol):
        try:
            s = look(common.HOST_THREADS_PATH)
        except gdb.error:
            s = None
        if s is not None:
            return int(s.value().address)
    try:
        return int(gdb.parse_and_eval("(long)&'%s'" % common.HOST_THREADS))
    except gdb.error:
        raise common.DebuggerError("deviceemu: %s not found: is this a deviceemu program?" % common.HOST_THREADS)


def _host_blocks():
    """{OS thread id: address of the BlockRun it runs} for every host thread running a block."""
    base = _registry_address()
    version = struct.unpack("<I", _read(base, 4))[0]
    if version != common.HOST_THREADS_VERSION:
        raise common.DebuggerError("deviceemu: this program's debugger records are version %d; this script reads %d" % (version, common.HOST_THREADS_VERSION))
    out = {}
    p = _u64(base + 8)
    for _ in range(1 << 20):
        if p == 0:
            break
        tid, block, nxt = struct.unpack("<QQQ", _read(p, 24))
        if tid != 0 and block != 0:
            out[tid] = block
        p = nxt
    return out


def _block_run(addr):
    return gdb.Value(addr).cast(gdb.lookup_type(common.BLOCK_RUN).pointer()).dereference()


def _read_block(addr):
    """The block at `addr` (a BlockRun) as a common.Block."""
    b = _block_run(addr)
    launch = b["launch"].dereference()
    block_dim, grid_dim = _dim3(launch["block"]), _dim3(launch["grid"])
    slots_addr, n = _fat(b["slots"])
    slot_t = b["slots"]["data_ptr"].type.target()
    size = slot_t.sizeof
    state_off, at_off = _offset(slot_t, "state"), _offset(slot_t, "at")
    names = {int(f.enumval): f.name.split("::")[-1] for f in gdb.lookup_type(common.STATE).fields()}
    raw = _read(slots_addr, size * n) if n else b""
    states = [names.get(raw[i * size + state_off], "?") for i in range(n)]
    at_ptrs = [struct.unpack_from("<Q", raw, i * size + at_off)[0] for i in range(n)]
    loc_t = None
    ats = []
    cache = {}
    for p in at_ptrs:
        if p == 0:
            ats.append(None)
            continue
        if p not in cache:
            if loc_t is None:
                loc_t = _location_pointer(b)
            loc = gdb.Value(p).cast(loc_t).dereference()
            file_field = "filename" if "filename" in [f.name for f in loc.type.fields()] else "file"
            cache[p] = "%s:%d:%d" % (_str(loc[file_field]), int(loc["line"]), int(loc["col"]))
        ats.append(cache[p])
    arrivals = b["warps"]["warp_arrivals"]
    arr_addr, _ = _fat(arrivals)
    arr_t = arrivals["data_ptr"].type.target()
    ops = []
    for t in range(n):
        if states[t] != "WarpWaiting":
            ops.append(None)
            continue
        op = _cell(gdb.Value(arr_addr + t * arr_t.sizeof).cast(arr_t.pointer()).dereference())["op"]
        ops.append(_warp_op(op))
    starts = b["starts"]
    seeded = bool(starts["seeded"])
    next_start = int(_cell(starts["next"]))
    ranks = None
    if seeded:
        r_addr, r_n = _fat(starts["rank"])
        ranks = struct.unpack("<%dI" % r_n, _read(r_addr, 4 * r_n))
    started = (lambda t: ranks[t] < next_start) if seeded else (lambda t: t < next_start)
    return common.Block(
        kernel=_str(launch["kernel"].dereference()["name"]),
        block_idx=_dim3(_cell(b["id"]["idx"])),
        block_dim=block_dim,
        grid_dim=grid_dim,
        current=int(_cell(b["current"])),
        states=states,
        ats=ats,
        ops=ops,
        started=started,
        launched_by=_str(launch["devrt"]["launched_by"]),
    )


def _location_pointer(b):
    """The type `*const core::panic::location::Location` (a lookup by name may find the
    module of that name instead; a program's debug information may lack `Option<&Location>`'s
    `Some`)."""
    try:
        t = gdb.lookup_type("core::panic::location::Location")
        if t.strip_typedefs().code == gdb.TYPE_CODE_STRUCT:
            return t.pointer()
    except gdb.error:
        pass
    try:
        for f in gdb.lookup_type("emu_runtime::host::sched::devrt::Parent").fields():
            if f.name == "at":
                return f.type
    except gdb.error:
        pass
    opt = _cell(b["slots"]["data_ptr"].dereference()["at"]).type.strip_typedefs()
    for f in opt.fields():
        if f.name == "Some":
            return f.type.fields()[0].type
    raise common.DebuggerError("deviceemu: no type core::panic::location::Location in the program")


def _warp_op(v):
    """A WarpOp value as Rust's Debug spells it: `Shfl(Idx)`."""
    text = str(v)
    m = re.match(r"^(?:\w+::)*(\w+)(?:\((?:\w+::)*(\w+)\))?$", text)
    if not m:
        return text
    return m.group(1) + ("(%s)" % m.group(2) if m.group(2) else "")


def _this_block(thread=None):
    """(address, common.Block) of the block the selected (or given) OS thread runs, or None."""
    thread = thread or gdb.selected_thread()
    if thread is None:
        return None
    addr = _host_blocks().get(thread.ptid[1])
    return (addr, _read_block(addr)) if addr else None


def _here():
    """(kernel frame or None, thread_idx, block_idx, block or None) of the selected frame: from
    the kernel frame, or else from the block the host thread runs."""
    try:
        frame = gdb.selected_frame()
    except gdb.error:
        raise common.DebuggerError("deviceemu: the program is not stopped")
    found = _kernel_frame(frame)
    ours = _this_block()
    block = ours[1] if ours else None
    if found is not None:
        kf, t, b = found
        if block is not None and tuple(block.block_idx) != tuple(b):
            block = None
        return kf, t, b, block
    if block is not None:
        return None, common.unlinear(block.block_dim, block.current), block.block_idx, block
    return None


# ---------------------------------------------------------------------------------------------
# Commands


def _command(fn):
    """Runs `fn`, turning the script's own errors into gdb errors (a message, not a trace)."""

    def invoke(self, arg, from_tty):
        try:
            fn(self, arg, from_tty)
        except common.DebuggerError as e:
            raise gdb.GdbError(str(e))

    return invoke


class EmuWhere(gdb.Command):
    """Print the kernel, block and thread of the selected frame."""

    def __init__(self):
        super().__init__("emu-where", gdb.COMMAND_STATUS)

    @_command
    def invoke(self, arg, from_tty):
        here = _here()
        if here is None:
            print("no GPU thread is running on this host thread")
            return
        kf, t, b, block = here
        if block is not None:
            kernel, launched_by = block.kernel, block.launched_by
        else:
            kernel, launched_by = common.kernel_from_function(kf.name() if kf else ""), ""
        print(common.where_text(kernel, b, t, launched_by))


class EmuThreads(gdb.Command):
    """Print what every thread of the selected GPU thread's block is doing."""

    def __init__(self):
        super().__init__("emu-threads", gdb.COMMAND_STATUS)

    @_command
    def invoke(self, arg, from_tty):
        here = _here()
        if here is None or here[3] is None:
            print("no GPU thread is running on this host thread")
            return
        _, t, _, block = here
        print(block.threads_text(common.linear(block.block_dim, t)))


class _GpuThreadBreakpoint(gdb.Breakpoint):
    """A breakpoint that stops only in the GPU threads whose coordinates match: decided in
    stop() from the kernel frame's `__emu_ctx` (walking up from a helper's frame), without a
    call into the program. An error in the decision means no stop."""

    # How many hits were decided (tests: the watched blocks keep it small).
    decisions = 0

    def __init__(self, spec, thread, block, internal=False):
        super().__init__(spec, internal=internal)
        self.want_thread, self.want_block = thread, block

    def stop(self):
        _GpuThreadBreakpoint.decisions += 1
        try:
            found = _kernel_frame(gdb.newest_frame())
            if found is None:
                return False
            return common.matches(self.want_thread, found[1]) and common.matches(self.want_block, found[2])
        except Exception:
            return False


class _ReturnBreakpoint(gdb.Breakpoint):
    """A breakpoint at the return address of a kernel frame: stops when GPU thread `linear` of
    the block `block` returns from its kernel function for good (a state machine also returns
    there each time it waits at a barrier: then its slot says it waits)."""

    def __init__(self, pc, block, linear):
        super().__init__("*0x%x" % pc, internal=True)
        self.want_block, self.linear = list(block), linear
        self.silent = True

    def stop(self):
        try:
            addr = _host_blocks().get(gdb.selected_thread().ptid[1])
            if not addr:
                return False
            b = _block_run(addr)
            if list(_dim3(_cell(b["id"]["idx"]))) != self.want_block or int(_cell(b["current"])) != self.linear:
                return False
            slots, n = _fat(b["slots"])
            slot_t = b["slots"]["data_ptr"].type.target()
            state = _read(slots + self.linear * slot_t.sizeof + _offset(slot_t, "state"), 1)[0]
            names = {int(f.enumval): f.name.split("::")[-1] for f in gdb.lookup_type(common.STATE).fields()}
            return names.get(state) not in ("Waiting", "WarpWaiting", "Spinning")
        except Exception:
            return False


# emu-break breakpoints gated by DEVICEEMU_WATCH_BLOCKS (see emu-runtime's debugger.rs): number
# -> block pattern; and OS thread id -> the watched block that host thread runs.
_GATED = {}
_RUNNING = {}
_WATCH = "deviceemu_watched_block"
_WATCH_BP = []


def _gate(bp, block):
    """Keeps `bp` disabled except while a block matching `block` runs, when the program is yet
    to start (it reads DEVICEEMU_WATCH_BLOCKS when it starts) and has the hook: gdb then stops
    at the hook once per watched block (its commands update the breakpoints and continue)
    instead of at every hit of the line in other blocks. Returns whether it did."""
    if block is None or gdb.selected_inferior().pid != 0:
        return False
    try:
        gdb.execute("info address %s" % _WATCH, to_string=True)
    except gdb.error:
        return False
    _GATED[bp.number] = list(block)
    patterns = ";".join(",".join([str(c) for c in b] + ["*"] * (3 - len(b))) for b in _GATED.values())
    gdb.execute("set environment DEVICEEMU_WATCH_BLOCKS %s" % patterns, to_string=True)
    if not any(w.is_valid() for w in _WATCH_BP):
        w = gdb.Breakpoint(_WATCH, internal=True)
        w.commands = "silent\npython _watch_update()\ncontinue"
        _WATCH_BP[:] = [w]
    bp.enabled = False
    return True


def _watch_update():
    """At the hook the runtime calls when a host thread starts a watched block (or the first
    block after one): enables the gated breakpoints of the blocks that run, disables the
    others; on an error it enables them all (a stop too many, never one too few)."""
    try:
        f = gdb.selected_frame()
        b = [int(f.read_var(n)) for n in ("bx", "by", "bz", "entered")]
        _RUNNING[(gdb.selected_inferior().pid, gdb.selected_thread().ptid[1])] = tuple(b[:3]) if b[3] else None
        pid = gdb.selected_inferior().pid
        running = [blk for (p, _), blk in _RUNNING.items() if p == pid and blk is not None]
        on = lambda pattern: any(common.matches(pattern, blk) for blk in running)
    except Exception:
        on = lambda pattern: True
    for bp in gdb.breakpoints():
        if bp.number in _GATED:
            bp.enabled = on(_GATED[bp.number])


def _at_watch_hook():
    try:
        t = gdb.selected_thread()
        return t is not None and t.is_valid() and gdb.newest_frame().name() in (_WATCH, "emu_runtime::host::sched::debugger::" + _WATCH)
    except gdb.error:
        return False


def _show(parts):
    return "(%s)" % ",".join([str(p) for p in parts] + ["*"] * (3 - len(parts)))


class EmuBreak(gdb.Command):
    """emu-break LOCATION TX[,TY[,TZ]] [BX[,BY[,BZ]]]: break at LOCATION only in that GPU thread."""

    def __init__(self):
        super().__init__("emu-break", gdb.COMMAND_BREAKPOINTS)

    @_command
    def invoke(self, arg, from_tty):
        loc, thread, block = common.parse_break(arg, "usage: emu-break LOCATION TX[,TY[,TZ]] [BX[,BY[,BZ]]]")
        bp = _GpuThreadBreakpoint(loc, thread, block)
        gated = _gate(bp, block)
        print(
            "Breakpoint %d: %s in GPU thread %s of block %s%s"
            % (bp.number, loc, _show(thread), _show(block or []), " (enabled while such a block runs)" if gated else "")
        )


# ---------------------------------------------------------------------------------------------
# Stepping in one GPU thread

# Functions in these files are the runtime's or the standard library's: emu-step does not
# enter them.
_NOT_USER = re.compile(r"(^|/)(emu-runtime|emu-macros|library/(core|std|alloc)|rustc/[0-9a-f]+|\.cargo/registry|\.rustup)/")


def _function_block(frame):
    block = frame.block()
    while block.function is None and block.superblock is not None:
        block = block.superblock
    return block


def _function_lines(frame):
    """(symtab, the frame's line, the other lines of the frame's function)."""
    block = _function_block(frame)
    sal = frame.find_sal()
    if sal.symtab is None:
        raise common.DebuggerError("emu-next: no line information here")
    entry = gdb.find_pc_line(block.start).line
    lines = set()
    for e in sal.symtab.linetable():
        if block.start <= e.pc < block.end and e.line > 0:
            lines.add(e.line)
    # The function's first line is its entry, which a state-machine kernel passes through each
    # time it is resumed, before it jumps to where it left off.
    lines.discard(entry)
    lines.discard(sal.line)
    return sal.symtab, sal.line, sorted(lines)


def _called_user_functions(frame):
    """The program's own functions (symbols) that the frame's current line calls."""
    sal = frame.find_sal()
    if sal.symtab is None:
        return []
    block = _function_block(frame)
    ranges = []
    # The line's code: the ranges of the line table that belong to this line, in this function.
    entries = [e for e in sal.symtab.linetable() if block.start <= e.pc < block.end]
    entries.sort(key=lambda e: e.pc)
    for i, e in enumerate(entries):
        if e.line == sal.line:
            end = entries[i + 1].pc if i + 1 < len(entries) else block.end
            if end > e.pc:
                ranges.append((e.pc, end))
    arch = frame.architecture()
    targets = set()
    for start, end in ranges:
        for insn in arch.disassemble(start, end - 1):
            m = re.match(r"^\s*call\w*\s+(0x[0-9a-f]+)", insn["asm"])
            if m:
                targets.add(int(m.group(1), 16))
    out = []
    for a in sorted(targets):
        b = gdb.block_for_pc(a)
        while b is not None and b.function is None:
            b = b.superblock
        if b is None or b.function is None:
            continue
        st = b.function.symtab
        if st is None or _NOT_USER.search(st.fullname() or st.filename):
            continue
        out.append(b.function)
    return out


def _asleep_on(symtab, line):
    """The user's enabled breakpoints on `symtab`:`line`, which would stop again where the GPU
    thread resumes after a barrier (the rest of the line)."""
    out = []
    name = os.path.basename(symtab.filename)
    for b in gdb.breakpoints():
        if not b.enabled or b.number <= 0 or not b.is_valid():
            continue
        hit = False
        for loc in getattr(b, "locations", None) or []:
            src = getattr(loc, "source", None)
            if src and os.path.basename(src[0]) == name and src[1] == line:
                hit = True
        if not hit and re.search(r"(^|[/ ])%s:%d$" % (re.escape(name), line), b.location or ""):
            hit = True
        if hit:
            out.append(b)
    return out


def _step(into, from_tty):
    name = "emu-step" if into else "emu-next"
    frame = gdb.selected_frame()
    found = _kernel_frame(frame)
    if found is None:
        raise common.DebuggerError("%s: no GPU thread here (no kernel frame at or above the selected frame)" % name)
    kf, thread, block = found
    # Where the same GPU thread may stop next: another line of this function; in a helper,
    # another line of each caller up to the kernel frame (the helper returned); with emu-step,
    # the first line of a function of the program this line calls.
    specs = []
    f = frame
    symtab, current, lines = _function_lines(f)
    specs += ["%s:%d" % (symtab.filename, l) for l in lines]
    while f is not None and f != kf:
        f = f.older()
        if f is None:
            break
        st, cur, ls = _function_lines(f)
        specs += ["%s:%d" % (st.filename, l) for l in ls]
    if into:
        # A function's own line: gdb puts the breakpoint after its prologue.
        specs += ["%s:%d" % (fn.symtab.filename, fn.line) for fn in _called_user_functions(frame)]
    if not specs:
        raise common.DebuggerError("%s: no other line in this kernel; use `finish` or `continue`" % name)
    os_thread = gdb.selected_thread()
    own_thread = re.match(r"^b\d+t\d+$", os_thread.name or "") is not None
    asleep = _asleep_on(symtab, current)
    for b in asleep:
        b.enabled = False
    bps = []
    try:
        for spec in specs:
            try:
                bp = _GpuThreadBreakpoint(spec, list(thread), list(block), internal=True)
            except gdb.error:
                continue
            bp.silent = True
            # With EMU_SCHEDULE=threads a GPU thread keeps its OS thread: gdb checks that first.
            if own_thread:
                bp.thread = os_thread.num
            bps.append(bp)
        # The GPU thread may also return from its kernel function (it exits): stop there too.
        ret = None
        caller = kf.older()
        if caller is not None:
            try:
                shape = _here()
                block_dim = shape[3].block_dim if shape and shape[3] else None
            except common.DebuggerError:
                block_dim = None
            if block_dim is not None:
                ret = _ReturnBreakpoint(caller.pc(), block, common.linear(block_dim, thread))
                if own_thread:
                    ret.thread = os_thread.num
                bps.append(ret)
        before = _function_block(frame).start
        gdb.execute("continue", from_tty)
        # A stop at the watched-block hook: do what its commands would (their `continue` would
        # only run after this command), and go on.
        while _at_watch_hook():
            _watch_update()
            gdb.execute("continue", from_tty)
        if ret is not None and ret.is_valid() and ret.hit_count > 0:
            print("[GPU thread %s of block %s returned from its kernel function: it exited]" % (common.dim(thread), common.dim(block)))
        # Like `next` and `step`, show where it stopped: the line, or the frame when it is
        # another function.
        t = gdb.selected_thread()
        if t is not None and t.is_valid():
            f = gdb.selected_frame()
            if _function_block(f).start != before:
                gdb.execute("frame")
            else:
                sal = f.find_sal()
                if sal.symtab is not None:
                    gdb.execute("list %s:%d,%d" % (sal.symtab.filename, sal.line, sal.line))
    finally:
        for bp in bps:
            if bp.is_valid():
                bp.delete()
        for b in asleep:
            if b.is_valid():
                b.enabled = True


class EmuNext(gdb.Command):
    """emu-next: step over this line (barriers and helper calls included) in the same GPU thread."""

    def __init__(self):
        super().__init__("emu-next", gdb.COMMAND_RUNNING)

    @_command
    def invoke(self, arg, from_tty):
        _step(False, from_tty)


class EmuStep(gdb.Command):
    """emu-step: as emu-next, but enter the program's own functions this line calls."""

    def __init__(self):
        super().__init__("emu-step", gdb.COMMAND_RUNNING)

    @_command
    def invoke(self, arg, from_tty):
        _step(True, from_tty)


# ---------------------------------------------------------------------------------------------
# Focus


def _select_kernel_frame(thread):
    thread.switch()
    f = gdb.newest_frame()
    found = _kernel_frame(f)
    if found is not None:
        found[0].select()


class EmuFocus(gdb.Command):
    """emu-focus (BX,BY,BZ) (TX,TY,TZ): select that GPU thread, where the schedule allows."""

    def __init__(self):
        super().__init__("emu-focus", gdb.COMMAND_STATUS)

    @_command
    def invoke(self, arg, from_tty):
        want_block, want_thread = common.parse_focus(arg)
        blocks = _host_blocks()
        threads = {t.ptid[1]: t for t in gdb.selected_inferior().threads()}
        seen = None
        for tid, addr in blocks.items():
            block = _read_block(addr)
            if list(block.block_idx) != want_block:
                continue
            seen = block
            lin_b = block.linear_block()
            lin_t = common.linear(block.block_dim, want_thread)
            if lin_t >= len(block.states) or any(c >= d for c, d in zip(want_thread, block.block_dim)):
                raise common.DebuggerError("emu-focus: block %s has no thread %s (its size is %s)" % (common.dim(want_block), common.dim(want_thread), common.dim(block.block_dim)))
            # EMU_SCHEDULE=threads: the GPU thread's own OS thread.
            name = "b%dt%d" % (lin_b, lin_t)
            for t in threads.values():
                if t.name == name:
                    _select_kernel_frame(t)
                    self._said(block, want_thread)
                    return
            # Fibers: the GPU thread a host thread is running now.
            if block.current == lin_t and tid in threads and threads[tid].name and not re.match(r"^b\d+t\d+$", threads[tid].name):
                _select_kernel_frame(threads[tid])
                self._said(block, want_thread)
                return
        if seen is None:
            raise common.DebuggerError(
                "emu-focus: block %s is not running now (no host thread runs it); emu-break a line in it to stop there" % common.dim(want_block)
            )
        raise common.DebuggerError(common.focus_refusal(seen, want_block, want_thread, "gdb"))

    @staticmethod
    def _said(block, thread):
        print("[Focus: kernel %s, block %s, thread %s]" % (block.kernel, common.dim(block.block_idx), common.dim(thread)))
        gdb.execute("frame")


EmuWhere()
EmuThreads()
EmuBreak()
EmuNext()
EmuStep()
EmuFocus()
