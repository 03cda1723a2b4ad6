//! The corpus of ported kernels (`tests/it/ported/corpus/`, issue 26): each kernel on its default path
//! (`emulated`) against its serial Rust reference (`serial`, one thread, plain loops), timed in
//! the same run, at the `Bench` sizes (about 1 to 50 ms per launch).
//!
//! Before timing, each kernel runs once and is checked against its reference (bit for bit),
//! and the bench runs itself once more as a child process with `EMU_VERBOSE=1` to learn why
//! each kernel that takes the general path takes it. At the end it prints a Markdown table:
//! kernel, suite, path, the general path's reason, the median times and their ratio; the
//! geometric mean of the ratios; how many barrier kernels take a fast path. BENCHMARKS.md
//! ("Corpus of ported kernels") records a run of
//!
//! ```text
//! cargo bench --bench corpus -- --warm-up-time 1 --measurement-time 3
//! ```
//!
//! `CORPUS=shoc_reduce,samples_reduce2 cargo bench --bench corpus` runs only the kernels named.
use std::cell::RefCell;
use std::collections::HashMap;
use std::hint::black_box;
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::{Bencher, Criterion, SamplingMode};

#[path = "../tests/it/ported/corpus/mod.rs"]
mod corpus;

use corpus::Size;

/// The environment variable that makes the bench its own probe (see `probe`).
const PROBE: &str = "CORPUS_PROBE";
/// Samples per variant (criterion's flat sampling).
const SAMPLES: usize = 10;

/// Probe mode: launches each kernel once at the test size, naming it on stderr first, so that
/// the parent can pair `EMU_VERBOSE`'s line with the kernel.
fn probe(only: &dyn Fn(&str) -> bool) {
    for e in corpus::all().into_iter().filter(|e| only(e.name)) {
        let mut case = (e.make)(Size::Test);
        eprintln!("corpus-probe: {}", e.name);
        case.launch();
    }
}

/// Runs the probe in a child process with `EMU_VERBOSE=1`; returns each kernel's line from
/// deviceemu (`runs as barrier regions ...`, `runs on the general path ... (why)`).
fn verbose_lines() -> HashMap<String, String> {
    let exe = std::env::current_exe().expect("the bench's own path");
    let out = Command::new(exe).env(PROBE, "1").env("EMU_VERBOSE", "1").output().expect("the probe runs");
    assert!(out.status.success(), "the probe failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let mut lines = HashMap::new();
    let mut current: Option<String> = None;
    for line in String::from_utf8_lossy(&out.stderr).lines() {
        if let Some(name) = line.strip_prefix("corpus-probe: ") {
            current = Some(name.to_string());
        } else if let (Some(name), Some(rest)) = (&current, line.strip_prefix("deviceemu: ")) {
            if rest.contains(" runs ") {
                lines.entry(name.clone()).or_insert_with(|| rest.to_string());
            }
        }
    }
    lines
}

/// The reason in a `runs on the general path, one GPU thread at a time (why)` line.
fn reason(line: &str) -> String {
    match (line.find("one GPU thread at a time ("), line.rfind(')')) {
        (Some(i), Some(j)) if line.contains("general path") => {
            line[i + "one GPU thread at a time (".len()..j].to_string()
        }
        _ => String::new(),
    }
}

/// Times `f` with criterion and keeps the time per iteration of each measurement sample (the
/// last `SAMPLES` calls: the warm-up's come first); returns their median.
fn timed(b: &mut Bencher<'_>, samples: &RefCell<Vec<Duration>>, mut f: impl FnMut()) {
    b.iter_custom(|iters| {
        let start = Instant::now();
        for _ in 0..iters {
            f();
        }
        let d = start.elapsed();
        samples.borrow_mut().push(d / iters as u32);
        d
    });
}

fn median_of_last(v: &[Duration]) -> Duration {
    let mut last: Vec<Duration> = v[v.len().saturating_sub(SAMPLES)..].to_vec();
    last.sort();
    last[last.len() / 2]
}

struct Row {
    name: &'static str,
    suite: &'static str,
    barriers: bool,
    path: &'static str,
    why: String,
    emulated: Duration,
    serial: Duration,
}

fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1e3)
}

fn main() {
    let only: Vec<String> =
        std::env::var("CORPUS").map(|v| v.split(',').map(str::to_string).collect()).unwrap_or_default();
    let selected = |name: &str| only.is_empty() || only.iter().any(|o| o == name);
    if std::env::var_os(PROBE).is_some() {
        probe(&selected);
        return;
    }
    let lines = verbose_lines();
    let mut c = Criterion::default().configure_from_args();
    let mut rows = Vec::new();
    for e in corpus::all().into_iter().filter(|e| selected(e.name)) {
        let mut case = (e.make)(Size::Bench);
        case.serial();
        let start = Instant::now();
        case.launch();
        let first = start.elapsed();
        let path = deviceemu::__private::last_path();
        if let Err(err) = case.check() {
            panic!("{}: the emulated result differs from the serial reference: {err}", e.name);
        }
        let why = lines.get(e.name).map(|l| reason(l)).unwrap_or_default();
        eprintln!(
            "{}: `emulated` takes the {path} path{} (first launch {} ms)",
            e.name,
            if why.is_empty() { String::new() } else { format!(" ({why})") },
            ms(first)
        );

        let (emulated, serial) = (RefCell::new(Vec::new()), RefCell::new(Vec::new()));
        let case = RefCell::new(case);
        let mut g = c.benchmark_group(e.name);
        g.sampling_mode(SamplingMode::Flat).sample_size(SAMPLES);
        g.bench_function("emulated", |b| timed(b, &emulated, || black_box(&mut *case.borrow_mut()).launch()));
        g.bench_function("serial", |b| timed(b, &serial, || black_box(&mut *case.borrow_mut()).serial()));
        g.finish();
        let (emulated, serial) = (emulated.into_inner(), serial.into_inner());
        if emulated.is_empty() || serial.is_empty() {
            // Filtered out by a criterion argument.
            continue;
        }
        rows.push(Row {
            name: e.name,
            suite: e.suite,
            barriers: e.barriers,
            path,
            why,
            emulated: median_of_last(&emulated),
            serial: median_of_last(&serial),
        });
    }
    c.final_summary();
    report(&rows);
}

/// Prints the Markdown table, the geometric means and the fast-path count.
fn report(rows: &[Row]) {
    if rows.is_empty() {
        return;
    }
    let ratio = |r: &Row| r.emulated.as_secs_f64() / r.serial.as_secs_f64();
    println!();
    println!("| kernel | suite | barriers | path | why general (`EMU_VERBOSE`) | emulated (ms) | serial (ms) | emulated / serial |");
    println!("|---|---|---|---|---|---|---|---|");
    for r in rows {
        let why = if r.why.is_empty() { "—".to_string() } else { r.why.replace('|', "\\|") };
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {:.2} |",
            r.name,
            r.suite,
            if r.barriers { "yes" } else { "no" },
            r.path,
            why,
            ms(r.emulated),
            ms(r.serial),
            ratio(r)
        );
    }
    let geo = |rs: &[&Row]| (rs.iter().map(|r| ratio(r).ln()).sum::<f64>() / rs.len() as f64).exp();
    let all: Vec<&Row> = rows.iter().collect();
    let barrier: Vec<&Row> = rows.iter().filter(|r| r.barriers).collect();
    println!();
    println!("geometric mean of emulated / serial: {:.2} over {} kernels", geo(&all), all.len());
    if !barrier.is_empty() {
        let fast = barrier.iter().filter(|r| r.path != "general").count();
        println!(
            "barrier kernels: geometric mean {:.2} over {}; {fast} of {} take a fast path",
            geo(&barrier),
            barrier.len(),
            barrier.len()
        );
    }
    let over: Vec<String> =
        rows.iter().filter(|r| ratio(r) > 4.0).map(|r| format!("{} ({:.1}x)", r.name, ratio(r))).collect();
    println!("more than 4x serial: {}", if over.is_empty() { "none".to_string() } else { over.join(", ") });
}
