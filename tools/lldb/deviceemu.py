"""lldb commands for deviceemu, the same as tools/gdb/deviceemu.py's.

Load it with `command script import tools/lldb/deviceemu.py` (or add that line to
~/.lldbinit). Commands:

  emu-where                     kernel, block and thread of the selected frame (a kernel
                                frame, or a #[device] helper called from one)
  emu-threads                   every thread of that block: running, waiting at a barrier or
                                in a warp collective (with the line), exited, not started
  emu-break FILE:LINE TX[,TY[,TZ]] [BX[,BY[,BZ]]]
                                break at FILE:LINE only in GPU thread (TX,TY,TZ) of block
                                (BX,BY,BZ); missing components are not compared
  emu-next                      step over this line (a sync_threads(), warp collective or
                                #[device] helper call included) and stop at the next line the
                                same GPU thread runs
  emu-step                      as emu-next, but enter the program's own functions the line
                                calls (#[device] helpers, closures)
  emu-focus (BX,BY,BZ) (TX,TY,TZ)
                                select that GPU thread where the schedule lets lldb reach it
                                (an OS thread of its own with EMU_SCHEDULE=threads; a GPU
                                thread running on another host thread with fibers), or say
                                why not

None of them evaluates an expression or calls into the program: breakpoint decisions run in
Python callbacks that read the kernel frame's `__emu_ctx` (SBFrame.FindVariable) and the
runtime's list of host threads (`DEVICEEMU_HOST_THREADS`, emu-runtime/src/host/sched/debugger.rs)
with memory reads.

Debian's lldb 14 looks for its Python module in the wrong folder; run it with
PYTHONPATH=/usr/lib/llvm-14/lib/python3.11/dist-packages (see the README).
"""

import os
import re
import struct
import sys

import lldb

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import deviceemu_common as common  # noqa: E402

# Frames this far above the stop are searched for the kernel frame.
_MAX_DEPTH = 64

# Breakpoint id -> (thread, block) wanted, for emu_break_stop; and -> (block, linear thread)
# for the return breakpoints of emu-next.
_WANT = {}
_RETURNS = {}
# Return breakpoints that stopped (lldb counts a hit even when the callback says go on).
_RETURNED = set()


def _read(process, addr, n):
    if n == 0:
        return b""
    err = lldb.SBError()
    data = process.ReadMemory(addr, n, err)
    if not err.Success():
        raise common.DebuggerError("deviceemu: cannot read %d bytes at 0x%x: %s" % (n, addr, err.GetCString()))
    return data


def _u64(process, addr):
    return struct.unpack("<Q", _read(process, addr, 8))[0]


def _child(v, name):
    c = v.GetChildMemberWithName(name)
    if not c.IsValid():
        raise common.DebuggerError("deviceemu: %s has no field %s" % (v.GetTypeName(), name))
    return c


def _cell(v):
    """The value inside `Cell`s and `UnsafeCell`s (a struct whose one field is `value`)."""
    while v.GetNumChildren() == 1 and v.GetChildAtIndex(0).GetName() == "value" and v.GetType().GetTypeClass() in (lldb.eTypeClassStruct, lldb.eTypeClassClass, lldb.eTypeClassUnion):
        v = v.GetChildAtIndex(0)
    return v


def _fat(v):
    """(address, length) of a slice, `&str` or `Box<[T]>` (or a wrapper around one)."""
    for _ in range(4):
        d, n = v.GetChildMemberWithName("data_ptr"), v.GetChildMemberWithName("length")
        if d.IsValid() and n.IsValid():
            return d.GetValueAsUnsigned(), n.GetValueAsUnsigned()
        if v.GetNumChildren() != 1:
            break
        v = v.GetChildAtIndex(0)
    raise common.DebuggerError("deviceemu: unexpected layout of %s" % v.GetTypeName())


def _str(process, v):
    addr, n = _fat(v)
    return _read(process, addr, n).decode("utf-8", "replace") if n else ""


def _dim3(v):
    return tuple(_child(v, a).GetValueAsUnsigned() for a in "xyz")


def _offset(ty, name):
    for i in range(ty.GetNumberOfFields()):
        f = ty.GetFieldAtIndex(i)
        if f.GetName() == name:
            return f.GetOffsetInBytes()
    raise common.DebuggerError("deviceemu: %s has no field %s" % (ty.GetName(), name))


def _find_type(target, name):
    """The type named `name`. lldb 14's FindFirstType misses some types that FindTypes lists
    (in the binary `cargo test --workspace` builds of tests/debugger.rs it found no
    `...::block::State`, so emu-threads printed `?` for every state): FindTypes is the fallback."""
    ty = target.FindFirstType(name)
    if ty.IsValid() and ty.GetByteSize() > 0:
        return ty
    found = target.FindTypes(name)
    for i in range(found.GetSize()):
        t = found.GetTypeAtIndex(i)
        if t.IsValid() and t.GetByteSize() > 0:
            return t
    return ty


def _enum_names(target, name):
    ty = _find_type(target, name)
    members = ty.GetEnumMembers()
    return {members.GetTypeEnumMemberAtIndex(i).GetValueAsUnsigned(): members.GetTypeEnumMemberAtIndex(i).GetName() for i in range(members.GetSize())}


# ---------------------------------------------------------------------------------------------
# The GPU thread of a frame


def _ctx_of(frame):
    """(thread_idx, block_idx) of `frame` if it is a per-thread kernel frame, else None."""
    name = frame.GetFunctionName() or ""
    if "__regions" in name:
        return None
    ctx = frame.FindVariable("__emu_ctx")
    if not ctx.IsValid():
        return None
    t, b = ctx.GetChildMemberWithName("thread_idx"), ctx.GetChildMemberWithName("block_idx")
    if not t.IsValid() or not b.IsValid():
        return None
    try:
        return _dim3(t), _dim3(b)
    except common.DebuggerError:
        return None


def _kernel_frame(frame):
    """(frame, thread_idx, block_idx) of the nearest kernel frame at or above `frame`, or None."""
    thread = frame.GetThread()
    start = frame.GetFrameID()
    # Not thread.GetNumFrames(): it unwinds the whole stack, which a breakpoint decision on
    # every hit cannot afford.
    for i in range(start, start + _MAX_DEPTH):
        f = thread.GetFrameAtIndex(i)
        if not f.IsValid():
            return None
        c = _ctx_of(f)
        if c is not None:
            return f, c[0], c[1]
    return None


# ---------------------------------------------------------------------------------------------
# The block a host thread runs (DEVICEEMU_HOST_THREADS)


def _registry_address(target):
    for name in (common.HOST_THREADS, common.HOST_THREADS_PATH):
        vs = target.FindGlobalVariables(name, 1)
        if vs.GetSize():
            addr = vs.GetValueAtIndex(0).GetLoadAddress()
            if addr != lldb.LLDB_INVALID_ADDRESS:
                return addr
    for ctx in target.FindSymbols(common.HOST_THREADS):
        addr = ctx.GetSymbol().GetStartAddress().GetLoadAddress(target)
        if addr != lldb.LLDB_INVALID_ADDRESS:
            return addr
    raise common.DebuggerError("deviceemu: %s not found: is this a deviceemu program, and is it running?" % common.HOST_THREADS)


def _host_blocks(process):
    """{OS thread id: address of the BlockRun it runs} for every host thread running a block."""
    base = _registry_address(process.GetTarget())
    version = struct.unpack("<I", _read(process, base, 4))[0]
    if version != common.HOST_THREADS_VERSION:
        raise common.DebuggerError("deviceemu: this program's debugger records are version %d; this script reads %d" % (version, common.HOST_THREADS_VERSION))
    out = {}
    p = _u64(process, base + 8)
    for _ in range(1 << 20):
        if p == 0:
            break
        tid, block, nxt = struct.unpack("<QQQ", _read(process, p, 24))
        if tid != 0 and block != 0:
            out[tid] = block
        p = nxt
    return out


def _block_run(target, addr):
    ty = _find_type(target, common.BLOCK_RUN)
    if not ty.IsValid():
        raise common.DebuggerError("deviceemu: no type %s in the program" % common.BLOCK_RUN)
    return target.CreateValueFromAddress("block", lldb.SBAddress(addr, target), ty)


def _warp_op(target, raw, names_cache):
    """A WarpOp's two bytes as Rust's Debug spells it: `Shfl(Idx)` (lldb 14 cannot decode a
    Rust enum: tags and payload types are in deviceemu_common)."""
    tag, payload = raw[0], raw[1]
    if tag >= len(common.WARP_OP_TAGS):
        return None
    variant = common.WARP_OP_TAGS[tag]
    ty = common.WARP_OP_PAYLOADS.get(variant)
    if ty is None:
        return variant
    if ty not in names_cache:
        names_cache[ty] = _enum_names(target, ty)
    return "%s(%s)" % (variant, names_cache[ty].get(payload, "?"))


def _read_block(process, addr):
    """The block at `addr` (a BlockRun) as a common.Block."""
    target = process.GetTarget()
    b = _block_run(target, addr)
    launch = _child(b, "launch").Dereference()
    block_dim, grid_dim = _dim3(_child(launch, "block")), _dim3(_child(launch, "grid"))
    slots = _child(b, "slots")
    slots_addr, n = _fat(slots)
    slot_t = _child(slots, "data_ptr").GetType().GetPointeeType()
    size = slot_t.GetByteSize()
    state_off, at_off = _offset(slot_t, "state"), _offset(slot_t, "at")
    names = _enum_names(target, common.STATE)
    raw = _read(process, slots_addr, size * n)
    states = [names.get(raw[i * size + state_off], "?") for i in range(n)]
    loc_t = _find_type(target, "core::panic::location::Location")
    file_field = "filename" if _has_field(loc_t, "filename") else "file"
    cache = {}
    ats = []
    for i in range(n):
        p = struct.unpack_from("<Q", raw, i * size + at_off)[0]
        if p == 0:
            ats.append(None)
            continue
        if p not in cache:
            loc = target.CreateValueFromAddress("loc", lldb.SBAddress(p, target), loc_t)
            cache[p] = "%s:%d:%d" % (_str(process, _child(loc, file_field)), _child(loc, "line").GetValueAsUnsigned(), _child(loc, "col").GetValueAsUnsigned())
        ats.append(cache[p])
    arrivals = _child(_child(b, "warps"), "warp_arrivals")
    arr_addr, _ = _fat(arrivals)
    arr_t = _find_type(target, "emu_runtime::host::sched::warp::Arrival")
    arr_size, op_off = arr_t.GetByteSize(), _offset(arr_t, "op")
    ops, ops_cache = [], {}
    for t in range(n):
        if states[t] != "WarpWaiting":
            ops.append(None)
            continue
        ops.append(_warp_op(target, _read(process, arr_addr + t * arr_size + op_off, 2), ops_cache))
    starts = _child(b, "starts")
    seeded = _child(starts, "seeded").GetValueAsUnsigned() != 0
    next_start = _cell(_child(starts, "next")).GetValueAsUnsigned()
    ranks = None
    if seeded:
        r_addr, r_n = _fat(_child(starts, "rank"))
        ranks = struct.unpack("<%dI" % r_n, _read(process, r_addr, 4 * r_n))
    started = (lambda t: ranks[t] < next_start) if seeded else (lambda t: t < next_start)
    return common.Block(
        kernel=_str(process, _child(_child(launch, "kernel").Dereference(), "name")),
        block_idx=_dim3(_cell(_child(_child(b, "id"), "idx"))),
        block_dim=block_dim,
        grid_dim=grid_dim,
        current=_cell(_child(b, "current")).GetValueAsUnsigned(),
        states=states,
        ats=ats,
        ops=ops,
        started=started,
        launched_by=_str(process, _child(_child(launch, "devrt"), "launched_by")),
    )


def _has_field(ty, name):
    return any(ty.GetFieldAtIndex(i).GetName() == name for i in range(ty.GetNumberOfFields()))


def _this_block(thread):
    addr = _host_blocks(thread.GetProcess()).get(thread.GetThreadID())
    return (addr, _read_block(thread.GetProcess(), addr)) if addr else None


def _here(frame):
    """(kernel frame or None, thread_idx, block_idx, block or None) of `frame`."""
    found = _kernel_frame(frame)
    ours = _this_block(frame.GetThread())
    block = ours[1] if ours else None
    if found is not None:
        kf, t, b = found
        if block is not None and tuple(block.block_idx) != tuple(b):
            block = None
        return kf, t, b, block
    if block is not None:
        return None, common.unlinear(block.block_dim, block.current), block.block_idx, block
    return None


def _selected_frame(debugger):
    process = debugger.GetSelectedTarget().GetProcess()
    if not process.IsValid() or process.GetState() != lldb.eStateStopped:
        raise common.DebuggerError("deviceemu: the program is not stopped")
    return process.GetSelectedThread().GetSelectedFrame()


def _command(fn):
    """Runs `fn`, turning the script's own errors into the command's error."""

    def run(debugger, command, result, internal_dict):
        try:
            fn(debugger, command, result)
        except common.DebuggerError as e:
            result.SetError(str(e))

    return run


# ---------------------------------------------------------------------------------------------
# Commands


@_command
def emu_where(debugger, command, result):
    here = _here(_selected_frame(debugger))
    if here is None:
        result.PutCString("no GPU thread is running on this host thread")
        return
    kf, t, b, block = here
    if block is not None:
        kernel, launched_by = block.kernel, block.launched_by
    else:
        kernel, launched_by = common.kernel_from_function(kf.GetFunctionName() if kf else ""), ""
    result.PutCString(common.where_text(kernel, b, t, launched_by))


@_command
def emu_threads(debugger, command, result):
    here = _here(_selected_frame(debugger))
    if here is None or here[3] is None:
        result.PutCString("no GPU thread is running on this host thread")
        return
    _, t, _, block = here
    result.PutCString(block.threads_text(common.linear(block.block_dim, t)))


def emu_break_stop(frame, bp_loc, internal_dict):
    """Breakpoint callback: stop only in the wanted GPU thread (never on an error)."""
    try:
        want = _WANT.get(bp_loc.GetBreakpoint().GetID())
        if want is None:
            return True
        found = _kernel_frame(frame)
        return found is not None and common.matches(want[0], found[1]) and common.matches(want[1], found[2])
    except Exception:
        return False


def emu_return_stop(frame, bp_loc, internal_dict):
    """Callback of emu-next's breakpoint at a kernel frame's return address: stop when that GPU
    thread returned for good (not when its state machine returned to wait at a barrier)."""
    try:
        want = _RETURNS.get(bp_loc.GetBreakpoint().GetID())
        if want is None:
            return False
        thread = frame.GetThread()
        process = thread.GetProcess()
        target = process.GetTarget()
        addr = _host_blocks(process).get(thread.GetThreadID())
        if not addr:
            return False
        b = _block_run(target, addr)
        if list(_dim3(_cell(_child(_child(b, "id"), "idx")))) != list(want[0]):
            return False
        if _cell(_child(b, "current")).GetValueAsUnsigned() != want[1]:
            return False
        slots = _child(b, "slots")
        base, _ = _fat(slots)
        slot_t = _child(slots, "data_ptr").GetType().GetPointeeType()
        state = _read(process, base + want[1] * slot_t.GetByteSize() + _offset(slot_t, "state"), 1)[0]
        stop = _enum_names(target, common.STATE).get(state) not in ("Waiting", "WarpWaiting", "Spinning")
        if stop:
            _RETURNED.add(bp_loc.GetBreakpoint().GetID())
        return stop
    except Exception:
        return False


def _set(target, filename, line, thread, block):
    bp = target.BreakpointCreateByLocation(filename, line)
    _WANT[bp.GetID()] = (thread, block)
    bp.SetScriptCallbackFunction("deviceemu.emu_break_stop")
    return bp


def _address(target, sbaddr):
    a = sbaddr.GetLoadAddress(target)
    return a if a != lldb.LLDB_INVALID_ADDRESS else sbaddr.GetFileAddress()


def _branch_target(target, insn):
    m = re.match(r"^\s*(0x[0-9a-fA-F]+)", insn.GetOperands(target) or "")
    return int(m.group(1), 16) if m else None


def _prune_adjacent(target, bps):
    """Disables the locations of `bps` that a thread can only reach by running the one
    instruction at another enabled location of `bps` (the next instruction, or the target of
    a jump there), unless some branch of the function jumps to them.

    lldb 14 stops for no reason (and so in a GPU thread nobody asked for) when it steps over a
    breakpoint whose condition or callback said "go on" and lands on another breakpoint site
    whose callback says "go on" too; this happens wherever one line's code starts with one
    instruction followed by another location (a loop's condition, two lines). The breakpoints
    of one emu-break, or of one emu-next, decide alike for a thread (from its coordinates), so
    a thread that reaches such a location right after the other was decided on already."""
    sites = {}
    for bp in bps:
        for i in range(bp.GetNumLocations()):
            loc = bp.GetLocationAtIndex(i)
            if loc.IsEnabled():
                sites[_address(target, loc.GetAddress())] = loc
    jumped = {}

    def jumped_into(func, addr):
        key = _address(target, func.GetStartAddress())
        if key not in jumped:
            targets = set()
            for insn in func.GetInstructions(target):
                if insn.GetMnemonic(target).startswith("j"):
                    t = _branch_target(target, insn)
                    if t is not None:
                        targets.add((t, _address(target, insn.GetAddress())))
            jumped[key] = targets
        return jumped[key]

    off = set()
    for a in sorted(sites):
        if a in off:
            continue
        loc = sites[a]
        insns = target.ReadInstructions(loc.GetAddress(), 1)
        if insns.GetSize() == 0:
            continue
        insn = insns.GetInstructionAtIndex(0)
        mnemonic = insn.GetMnemonic(target)
        if mnemonic.startswith("call") or mnemonic.startswith("ret"):
            continue
        after = set() if mnemonic == "jmp" else {a + insn.GetByteSize()}
        if mnemonic.startswith("j"):
            t = _branch_target(target, insn)
            if t is not None:
                after.add(t)
        func = loc.GetAddress().GetFunction()
        for b in after:
            if b in sites and b != a and b not in off and func.IsValid():
                if any(t == b and src != a for t, src in jumped_into(func, b)):
                    continue
                sites[b].SetEnabled(False)
                off.add(b)


# emu-break breakpoints gated by DEVICEEMU_WATCH_BLOCKS (see emu-runtime's debugger.rs): id ->
# block pattern; and (process id, OS thread id) -> the watched block that host thread runs.
_GATED = {}
_RUNNING = {}
_WATCH = "deviceemu_watched_block"


def _gate(target, bp, block):
    """Keeps `bp` disabled except while a block matching `block` runs, when the program is yet
    to start (it reads DEVICEEMU_WATCH_BLOCKS when it starts) and has the hook: the debugger
    then stops once per watched block instead of at every hit of the line in other blocks
    (lldb takes ~0.2 s per stop when a block's 256 threads are OS threads). Returns whether it
    did."""
    process = target.GetProcess()
    if block is None or (process.IsValid() and process.GetState() not in (lldb.eStateInvalid, lldb.eStateExited, lldb.eStateDetached, lldb.eStateUnloaded)):
        return False
    if not target.FindFunctions(_WATCH).GetSize():
        return False
    _GATED[bp.GetID()] = list(block)
    patterns = ";".join(",".join([str(c) for c in b] + ["*"] * (3 - len(b))) for b in _GATED.values())
    # (lldb 14 has no SBTarget.SetEnvironment.)
    interp, ro = target.GetDebugger().GetCommandInterpreter(), lldb.SBCommandReturnObject()
    interp.HandleCommand("settings remove target.env-vars DEVICEEMU_WATCH_BLOCKS", ro)
    interp.HandleCommand("settings append target.env-vars DEVICEEMU_WATCH_BLOCKS=%s" % patterns, ro)
    if not ro.Succeeded():
        _GATED.pop(bp.GetID(), None)
        return False
    if not any(target.GetBreakpointAtIndex(i).MatchesName(_WATCH) for i in range(target.GetNumBreakpoints())):
        watch = target.BreakpointCreateByName(_WATCH)
        watch.AddName(_WATCH)
        watch.SetScriptCallbackFunction("deviceemu.emu_watch_stop")
    bp.SetEnabled(False)
    return True


def emu_watch_stop(frame, bp_loc, internal_dict):
    """Callback of the hook the runtime calls when a host thread starts a watched block (or
    the first block after one): enables the gated breakpoints of the blocks that run, disables
    the others. Never stops; on an error it enables them all (a stop too many, never one too
    few)."""
    thread = frame.GetThread()
    process = thread.GetProcess()
    target = process.GetTarget()
    try:
        b = [frame.FindVariable(n).GetValueAsUnsigned() for n in ("bx", "by", "bz", "entered")]
        _RUNNING[(process.GetProcessID(), thread.GetThreadID())] = tuple(b[:3]) if b[3] else None
        pid = process.GetProcessID()
        running = [blk for (p, _), blk in _RUNNING.items() if p == pid and blk is not None]
        for bid, pattern in _GATED.items():
            bp = target.FindBreakpointByID(bid)
            if bp.IsValid():
                bp.SetEnabled(any(common.matches(pattern, blk) for blk in running))
    except Exception:
        for bid in _GATED:
            bp = target.FindBreakpointByID(bid)
            if bp.IsValid():
                bp.SetEnabled(True)
    return False


def _show(parts):
    return "(%s)" % ",".join([str(p) for p in parts] + ["*"] * (3 - len(parts)))


@_command
def emu_break(debugger, command, result):
    usage = "usage: emu-break FILE:LINE TX[,TY[,TZ]] [BX[,BY[,BZ]]]"
    loc, thread, block = common.parse_break(command, usage)
    if ":" not in loc:
        raise common.DebuggerError(usage)
    filename, line = loc.rsplit(":", 1)
    target = debugger.GetSelectedTarget()
    bp = _set(target, filename, int(line), thread, block)
    _prune_adjacent(target, [bp])
    gated = _gate(target, bp, block)
    result.PutCString(
        "Breakpoint %d: %s in GPU thread %s of block %s (%d locations%s)"
        % (bp.GetID(), loc, _show(thread), _show(block or []), bp.GetNumLocations(), "; enabled while such a block runs" if gated else "")
    )


# ---------------------------------------------------------------------------------------------
# Stepping in one GPU thread

_NOT_USER = re.compile(r"(^|/)(emu-runtime|emu-macros|library/(core|std|alloc)|rustc/[0-9a-f]+|\.cargo/registry|\.rustup)/")


def _function_lines(frame):
    """(file spec, the frame's line, the other lines of the frame's function)."""
    target = frame.GetThread().GetProcess().GetTarget()
    entry = frame.GetLineEntry()
    func = frame.GetFunction()
    if not func.IsValid() or not entry.IsValid():
        raise common.DebuggerError("emu-next: no line information here")
    start = func.GetStartAddress().GetLoadAddress(target)
    end = func.GetEndAddress().GetLoadAddress(target)
    first = func.GetStartAddress().GetLineEntry().GetLine()
    cu = frame.GetCompileUnit()
    lines = set()
    for i in range(cu.GetNumLineEntries()):
        le = cu.GetLineEntryAtIndex(i)
        a = le.GetStartAddress().GetLoadAddress(target)
        if start <= a < end and le.GetFileSpec() == entry.GetFileSpec() and le.GetLine() > 0:
            lines.add(le.GetLine())
    # The first line is the entry a state-machine kernel passes each time it is resumed.
    lines.discard(first)
    lines.discard(entry.GetLine())
    return entry.GetFileSpec(), entry.GetLine(), sorted(lines)


def _called_user_functions(frame):
    """(file, line) of the program's own functions that the frame's current line calls."""
    target = frame.GetThread().GetProcess().GetTarget()
    entry = frame.GetLineEntry()
    func = frame.GetFunction()
    cu = frame.GetCompileUnit()
    start = func.GetStartAddress().GetLoadAddress(target)
    end = func.GetEndAddress().GetLoadAddress(target)
    entries = []
    for i in range(cu.GetNumLineEntries()):
        le = cu.GetLineEntryAtIndex(i)
        a = le.GetStartAddress().GetLoadAddress(target)
        if start <= a < end:
            entries.append((a, le.GetEndAddress().GetLoadAddress(target), le.GetLine(), le.GetFileSpec()))
    ranges = [(a, e) for a, e, l, f in entries if l == entry.GetLine() and f == entry.GetFileSpec() and e > a]
    out = set()
    for insn in func.GetInstructions(target):
        a = insn.GetAddress().GetLoadAddress(target)
        if not any(s <= a < e for s, e in ranges):
            continue
        if not insn.GetMnemonic(target).startswith("call"):
            continue
        m = re.match(r"^\s*(0x[0-9a-fA-F]+)", insn.GetOperands(target))
        if not m:
            continue
        callee = target.ResolveLoadAddress(int(m.group(1), 16)).GetFunction()
        if not callee.IsValid():
            continue
        le = callee.GetStartAddress().GetLineEntry()
        path = le.GetFileSpec().fullpath or ""
        if not le.IsValid() or _NOT_USER.search(path):
            continue
        out.add((path, le.GetLine()))
    return sorted(out)


def _step(debugger, result, into):
    name = "emu-step" if into else "emu-next"
    frame = _selected_frame(debugger)
    target = debugger.GetSelectedTarget()
    process = target.GetProcess()
    found = _kernel_frame(frame)
    if found is None:
        raise common.DebuggerError("%s: no GPU thread here (no kernel frame at or above the selected frame)" % name)
    kf, thread, block = found
    here = _here(frame)
    block_dim = here[3].block_dim if here and here[3] else None
    # Where the same GPU thread may stop next: another line of this function; in a helper,
    # another line of each caller up to the kernel frame; with emu-step, the first line of a
    # function of the program this line calls; and the kernel frame's return (it exits).
    specs = []
    spec, current, lines = _function_lines(frame)
    specs += [(spec.fullpath, l) for l in lines]
    os_thread = frame.GetThread()
    for i in range(frame.GetFrameID() + 1, kf.GetFrameID() + 1):
        s, _, ls = _function_lines(os_thread.GetFrameAtIndex(i))
        specs += [(s.fullpath, l) for l in ls]
    if into:
        specs += _called_user_functions(frame)
    own_thread = re.match(r"^b\d+t\d+$", os_thread.GetName() or "") is not None
    # The user's breakpoints on this line would stop again where the GPU thread resumes after
    # a barrier (the rest of the line): they sleep until the step ends.
    asleep = []
    for i in range(target.GetNumBreakpoints()):
        b = target.GetBreakpointAtIndex(i)
        if not b.IsEnabled():
            continue
        for j in range(b.GetNumLocations()):
            le = b.GetLocationAtIndex(j).GetAddress().GetLineEntry()
            if le.GetLine() == current and le.GetFileSpec() == spec:
                asleep.append(b)
                b.SetEnabled(False)
                break
    bps = []
    ret = None
    try:
        for path, line in specs:
            bp = _set(target, path, line, list(thread), list(block))
            if own_thread:
                bp.SetThreadID(os_thread.GetThreadID())
            bps.append(bp)
        caller = os_thread.GetFrameAtIndex(kf.GetFrameID() + 1)
        if caller.IsValid() and block_dim is not None:
            ret = target.BreakpointCreateByAddress(caller.GetPC())
            _RETURNS[ret.GetID()] = (list(block), common.linear(block_dim, thread))
            ret.SetScriptCallbackFunction("deviceemu.emu_return_stop")
            if own_thread:
                ret.SetThreadID(os_thread.GetThreadID())
        if not bps and ret is None:
            raise common.DebuggerError("%s: no other line in this kernel; use `finish` or `continue`" % name)
        _prune_adjacent(target, bps)
        old = debugger.GetAsync()
        debugger.SetAsync(False)
        try:
            # A stop no thread has a reason for is lldb's (see _prune_adjacent): go on.
            for _ in range(1000):
                process.Continue()
                if process.GetState() != lldb.eStateStopped or _real_stop(process):
                    break
        finally:
            debugger.SetAsync(old)
        exited = ret is not None and ret.GetID() in _RETURNED
    finally:
        for bp in bps:
            _WANT.pop(bp.GetID(), None)
            target.BreakpointDelete(bp.GetID())
        if ret is not None:
            _RETURNS.pop(ret.GetID(), None)
            _RETURNED.discard(ret.GetID())
            target.BreakpointDelete(ret.GetID())
        for b in asleep:
            b.SetEnabled(True)
    if process.GetState() != lldb.eStateStopped:
        result.PutCString("Process %d %s" % (process.GetProcessID(), lldb.SBDebugger.StateAsCString(process.GetState())))
        return
    t = process.GetSelectedThread()
    f = t.GetSelectedFrame()
    le = f.GetLineEntry()
    if exited:
        result.PutCString("[GPU thread %s of block %s returned from its kernel function: it exited]" % (common.dim(thread), common.dim(block)))
    result.PutCString("%s at %s:%d" % (f.GetFunctionName(), le.GetFileSpec().GetFilename(), le.GetLine()))


@_command
def emu_next(debugger, command, result):
    _step(debugger, result, False)


@_command
def emu_step(debugger, command, result):
    _step(debugger, result, True)


# ---------------------------------------------------------------------------------------------
# Focus


def _select(thread):
    process = thread.GetProcess()
    process.SetSelectedThread(thread)
    found = _kernel_frame(thread.GetFrameAtIndex(0))
    if found is not None:
        thread.SetSelectedFrame(found[0].GetFrameID())
    return found


def emu_focus(debugger, command, result, internal_dict):
    """A refusal is a warning, not an error: in a command file or `lldb -b`, an error ends the
    commands that follow."""
    try:
        _focus(debugger, command, result)
    except common.DebuggerError as e:
        if str(e).startswith("emu-focus: usage") or "usage:" in str(e):
            result.SetError(str(e))
        else:
            result.AppendWarning(str(e))


def _focus(debugger, command, result):
    want_block, want_thread = common.parse_focus(command)
    process = _selected_frame(debugger).GetThread().GetProcess()
    threads = {process.GetThreadAtIndex(i).GetThreadID(): process.GetThreadAtIndex(i) for i in range(process.GetNumThreads())}
    seen = None
    for tid, addr in _host_blocks(process).items():
        block = _read_block(process, addr)
        if list(block.block_idx) != want_block:
            continue
        seen = block
        lin_t = common.linear(block.block_dim, want_thread)
        if any(c >= d for c, d in zip(want_thread, block.block_dim)):
            raise common.DebuggerError("emu-focus: block %s has no thread %s (its size is %s)" % (common.dim(want_block), common.dim(want_thread), common.dim(block.block_dim)))
        name = "b%dt%d" % (block.linear_block(), lin_t)
        for t in threads.values():
            if t.GetName() == name:
                _select(t)
                _said(result, block, want_thread, t)
                return
        own = tid in threads and re.match(r"^b\d+t\d+$", threads[tid].GetName() or "")
        if block.current == lin_t and tid in threads and not own:
            found = _select(threads[tid])
            if found is not None and list(found[1]) == want_thread:
                _said(result, block, want_thread, threads[tid])
                return
    if seen is None:
        raise common.DebuggerError("emu-focus: block %s is not running now (no host thread runs it); emu-break a line in it to stop there" % common.dim(want_block))
    raise common.DebuggerError(common.focus_refusal(seen, want_block, want_thread, "lldb"))


def _said(result, block, thread, os_thread):
    f = os_thread.GetSelectedFrame()
    le = f.GetLineEntry()
    result.PutCString("[Focus: kernel %s, block %s, thread %s]" % (block.kernel, common.dim(block.block_idx), common.dim(thread)))
    result.PutCString("%s at %s:%d" % (f.GetFunctionName(), le.GetFileSpec().GetFilename(), le.GetLine()))


def _real_stop(process):
    """Whether some thread of the stopped `process` says why it stopped."""
    for i in range(process.GetNumThreads()):
        if process.GetThreadAtIndex(i).GetStopReason() not in (lldb.eStopReasonNone, lldb.eStopReasonInvalid):
            return True
    return False


def __lldb_init_module(debugger, internal_dict):
    for name, fn in (
        ("emu-where", "emu_where"),
        ("emu-threads", "emu_threads"),
        ("emu-break", "emu_break"),
        ("emu-next", "emu_next"),
        ("emu-step", "emu_step"),
        ("emu-focus", "emu_focus"),
    ):
        debugger.HandleCommand("command script add -f deviceemu.%s %s" % (fn, name))
