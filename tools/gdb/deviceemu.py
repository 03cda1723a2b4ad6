"""gdb commands for deviceemu: which GPU thread is this, and what is its block doing?

Load it with `source tools/gdb/deviceemu.py` (or add that line to ~/.gdbinit). Commands:

  emu-where                     kernel, block and thread the current host thread is running
  emu-threads                   every thread of the current block: running, waiting at a
                                barrier (with the line), exited, not started
  emu-break LOCATION TX[,TY[,TZ]] [BX[,BY[,BZ]]]
                                break at LOCATION only in GPU thread (TX,TY,TZ) of block
                                (BX,BY,BZ); missing components are not compared, e.g.
                                `emu-break blur.rs:30 5,2 1,0` stops in thread (5,2,0)
                                of block (1,0,0) of a 2-D launch.
  emu-next                      `next` for a GPU thread: steps over the current line, a
                                sync_threads() or warp collective included, and stops at the
                                next line this same GPU thread runs in this function (plain
                                `next` over a barrier lands in the runtime's scheduler).

With EMU_SCHEDULE=threads (every GPU thread an OS thread named b<block>t<thread>, linear
indices) emu-break matches x-only arguments against the thread's name without calling into
the program; with y or z components it asks the program, as with fibers. The script turns
`print thread-events` off: with EMU_SCHEDULE=threads a launch starts and ends an OS thread
per GPU thread, and gdb would print two lines for each.

They call the `deviceemu_*` functions that every deviceemu program contains.
"""

import re

import gdb

gdb.execute("set print thread-events off", to_string=True)


def _call_c(expr):
    """Evaluates a C expression (the helpers are plain C functions) in any frame language."""
    old = gdb.parameter("language")
    gdb.execute("set language c", to_string=True)
    try:
        return gdb.parse_and_eval(expr)
    finally:
        gdb.execute("set language " + old, to_string=True)


def _parse_dim(text):
    """'5' -> [5], '5,2' -> [5, 2], '5,2,0' -> [5, 2, 0]."""
    parts = [int(p) for p in text.split(",") if p != ""]
    if not 1 <= len(parts) <= 3:
        raise gdb.GdbError("a thread or block index is X, X,Y or X,Y,Z")
    return parts


def _condition(thread, block):
    """The C condition that holds only in GPU thread `thread` of block `block`."""
    terms = []
    for which, dims in (("thread_idx", thread), ("block_idx", block)):
        for axis, v in zip("xyz", dims or []):
            terms.append("deviceemu_%s_%s() == %d" % (which, axis, v))
    return " && ".join(terms)


def _break_c(location, cond, internal=False):
    """A breakpoint at `location` with the C condition `cond`."""
    old = gdb.parameter("language")
    gdb.execute("set language c", to_string=True)
    try:
        bp = gdb.Breakpoint(location, internal=internal)
        bp.condition = cond
        return bp
    finally:
        gdb.execute("set language " + old, to_string=True)


class EmuWhere(gdb.Command):
    """Print the kernel, block and thread the current host thread is running."""

    def __init__(self):
        super().__init__("emu-where", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        print(_call_c("(char *)deviceemu_where()").string().split("\0")[0])


class EmuThreads(gdb.Command):
    """Print what every thread of the current block is doing."""

    def __init__(self):
        super().__init__("emu-threads", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        print(_call_c("(char *)deviceemu_block_threads()").string().split("\0")[0], end="")


class _NamedThreadBreakpoint(gdb.Breakpoint):
    """Stops only in the OS thread named b<BX>t<TX> (EMU_SCHEDULE=threads): decided from the
    thread's name, without calling into the program (gdb's inferior calls are unreliable while
    threads come and go)."""

    def __init__(self, location, tx, bx):
        super().__init__(location)
        self.tx, self.bx = tx, bx

    def stop(self):
        m = re.match(r"^b(\d+)t(\d+)$", gdb.selected_thread().name or "")
        return bool(m) and int(m.group(2)) == self.tx and (self.bx is None or int(m.group(1)) == self.bx)


def _threads_schedule():
    """Whether the program will run with EMU_SCHEDULE=threads."""
    shown = gdb.execute("show environment EMU_SCHEDULE", to_string=True)
    return shown.strip().endswith("= threads")


class EmuBreak(gdb.Command):
    """emu-break LOCATION TX[,TY[,TZ]] [BX[,BY[,BZ]]]: break at LOCATION only in that GPU thread."""

    def __init__(self):
        super().__init__("emu-break", gdb.COMMAND_BREAKPOINTS)

    def invoke(self, arg, from_tty):
        parts = arg.split()
        if len(parts) not in (2, 3):
            raise gdb.GdbError("usage: emu-break LOCATION TX[,TY[,TZ]] [BX[,BY[,BZ]]]")
        thread = _parse_dim(parts[1])
        block = _parse_dim(parts[2]) if len(parts) == 3 else None
        if _threads_schedule() and len(thread) == 1 and (block is None or len(block) == 1):
            _NamedThreadBreakpoint(parts[0], thread[0], block[0] if block else None)
            return
        _break_c(parts[0], _condition(thread, block))


def _function_lines(frame):
    """The source lines, in the frame's file, of the code of the frame's function."""
    block = frame.block()
    while block.function is None and block.superblock is not None:
        block = block.superblock
    sal = frame.find_sal()
    if sal.symtab is None:
        raise gdb.GdbError("emu-next: no line information here")
    entry = gdb.find_pc_line(block.start).line
    lines = set()
    for e in sal.symtab.linetable():
        if block.start <= e.pc < block.end and e.line > 0:
            lines.add(e.line)
    # The function's first line is its entry, which a state-machine kernel passes through each
    # time it is resumed, before it jumps to where it left off.
    lines.discard(entry)
    return sal.symtab.filename, sal.line, sorted(lines)


class EmuNext(gdb.Command):
    """emu-next: step over this line (barriers included) and stop in the same GPU thread."""

    def __init__(self):
        super().__init__("emu-next", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        frame = gdb.selected_frame()
        filename, current, lines = _function_lines(frame)
        targets = [l for l in lines if l != current]
        if not targets:
            raise gdb.GdbError("emu-next: no other line in this function; use `finish`")
        os_thread = gdb.selected_thread()
        named = re.match(r"^b\d+t\d+$", os_thread.name or "")
        if named:
            cond = None
        else:
            axes = lambda which: [int(_call_c("deviceemu_%s_%s()" % (which, a))) for a in "xyz"]
            thread, block = axes("thread_idx"), axes("block_idx")
            if thread[0] == 0xFFFFFFFF:
                raise gdb.GdbError("emu-next: no GPU thread is running on this host thread")
            cond = _condition(thread, block)
        # The user's breakpoints on this line would stop again where the GPU thread resumes after
        # the barrier (the rest of the line): they sleep until emu-next stops.
        asleep = [
            b for b in gdb.breakpoints()
            if b.enabled and b.number > 0 and re.search(r"(^|[/ ])%s:%d$" % (re.escape(filename.split("/")[-1]), current), b.location or "")
        ]
        for b in asleep:
            b.enabled = False
        bps = []
        try:
            for line in targets:
                spec = "%s:%d" % (filename, line)
                try:
                    if cond is None:
                        bp = gdb.Breakpoint(spec, internal=True)
                        bp.thread = os_thread.num
                    else:
                        bp = _break_c(spec, cond, internal=True)
                except gdb.error:
                    continue
                bp.silent = True
                bps.append(bp)
            gdb.execute("continue", from_tty)
            # Like `next`, show the line it stopped at.
            if gdb.selected_thread() is not None and gdb.selected_thread().is_valid():
                sal = gdb.selected_frame().find_sal()
                if sal.symtab is not None:
                    gdb.execute("list %s:%d,%d" % (sal.symtab.filename, sal.line, sal.line))
        finally:
            for bp in bps:
                if bp.is_valid():
                    bp.delete()
            for b in asleep:
                if b.is_valid():
                    b.enabled = True


EmuWhere()
EmuThreads()
EmuBreak()
EmuNext()
