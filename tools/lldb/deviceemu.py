"""lldb commands for deviceemu, the same as tools/gdb/deviceemu.py's.

Load it with `command script import tools/lldb/deviceemu.py` (or add that line to
~/.lldbinit). Commands:

  emu-where                     kernel, block and thread the current host thread is running
  emu-threads                   every thread of the current block: running, waiting at a
                                barrier (with the line), exited, not started
  emu-break FILE:LINE TX[,TY[,TZ]] [BX[,BY[,BZ]]]
                                break at FILE:LINE only in GPU thread (TX,TY,TZ) of block
                                (BX,BY,BZ); missing components are not compared
  emu-next                      step over this line, a sync_threads() or warp collective
                                included, and stop at the next line the same GPU thread runs
                                in this function

lldb cannot call the `deviceemu_*` Rust functions by name, so the script finds their
addresses and calls them through a C function-pointer cast.
"""

import lldb

_HELPERS = {}


_ADDRESSES = {}


def _address(target, name):
    """The load address of the `deviceemu_*` function `name` (looked up once per process)."""
    key = (target.GetProcess().GetProcessID(), name)
    if key not in _ADDRESSES:
        _ADDRESSES[key] = _find_address(target, name)
    return _ADDRESSES[key]


def _find_address(target, name):
    for ctx in target.FindFunctions(name):
        sym = ctx.GetSymbol()
        if sym.IsValid():
            addr = sym.GetStartAddress().GetLoadAddress(target)
            if addr != lldb.LLDB_INVALID_ADDRESS:
                return addr
    syms = target.FindSymbols(name)
    for ctx in syms:
        addr = ctx.GetSymbol().GetStartAddress().GetLoadAddress(target)
        if addr != lldb.LLDB_INVALID_ADDRESS:
            return addr
    raise RuntimeError("%s not found: is this a deviceemu program, and is it running?" % name)


def _call(frame, name, ret):
    """Calls `ret name(void)` in the stopped program and returns the SBValue."""
    target = frame.GetThread().GetProcess().GetTarget()
    addr = _address(target, name)
    opts = lldb.SBExpressionOptions()
    opts.SetLanguage(lldb.eLanguageTypeC)
    opts.SetTryAllThreads(False)
    opts.SetStopOthers(True)
    opts.SetIgnoreBreakpoints(True)
    return frame.EvaluateExpression("((%s (*)(void))0x%x)()" % (ret, addr), opts)


def _string(frame, name):
    v = _call(frame, name, "char *")
    return v.GetSummary().strip('"').encode().decode("unicode_escape") if v.GetError().Success() else str(v.GetError())


def _index(frame):
    """((tx, ty, tz), (bx, by, bz)) of the GPU thread on the frame's host thread."""
    get = lambda which: tuple(_call(frame, "deviceemu_%s_%s" % (which, a), "unsigned").GetValueAsUnsigned() for a in "xyz")
    return get("thread_idx"), get("block_idx")


def _parse_dim(text):
    parts = [int(p) for p in text.split(",") if p != ""]
    if not 1 <= len(parts) <= 3:
        raise ValueError("a thread or block index is X, X,Y or X,Y,Z")
    return parts


def _matches(frame, want):
    """Whether the frame's GPU thread is `want`; asks one component at a time, x first."""
    wt, wb = want
    for which, dims in (("thread_idx", wt), ("block_idx", wb or [])):
        for axis, v in zip("xyz", dims):
            if _call(frame, "deviceemu_%s_%s" % (which, axis), "unsigned").GetValueAsUnsigned() != v:
                return False
    return True


def emu_break_stop(frame, bp_loc, internal_dict):
    """Breakpoint callback: stop only in the wanted GPU thread."""
    want = _HELPERS.get(bp_loc.GetBreakpoint().GetID())
    return want is None or _matches(frame, want)


def emu_where(debugger, command, result, internal_dict):
    frame = debugger.GetSelectedTarget().GetProcess().GetSelectedThread().GetSelectedFrame()
    result.PutCString(_string(frame, "deviceemu_where"))


def emu_threads(debugger, command, result, internal_dict):
    frame = debugger.GetSelectedTarget().GetProcess().GetSelectedThread().GetSelectedFrame()
    result.PutCString(_string(frame, "deviceemu_block_threads").rstrip("\n"))


def _set(target, filename, line, want):
    bp = target.BreakpointCreateByLocation(filename, line)
    _HELPERS[bp.GetID()] = want
    bp.SetScriptCallbackFunction("deviceemu.emu_break_stop")
    return bp


def emu_break(debugger, command, result, internal_dict):
    parts = command.split()
    if len(parts) not in (2, 3) or ":" not in parts[0]:
        result.SetError("usage: emu-break FILE:LINE TX[,TY[,TZ]] [BX[,BY[,BZ]]]")
        return
    filename, line = parts[0].rsplit(":", 1)
    want = (_parse_dim(parts[1]), _parse_dim(parts[2]) if len(parts) == 3 else None)
    bp = _set(debugger.GetSelectedTarget(), filename, int(line), want)
    result.PutCString("Breakpoint %d: %s:%s in GPU thread %s of block %s" % (bp.GetID(), filename, line, parts[1], parts[2] if len(parts) == 3 else "any"))


def emu_next(debugger, command, result, internal_dict):
    target = debugger.GetSelectedTarget()
    process = target.GetProcess()
    frame = process.GetSelectedThread().GetSelectedFrame()
    thread, block = _index(frame)
    if thread[0] == 0xFFFFFFFF:
        result.SetError("emu-next: no GPU thread is running on this host thread")
        return
    entry = frame.GetLineEntry()
    func = frame.GetFunction()
    start, end = func.GetStartAddress().GetFileAddress(), func.GetEndAddress().GetFileAddress()
    cu = frame.GetCompileUnit()
    first = func.GetStartAddress().GetLineEntry().GetLine()
    lines = set()
    for i in range(cu.GetNumLineEntries()):
        le = cu.GetLineEntryAtIndex(i)
        a = le.GetStartAddress().GetFileAddress()
        if start <= a < end and le.GetFileSpec() == entry.GetFileSpec() and le.GetLine() > 0:
            lines.add(le.GetLine())
    # The first line is the entry a state-machine kernel passes each time it is resumed.
    lines.discard(first)
    lines.discard(entry.GetLine())
    if not lines:
        result.SetError("emu-next: no other line in this function; use `finish`")
        return
    filename = entry.GetFileSpec().GetFilename()
    # The user's breakpoints on this line would stop again where the GPU thread resumes after
    # the barrier (the rest of the line): they sleep until emu-next stops.
    asleep = []
    for i in range(target.GetNumBreakpoints()):
        b = target.GetBreakpointAtIndex(i)
        if not b.IsEnabled():
            continue
        for j in range(b.GetNumLocations()):
            le = b.GetLocationAtIndex(j).GetAddress().GetLineEntry()
            if le.GetLine() == entry.GetLine() and le.GetFileSpec() == entry.GetFileSpec():
                asleep.append(b)
                b.SetEnabled(False)
                break
    bps = [_set(target, filename, l, (list(thread), list(block))) for l in sorted(lines)]
    old = debugger.GetAsync()
    debugger.SetAsync(False)
    try:
        process.Continue()
    finally:
        debugger.SetAsync(old)
        for bp in bps:
            _HELPERS.pop(bp.GetID(), None)
            target.BreakpointDelete(bp.GetID())
        for b in asleep:
            b.SetEnabled(True)
    t = process.GetSelectedThread()
    f = t.GetSelectedFrame()
    le = f.GetLineEntry()
    result.PutCString("%s at %s:%d" % (f.GetFunctionName(), le.GetFileSpec().GetFilename(), le.GetLine()))


def __lldb_init_module(debugger, internal_dict):
    for name, fn in (("emu-where", "emu_where"), ("emu-threads", "emu_threads"), ("emu-break", "emu_break"), ("emu-next", "emu_next")):
        debugger.HandleCommand("command script add -f deviceemu.%s %s" % (fn, name))
