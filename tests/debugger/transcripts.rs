//! The transcripts of the user guide's debugging chapter (docs/guide/debugging.md) and of DEBUGGING.md: each is
//! a real run, made here, of the session it shows.
//!
//! A transcript block in a document follows a marker line and is a `text` code block:
//!
//! ````text
//! <!-- transcript ID: DEVICEEMU_BLESS=1 cargo test --test debugger transcripts rewrites it -->
//! ```text
//! $ EMU_BLOCKS=serial gdb -q target/debug/examples/saxpy
//! (gdb) source tools/gdb/deviceemu.py
//! ...
//! ```
//! ````
//!
//! The tests run every session of a document and compare each block with the fresh run, both
//! normalised ([`normalise`]: addresses, process and thread ids, symbol hashes, breakpoint
//! location numbers); with `DEVICEEMU_BLESS=1` they write the fresh runs into the documents
//! instead. The sessions run the examples' binaries (`target/debug/examples/`), which `cargo
//! test` builds; when one is missing or older than the sources, the test is skipped with a
//! reason.
//!
//! A gdb session is `gdb -batch` with `echo (gdb) COMMAND` before each command, so that the
//! transcript reads like an interactive session; gdb's start-up lines are left out. An lldb
//! session is `lldb -b`, which echoes its commands itself.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::harness::{self, Debugger, Skip};

/// What a session runs: a debugger (or none: the program alone) on an example.
pub(crate) struct Session {
    /// The marker's id.
    pub(crate) id: &'static str,
    pub(crate) debugger: Option<Debugger>,
    /// The example, and its arguments.
    pub(crate) example: &'static str,
    pub(crate) args: &'static [&'static str],
    /// `EMU_*` settings, shown in the transcript's first line.
    pub(crate) env: &'static [(&'static str, &'static str)],
    /// The debugger's commands (after `run`, too: `run` is one of them).
    pub(crate) commands: &'static [&'static str],
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `target/debug/examples/NAME`, next to this test binary's `deps/`.
fn example_binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(Path::parent).unwrap().join("examples").join(name)
}

/// The newest modification time of the files example `name`'s binary is built from.
fn newest_source(name: &str) -> std::time::SystemTime {
    fn walk(p: &Path, newest: &mut std::time::SystemTime) {
        let Ok(meta) = std::fs::metadata(p) else { return };
        if meta.is_dir() {
            for e in std::fs::read_dir(p).into_iter().flatten().flatten() {
                walk(&e.path(), newest);
            }
        } else if p.extension().is_some_and(|e| e == "rs" || e == "toml") {
            *newest = (*newest).max(meta.modified().unwrap_or(std::time::UNIX_EPOCH));
        }
    }
    let mut newest = std::time::UNIX_EPOCH;
    let own = format!("examples/{name}.rs");
    for d in [
        "src",
        own.as_str(),
        "emu-runtime/src",
        "emu-macros/src",
        "Cargo.toml",
        "emu-runtime/Cargo.toml",
        "emu-macros/Cargo.toml",
    ] {
        walk(&root().join(d), &mut newest);
    }
    newest
}

/// The example's binary, built after the sources; else why not.
fn built(name: &str) -> Result<PathBuf, Skip> {
    let bin = example_binary(name);
    let Ok(meta) = std::fs::metadata(&bin) else {
        return Err(harness::skip("examples", format!("{} is not built (`cargo build --examples`)", bin.display())));
    };
    if meta.modified().unwrap_or(std::time::UNIX_EPOCH) < newest_source(name) {
        return Err(harness::skip(
            "examples",
            format!("{} is older than the sources (`cargo build --examples`)", bin.display()),
        ));
    }
    Ok(bin)
}

/// The session's first line, as a user types it.
fn header(s: &Session) -> String {
    let env: String = s.env.iter().map(|(k, v)| format!("{k}={v} ")).collect();
    let args: String = s.args.iter().map(|a| format!(" {a}")).collect();
    let program = format!("target/debug/examples/{}{args}", s.example);
    match s.debugger {
        None => format!("$ {env}{program}"),
        Some(Debugger::Gdb) => {
            format!("$ {env}gdb -q {}", if args.is_empty() { program } else { format!("--args {program}") })
        }
        Some(Debugger::Lldb) => {
            format!("$ {env}lldb {}", if args.is_empty() { program } else { format!("-- {program}") })
        }
    }
}

/// Runs `s` and returns its transcript.
pub(crate) fn run(s: &Session) -> Result<String, Skip> {
    if let Some(d) = s.debugger {
        harness::ready(d)?;
    }
    let bin = built(s.example)?;
    let mut c = match s.debugger {
        None => Command::new(&bin),
        Some(Debugger::Gdb) => {
            let mut c = Command::new("gdb");
            // As every gdb session of the tests: nothing may call into the program (shown in a
            // transcript only where its commands say so).
            c.args(["-q", "-batch", "-nx", "-ex", "set pagination off", "-ex", "set width 0", "-ex", "set height 0"]);
            c.args(["-ex", "set may-call-functions off"]);
            for cmd in s.commands {
                c.args(["-ex", &format!("echo (gdb) {}\\n", cmd.replace('\\', "\\\\")), "-ex", cmd]);
            }
            c.args(["-ex", "kill", "--args"]).arg(&bin);
            c
        }
        Some(Debugger::Lldb) => {
            let mut c = Command::new("lldb");
            if let Some(dir) = harness::lldb_python_dir() {
                c.env("PYTHONPATH", dir);
            }
            c.arg("-b");
            for cmd in s.commands {
                c.args(["-o", cmd]);
            }
            c.args(["-o", "kill", "--"]).arg(&bin);
            c
        }
    };
    c.args(s.args);
    c.current_dir(root()).env_remove("EMU_SCHEDULE").env_remove("EMU_BLOCKS").env_remove("EMU_PRINT_LIMIT");
    c.envs(s.env.iter().copied());
    let ran = harness::run_limited(c, harness::limit()).expect("the session starts");
    assert!(!ran.timed_out, "transcript {} ran past {} s; it printed:\n{}", s.id, harness::limit().as_secs(), ran.text);
    Ok(format!("{}\n{}", header(s), trim(s, &ran.text)))
}

/// The session's output less the debugger's start-up and clean-up lines.
fn trim(s: &Session, text: &str) -> String {
    let dropped = |l: &str| {
        l.starts_with("warning: Missing auto-load script")
            || (l.starts_with("of file ") && l.ends_with('.'))
            || l.starts_with("Use `info auto-load python-scripts")
            || l == "[Thread debugging using libthread_db enabled]"
            || l.starts_with("Using host libthread_db library")
            || l.starts_with("Kill the program being debugged?")
            || (l.starts_with("[Inferior 1 (process ") && l.ends_with(" killed]"))
            || l.starts_with("(lldb) target create ")
            || l.starts_with("Current executable set to ")
            || l.starts_with("(lldb) settings set -- target.run-args")
            || l == "(lldb) kill"
            || (l.starts_with("Process ") && l.ends_with("exited with status = 9 (0x00000009) "))
            || (l.starts_with("Process ") && l.ends_with("exited with status = 9 (0x00000009)"))
    };
    // Paths in the checkout are shown from its root (lldb names the program by its full path).
    let text = text.replace(&format!("{}/", root().display()), "");
    let mut out: Vec<&str> = text.lines().filter(|l| !dropped(l)).collect();
    if s.debugger == Some(Debugger::Gdb) {
        // The blank line gdb prints before a stop in a single-threaded program.
        out.retain(|l| !l.is_empty());
    }
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    out.join("\n")
}

/// `text` with what changes from run to run replaced: addresses, process and thread ids, the
/// hashes in symbol names, trailing spaces.
pub(crate) fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut l = String::new();
        let b = line.as_bytes();
        let mut i = 0;
        while i < b.len() {
            // 0x1234abcd -> 0x_
            if b[i] == b'0' && i + 1 < b.len() && b[i + 1] == b'x' && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit) {
                i += 2;
                while i < b.len() && b[i].is_ascii_hexdigit() {
                    i += 1;
                }
                l.push_str("0x_");
                continue;
            }
            // ::h0123456789abcdef -> ::h_ (Rust's symbol hashes, as lldb shows them)
            if b[i] == b'h'
                && i >= 2
                && &b[i - 2..i] == b"::"
                && b.len() >= i + 17
                && b[i + 1..i + 17].iter().all(u8::is_ascii_hexdigit)
            {
                i += 17;
                l.push_str("h_");
                continue;
            }
            l.push(b[i] as char);
            i += 1;
        }
        // Ids after these words.
        for word in ["process ", "Process ", "LWP ", "tid = ", "pid = ", "Thread "] {
            let mut s = String::new();
            let mut rest = l.as_str();
            while let Some(p) = rest.find(word) {
                s.push_str(&rest[..p + word.len()]);
                rest = &rest[p + word.len()..];
                let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
                if digits > 0 {
                    s.push('N');
                    rest = &rest[digits..];
                }
            }
            s.push_str(rest);
            l = s;
        }
        // The location number of a breakpoint's stop (`Breakpoint 1.2,`, lldb's `breakpoint
        // 1.2`): builds number the kernel's copies differently (`cargo test --workspace` and
        // `cargo test --test debugger` build the examples with different features).
        for word in ["Breakpoint ", "breakpoint "] {
            let mut s = String::new();
            let mut rest = l.as_str();
            while let Some(p) = rest.find(word) {
                s.push_str(&rest[..p + word.len()]);
                rest = &rest[p + word.len()..];
                let major = rest.bytes().take_while(u8::is_ascii_digit).count();
                let minor =
                    rest[major..].strip_prefix('.').map_or(0, |r| r.bytes().take_while(u8::is_ascii_digit).count());
                if major > 0 && minor > 0 {
                    s.push_str(&rest[..major]);
                    s.push_str(".L");
                    rest = &rest[major + 1 + minor..];
                }
            }
            s.push_str(rest);
            l = s;
        }
        out.push_str(l.trim_end());
        out.push('\n');
    }
    out
}

/// The transcript blocks of `doc`: (id, first line of the block's text, the text).
fn blocks(doc: &str) -> Vec<(String, usize, String)> {
    let lines: Vec<&str> = doc.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if let Some(rest) = lines[i].strip_prefix("<!-- transcript ") {
            let id = rest.split([':', ' ']).next().unwrap_or("").to_owned();
            assert_eq!(
                lines.get(i + 1).copied(),
                Some("```text"),
                "transcript {id}: a ```text block must follow its marker"
            );
            let start = i + 2;
            let end = start + lines[start..].iter().position(|l| *l == "```").expect("the block ends");
            out.push((id, start, lines[start..end].join("\n")));
            i = end;
        }
        i += 1;
    }
    out
}

/// Runs every session of `doc_path` (relative to the repository) and compares the document's
/// blocks with them, or writes them in with `DEVICEEMU_BLESS=1`. Every block has a session
/// and every session a block.
pub(crate) fn check(doc_path: &str, sessions: &[Session]) -> Result<(), Skip> {
    let path = root().join(doc_path);
    let doc = std::fs::read_to_string(&path).unwrap();
    let found = blocks(&doc);
    let ids: Vec<&str> = found.iter().map(|b| b.0.as_str()).collect();
    let want: Vec<&str> = sessions.iter().map(|s| s.id).collect();
    assert_eq!(ids, want, "{doc_path}'s transcript blocks and the sessions that make them");
    let mut fresh = Vec::new();
    for s in sessions {
        fresh.push(run(s)?);
    }
    if std::env::var_os("DEVICEEMU_BLESS").is_some() {
        let mut lines: Vec<String> = doc.lines().map(str::to_owned).collect();
        // From the last block up, so that the earlier blocks' line numbers hold.
        for ((_, start, old), new) in found.iter().zip(&fresh).rev() {
            // A block that only differs in what normalising hides stays as it is.
            if normalise(old) == normalise(new) {
                continue;
            }
            let n = old.lines().count();
            lines.splice(*start..*start + n, new.lines().map(str::to_owned));
        }
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        return Ok(());
    }
    for ((id, start, old), new) in found.iter().zip(&fresh) {
        let (a, b) = (normalise(old), normalise(new));
        if a != b {
            let at =
                a.lines().zip(b.lines()).position(|(x, y)| x != y).unwrap_or(a.lines().count().min(b.lines().count()));
            panic!(
                "{doc_path}: transcript {id} (line {}) differs from a fresh run at its line {}:\n  committed: {:?}\n  fresh:     {:?}\n\
                 (DEVICEEMU_BLESS=1 cargo test --test debugger transcripts rewrites the documents) fresh run:\n{new}",
                start + 1,
                at + 1,
                a.lines().nth(at).unwrap_or("(end)"),
                b.lines().nth(at).unwrap_or("(end)")
            );
        }
    }
    Ok(())
}
