"""gdb commands for deviceemu: which GPU thread is this, and what is its block doing?

Load it with `source tools/gdb/deviceemu.py` (or add that line to ~/.gdbinit). Commands:

  emu-where                     kernel, block and thread the current host thread is running
  emu-threads                   every thread of the current block: running, waiting at a
                                barrier (with the line), exited, not started
  emu-break LOCATION TX [BX]    break at LOCATION only in GPU thread TX (threadIdx.x) and,
                                if given, block BX (blockIdx.x); e.g. `emu-break saxpy.rs:8 37 2`.
                                With EMU_SCHEDULE=threads (every GPU thread an OS thread named
                                b<block>t<thread>), TX and BX are linear indices (x for 1-D
                                launches), matched against the thread's name.

They call the `deviceemu_*` functions that every deviceemu program contains.
"""

import re

import gdb


def _call_c(expr):
    """Evaluates a C expression (the helpers are plain C functions) in any frame language."""
    old = gdb.parameter("language")
    gdb.execute("set language c", to_string=True)
    try:
        return gdb.parse_and_eval(expr)
    finally:
        gdb.execute("set language " + old, to_string=True)


class EmuWhere(gdb.Command):
    """Print the kernel, block and thread the current host thread is running."""

    def __init__(self):
        super().__init__("emu-where", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        print(_call_c("(char *)deviceemu_where()").string())


class EmuThreads(gdb.Command):
    """Print what every thread of the current block is doing."""

    def __init__(self):
        super().__init__("emu-threads", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        print(_call_c("(char *)deviceemu_block_threads()").string(), end="")


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
    """emu-break LOCATION TX [BX]: break at LOCATION in threadIdx.x == TX (and blockIdx.x == BX)."""

    def __init__(self):
        super().__init__("emu-break", gdb.COMMAND_BREAKPOINTS)

    def invoke(self, arg, from_tty):
        parts = arg.split()
        if len(parts) not in (2, 3):
            raise gdb.GdbError("usage: emu-break LOCATION TX [BX]")
        if _threads_schedule():
            _NamedThreadBreakpoint(parts[0], int(parts[1]), int(parts[2]) if len(parts) == 3 else None)
            return
        cond = "deviceemu_thread_idx_x() == %d" % int(parts[1])
        if len(parts) == 3:
            cond += " && deviceemu_block_idx_x() == %d" % int(parts[2])
        old = gdb.parameter("language")
        gdb.execute("set language c", to_string=True)
        try:
            gdb.execute("break %s if %s" % (parts[0], cond))
        finally:
            gdb.execute("set language " + old, to_string=True)


EmuWhere()
EmuThreads()
EmuBreak()
