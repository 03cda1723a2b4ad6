#!/usr/bin/env python3
"""Times the README's debugger flow: from starting the debugger (which runs the program at
once) to the stop in the chosen GPU thread, with the helpers loaded:

    EMU_BLOCKS=serial gdb -q target/debug/examples/saxpy
    (gdb) source tools/gdb/deviceemu.py
    (gdb) emu-break saxpy.rs:24 3 1
    (gdb) run
    (gdb) emu-where

and the same in lldb, with fibers (the default) and with EMU_SCHEDULE=threads. Prints one line
per session: debugger, schedule, seconds to the stop (until emu-where printed the thread), and
whether it stopped in the right GPU thread. gdb runs with `set may-call-functions off`.

Usage: tools/time_to_breakpoint.py [--limit SECONDS] [gdb|lldb ...] [fibers|threads ...]
(run `cargo build --example saxpy` first). A session past the limit (default 600 s) is
killed, with the program it debugs.
"""

import glob
import os
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WANT = "kernel block_sum, block (1,0,0), thread (3,0,0)"


def lldb_pythonpath():
    found = sorted(glob.glob("/usr/lib/llvm-*/lib/python3*/dist-packages/lldb/__init__.py"))
    return os.path.dirname(os.path.dirname(found[-1])) if found else None


def command(dbg, exe):
    if dbg == "gdb":
        return [
            "gdb", "-q", "-batch", "-nx",
            "-ex", "set pagination off",
            "-ex", "set may-call-functions off",
            "-ex", "source tools/gdb/deviceemu.py",
            "-ex", "emu-break saxpy.rs:24 3 1",
            "-ex", "run",
            "-ex", "emu-where",
            "-ex", "kill",
            exe,
        ]
    return [
        "lldb", "-b",
        "-o", "command script import tools/lldb/deviceemu.py",
        "-o", "emu-break saxpy.rs:24 3 1",
        "-o", "run",
        "-o", "emu-where",
        "-o", "kill",
        exe,
    ]


def session(dbg, schedule, limit):
    exe = os.path.join(ROOT, "target/debug/examples/saxpy")
    env = dict(os.environ, EMU_BLOCKS="serial")
    if schedule == "threads":
        env["EMU_SCHEDULE"] = "threads"
    else:
        env.pop("EMU_SCHEDULE", None)
    if dbg == "lldb":
        if lldb_pythonpath():
            env["PYTHONPATH"] = lldb_pythonpath()
        # lldb's embedded Python finds its library from the first python3 on PATH: the
        # system's, next to lldb, not a pyenv shim.
        lldb_dir = os.path.dirname(shutil.which("lldb") or "/usr/bin/lldb")
        env["PATH"] = lldb_dir + os.pathsep + env.get("PATH", "")
    t0 = time.monotonic()
    p = subprocess.Popen(command(dbg, exe), cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, start_new_session=True)
    stopped, where = None, None
    try:
        for line in p.stdout:
            if time.monotonic() - t0 > limit:
                break
            if line.startswith("kernel "):
                stopped, where = time.monotonic() - t0, line.strip()
                break
    finally:
        # The debugger, the program and (lldb) lldb-server are in the session's group.
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    if stopped is None:
        return "%-4s %-7s no stop within %d s" % (dbg, schedule, limit)
    return "%-4s %-7s %6.1f s  %s" % (dbg, schedule, stopped, "right thread" if where == WANT else "WRONG: " + where)


def main():
    args = sys.argv[1:]
    limit = 600
    if "--limit" in args:
        i = args.index("--limit")
        limit = int(args[i + 1])
        del args[i:i + 2]
    dbgs = [a for a in args if a in ("gdb", "lldb")] or ["gdb", "lldb"]
    schedules = [a for a in args if a in ("fibers", "threads")] or ["fibers", "threads"]
    for d in dbgs:
        for s in schedules:
            print(session(d, s, limit), flush=True)


if __name__ == "__main__":
    main()
