//! The test runner of `tests/debugger.rs` (a `harness = false` target), and the debugger
//! sessions its tests drive.
//!
//! libtest has no skipped outcome: a test that found no usable debugger could only print `ok`
//! (with SKIPPED on stderr, which nobody reads). This runner prints `SKIPPED: <reason>` in the
//! test's line and in the summary, and fails instead when `DEVICEEMU_REQUIRE` (a comma list
//! such as `gdb,lldb,ptxas`, set by `.ci/run`) names the debugger.
//!
//! Every debugger session runs under a time limit ([`limit`]). The debugger runs in a process
//! group of its own; while it runs, the runner notes its descendants (the program it debugs,
//! lldb's `lldb-server`, a shell), and when the session ends, by itself or at the limit, every
//! one of them still alive gets `SIGKILL`, which ends a process even when it is stopped or
//! traced. No session can hang the test command, and none leaves a stopped program behind.
//!
//! Arguments: `--debuggee NAME` runs the named debuggee (the debugger's own child re-executes
//! this binary so); a plain argument keeps only the tests whose name contains it (`--exact`:
//! equals it); `--list` lists the tests; `--test-threads N` runs N at a time (default: the
//! host's parallelism, at most 4). Other flags that `cargo test` may pass are ignored.

use std::fs::File;
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long one debugger session may take before it is killed: 120 s, or
/// `DEVICEEMU_DEBUGGER_LIMIT` seconds.
pub(crate) fn limit() -> Duration {
    static LIMIT: OnceLock<Duration> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        let secs = std::env::var("DEVICEEMU_DEBUGGER_LIMIT").ok().and_then(|s| s.parse().ok()).unwrap_or(120);
        Duration::from_secs(secs)
    })
}

/// A test's early end: the debugger it needs cannot run here (with the reason).
#[derive(Debug)]
pub(crate) struct Skip(pub(crate) String);

/// A test: `Err(Skip)` when it could not run, a panic when it failed.
pub(crate) type TestFn = fn() -> Result<(), Skip>;

/// The debuggers the tests drive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Debugger {
    Gdb,
    Lldb,
}

impl Debugger {
    fn name(self) -> &'static str {
        match self {
            Debugger::Gdb => "gdb",
            Debugger::Lldb => "lldb",
        }
    }
}

/// What a test ended with.
enum Outcome {
    Passed,
    Failed(String),
    Skipped(String),
}

/// Runs the tests (or a debuggee, when the arguments say `--debuggee NAME`), prints a summary
/// like libtest's, and exits non-zero when a test failed.
pub(crate) fn main(tests: &[(&'static str, TestFn)], debuggees: &[(&'static str, fn())]) {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--debuggee") {
        let name = args.get(1).map(String::as_str).unwrap_or("");
        match debuggees.iter().find(|(n, _)| *n == name) {
            Some((_, f)) => f(),
            None => {
                eprintln!("no debuggee named {name:?}");
                std::process::exit(2);
            }
        }
        return;
    }
    let mut filter = None;
    let (mut exact, mut list) = (false, false);
    let mut threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(4);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--exact" => exact = true,
            "--list" => list = true,
            "--test-threads" => threads = it.next().and_then(|n| n.parse().ok()).unwrap_or(threads),
            _ if a.starts_with("--test-threads=") => threads = a["--test-threads=".len()..].parse().unwrap_or(threads),
            _ if a.starts_with('-') => {}
            _ => filter = Some(a.clone()),
        }
    }
    let chosen: Vec<_> = tests
        .iter()
        .filter(|(n, _)| filter.as_deref().is_none_or(|f| if exact { *n == f } else { n.contains(f) }))
        .collect();
    if list {
        for (n, _) in &chosen {
            println!("{n}: test");
        }
        return;
    }
    let start = Instant::now();
    println!("\nrunning {} tests", chosen.len());
    // The default hook would print each failure's message in the middle of other tests' lines:
    // the message is kept and printed with the failures instead.
    panic::set_hook(Box::new(|info| {
        let msg = match info.payload().downcast_ref::<&str>() {
            Some(s) => s.to_string(),
            None => info.payload().downcast_ref::<String>().cloned().unwrap_or_default(),
        };
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        PANIC.with(|p| *p.borrow_mut() = Some(format!("panicked{at}:\n{msg}")));
    }));
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(&str, Outcome)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((name, f)) = chosen.get(i) else { break };
                let t0 = Instant::now();
                let outcome = match panic::catch_unwind(AssertUnwindSafe(f)) {
                    Ok(Ok(())) => Outcome::Passed,
                    Ok(Err(Skip(why))) => Outcome::Skipped(why),
                    Err(_) => Outcome::Failed(PANIC.with(|p| p.borrow_mut().take()).unwrap_or_default()),
                };
                let word = match &outcome {
                    Outcome::Passed => "ok".to_owned(),
                    Outcome::Failed(_) => "FAILED".to_owned(),
                    Outcome::Skipped(why) => format!("SKIPPED: {why}"),
                };
                let mut r = results.lock().unwrap();
                println!("test {name} ... {word} ({:.1} s)", t0.elapsed().as_secs_f64());
                r.push((name, outcome));
            });
        }
    });
    let results = results.into_inner().unwrap();
    let failed: Vec<_> =
        results.iter().filter_map(|(n, o)| if let Outcome::Failed(m) = o { Some((n, m)) } else { None }).collect();
    let skipped: Vec<_> =
        results.iter().filter_map(|(n, o)| if let Outcome::Skipped(m) = o { Some((n, m)) } else { None }).collect();
    let passed = results.len() - failed.len() - skipped.len();
    if !failed.is_empty() {
        println!("\nfailures:\n");
        for (n, m) in &failed {
            println!("---- {n} ----\n{m}\n");
        }
        println!("failures:");
        for (n, _) in &failed {
            println!("    {n}");
        }
    }
    if !skipped.is_empty() {
        println!("\nskipped:");
        for (n, m) in &skipped {
            println!("    {n}: SKIPPED: {m}");
        }
    }
    println!(
        "\ntest result: {}. {passed} passed; {} failed; {} skipped; finished in {:.2}s\n",
        if failed.is_empty() { "ok" } else { "FAILED" },
        failed.len(),
        skipped.len(),
        start.elapsed().as_secs_f64()
    );
    if !failed.is_empty() {
        std::process::exit(101);
    }
}

thread_local! {
    static PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// A test that cannot run because of `why`: a skip, or a failure when `DEVICEEMU_REQUIRE` names
/// `what` (there a skip must not pass).
pub(crate) fn skip(what: &str, why: String) -> Skip {
    let required = std::env::var("DEVICEEMU_REQUIRE").unwrap_or_default();
    if required.split(',').any(|r| r.trim() == what) {
        panic!("DEVICEEMU_REQUIRE={required} names {what}, but {why}");
    }
    Skip(why)
}

/// What a command printed (stdout and stderr interleaved, as a terminal shows them), and
/// whether it ran past its limit and was killed.
#[derive(Debug)]
pub(crate) struct Ran {
    pub(crate) text: String,
    pub(crate) timed_out: bool,
    /// The processes that were still alive when the session ended and were killed.
    pub(crate) killed: Vec<u32>,
}

/// Runs `cmd` in a process group of its own for at most `limit`; then kills it and every
/// descendant it left (see the module doc).
pub(crate) fn run_limited(mut cmd: Command, limit: Duration) -> std::io::Result<Ran> {
    use std::os::unix::process::CommandExt as _;
    static N: AtomicUsize = AtomicUsize::new(0);
    let log = std::env::temp_dir().join(format!(
        "deviceemu-debugger-{}-{}.log",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let out = File::create(&log)?;
    cmd.stdin(Stdio::null()).stdout(out.try_clone()?).stderr(out).process_group(0);
    let mut child = cmd.spawn()?;
    let root = child.id();
    let deadline = Instant::now() + limit;
    let mut seen: Vec<(u32, u64)> = Vec::new();
    let timed_out = loop {
        note_descendants(root, &mut seen);
        if child.try_wait()?.is_some() {
            break false;
        }
        if Instant::now() >= deadline {
            break true;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    note_descendants(root, &mut seen);
    let killed: Vec<u32> = seen.iter().filter(|&&(p, start)| start_time(p) == Some(start)).map(|&(p, _)| p).collect();
    // SAFETY: `kill` has no memory-safety preconditions; the group is the one `process_group(0)`
    // made for the child, whose id is its pid.
    unsafe { libc::kill(-(root as i32), libc::SIGKILL) };
    for &(pid, start) in &seen {
        if start_time(pid) == Some(start) {
            // SAFETY: as above; the start time shows the pid is still the process noted.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        }
    }
    let _ = child.wait();
    // Wait until the killed processes are gone (their new parent reaps them).
    let gone_by = Instant::now() + Duration::from_secs(10);
    while Instant::now() < gone_by && seen.iter().any(|&(p, s)| start_time(p) == Some(s)) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let text = String::from_utf8_lossy(&std::fs::read(&log)?).into_owned();
    let _ = std::fs::remove_file(&log);
    Ok(Ran { text, timed_out, killed })
}

/// Fields of `/proc/PID/stat` after the command name: (state, ppid, start time).
fn stat(pid: u32) -> Option<(char, u32, u64)> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some((f.first()?.chars().next()?, f.get(1)?.parse().ok()?, f.get(19)?.parse().ok()?))
}

/// The start time of process `pid` (to tell it from a later process with the same pid), if it
/// is alive (a zombie counts as gone).
pub(crate) fn start_time(pid: u32) -> Option<u64> {
    stat(pid).filter(|s| s.0 != 'Z').map(|s| s.2)
}

/// Adds the descendants of `root` (and `root`) not yet in `seen`, with their start times.
fn note_descendants(root: u32, seen: &mut Vec<(u32, u64)>) {
    let Ok(dir) = std::fs::read_dir("/proc") else { return };
    let all: Vec<(u32, u32, u64)> = dir
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|p| stat(p).map(|(_, ppid, start)| (p, ppid, start)))
        .collect();
    let mut family = vec![root];
    let mut i = 0;
    while i < family.len() {
        let parent = family[i];
        family.extend(all.iter().filter(|c| c.1 == parent).map(|c| c.0));
        i += 1;
    }
    for (p, _, start) in all.iter().filter(|c| family.contains(&c.0)) {
        if !seen.iter().any(|s| s.0 == *p && s.1 == *start) {
            seen.push((*p, *start));
        }
    }
}

/// Whether `dbg` can run the deviceemu helpers here, checked once: it starts, runs Python,
/// runs the debuggee to a breakpoint and reads a local there, within [`limit`]. `Err` says why
/// not (a skip, or a failure under `DEVICEEMU_REQUIRE`).
pub(crate) fn ready(dbg: Debugger) -> Result<(), Skip> {
    static GDB: OnceLock<Result<(), String>> = OnceLock::new();
    static LLDB: OnceLock<Result<(), String>> = OnceLock::new();
    let cell = if dbg == Debugger::Gdb { &GDB } else { &LLDB };
    cell.get_or_init(|| probe(dbg)).clone().map_err(|why| skip(dbg.name(), why))
}

/// The probe of [`ready`]: one session that stops at the probe kernel's marked line and prints
/// a local from Python.
fn probe(dbg: Debugger) -> Result<(), String> {
    let line = crate::line("// PROBE LINE");
    let py = "print('deviceemu-probe', 6 * 7)";
    let cmds = match dbg {
        Debugger::Gdb => vec![
            format!("python {py}"),
            format!("break tests/debugger.rs:{line}"),
            "run".into(),
            "python print('deviceemu-probe-local', gdb.selected_frame().read_var('probe_local'))".into(),
        ],
        Debugger::Lldb => vec![
            format!("script {py}"),
            format!("breakpoint set -f tests/debugger.rs -l {line}"),
            "run".into(),
            "script print('deviceemu-probe-local', lldb.frame.FindVariable('probe_local').GetValueAsUnsigned())".into(),
        ],
    };
    let cmds: Vec<&str> = cmds.iter().map(String::as_str).collect();
    let ran = match run_limited(command(dbg, "probe", &cmds, &[], false), limit()) {
        Ok(r) => r,
        Err(e) => return Err(format!("{} is not installed ({e})", dbg.name())),
    };
    if ran.timed_out {
        return Err(format!("{} did not stop at a breakpoint within {} s", dbg.name(), limit().as_secs()));
    }
    if !ran.text.contains("deviceemu-probe 42") {
        return Err(format!("{} cannot run Python: {}", dbg.name(), last_line(&ran.text)));
    }
    if !ran.text.contains("deviceemu-probe-local 7") {
        return Err(format!("{} cannot stop in a kernel and read its locals: {}", dbg.name(), last_line(&ran.text)));
    }
    Ok(())
}

/// The line of `text` that says what went wrong (the last that names an error, or else the
/// last that says something), for a skip's reason.
fn last_line(text: &str) -> String {
    let said = || text.lines().rev().map(str::trim).filter(|l| !l.is_empty());
    said()
        .find(|l| l.to_lowercase().contains("error") || l.contains("not "))
        .or_else(|| said().next())
        .unwrap_or("(no output)")
        .to_owned()
}

/// The script of helper commands for `dbg`.
pub(crate) fn script(dbg: Debugger) -> &'static str {
    match dbg {
        Debugger::Gdb => concat!(env!("CARGO_MANIFEST_DIR"), "/tools/gdb/deviceemu.py"),
        Debugger::Lldb => concat!(env!("CARGO_MANIFEST_DIR"), "/tools/lldb/deviceemu.py"),
    }
}

/// The command line of a session of `dbg` on this binary's debuggee `debuggee`, which runs
/// `commands` (then kills the program), with `EMU_BLOCKS=serial`, fibers and `env`; `helpers` loads
/// the deviceemu script first.
pub(crate) fn command(
    dbg: Debugger,
    debuggee: &str,
    commands: &[&str],
    env: &[(&str, &str)],
    helpers: bool,
) -> Command {
    let exe = std::env::current_exe().unwrap();
    let mut c = Command::new(dbg.name());
    match dbg {
        Debugger::Gdb => {
            // Every session proves that nothing calls a function in the program.
            c.args(["-q", "-batch", "-nx", "-ex", "set pagination off", "-ex", "set may-call-functions off"]);
            if helpers {
                c.args(["-ex", &format!("source {}", script(dbg))]);
            }
            for cmd in commands {
                c.args(["-ex", cmd]);
            }
            c.args(["-ex", "kill", "--args"]);
        }
        Debugger::Lldb => {
            if let Some(dir) = lldb_python_dir() {
                c.env("PYTHONPATH", dir);
            }
            c.arg("-b");
            if helpers {
                c.args(["-o", &format!("command script import {}", script(dbg))]);
            }
            for cmd in commands {
                c.args(["-o", cmd]);
            }
            c.args(["-o", "kill", "--"]);
        }
    }
    // The schedule is the test's to choose (the fiber tests would fail under a suite-wide
    // EMU_SCHEDULE=threads); other settings, such as CI's EMU_PATH=verify, pass through.
    c.arg(exe)
        .args(["--debuggee", debuggee])
        .env_remove("EMU_SCHEDULE")
        .env("EMU_BLOCKS", "serial")
        .envs(env.iter().copied());
    c
}

/// Runs a session of `dbg` (see [`command`]) with the helpers loaded, after checking that the
/// debugger is [`ready`]; returns what it printed. A session that runs past [`limit`] fails the
/// test, with what it printed until then.
pub(crate) fn session(dbg: Debugger, debuggee: &str, commands: &[&str], env: &[(&str, &str)]) -> Result<String, Skip> {
    ready(dbg)?;
    let ran = run_limited(command(dbg, debuggee, commands, env, true), limit()).expect("the debugger starts");
    assert!(
        !ran.timed_out,
        "{} ran past {} s and was killed; it printed:\n{}",
        dbg.name(),
        limit().as_secs(),
        ran.text
    );
    Ok(ran.text)
}

/// Debian's lldb 14 looks for its Python module in the wrong folder (`lldb -P` names
/// /usr/lib/local/...), so `command script import` fails; the module is under
/// /usr/lib/llvm-N/lib/python3.M/dist-packages. `None` when `lldb -P` is right (or does not
/// answer: it runs under a time limit too, so an lldb that hangs cannot hang the tests).
pub(crate) fn lldb_python_dir() -> Option<PathBuf> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let mut c = Command::new("lldb");
        c.arg("-P");
        let said = run_limited(c, limit().min(Duration::from_secs(30))).ok().filter(|r| !r.timed_out)?;
        // stdout and stderr come together: the folder is the line that is a path.
        let said = PathBuf::from(said.text.lines().map(str::trim).find(|l| l.starts_with('/')).unwrap_or(""));
        if said.join("lldb/__init__.py").exists() {
            return None;
        }
        let mut found: Vec<_> = std::fs::read_dir("/usr/lib")
            .ok()?
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with("llvm-"))
            .flat_map(|e| std::fs::read_dir(e.path().join("lib")).into_iter().flatten().filter_map(Result::ok))
            .map(|e| e.path().join("dist-packages"))
            .filter(|p| p.join("lldb/__init__.py").exists())
            .collect();
        found.sort();
        found.pop()
    })
    .clone()
}
