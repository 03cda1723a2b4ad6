"""gdb commands for deviceemu: which GPU thread is this, and what is its block doing?

Load it with `source tools/gdb/deviceemu.py` (or add that line to ~/.gdbinit). Commands:

  emu-where                     kernel, block and thread the current host thread is running
  emu-threads                   every thread of the current block: running, waiting at a
                                barrier (with the line), exited, not started
  emu-break LOCATION TX [BX]    break at LOCATION only in GPU thread TX (threadIdx.x) and,
                                if given, block BX (blockIdx.x); e.g. `emu-break saxpy.rs:8 37 2`

They call the `deviceemu_*` functions that every deviceemu program contains.
"""

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


class EmuBreak(gdb.Command):
    """emu-break LOCATION TX [BX]: break at LOCATION in threadIdx.x == TX (and blockIdx.x == BX)."""

    def __init__(self):
        super().__init__("emu-break", gdb.COMMAND_BREAKPOINTS)

    def invoke(self, arg, from_tty):
        parts = arg.split()
        if len(parts) not in (2, 3):
            raise gdb.GdbError("usage: emu-break LOCATION TX [BX]")
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
