//! The report excerpts of README.md and docs/guide/reports.md against a fresh run.
//!
//! An excerpt is a `text` code block after a marker line
//! `<!-- report: examples/NAME [EMU_X=v ..]; tests/it/api/doc_reports.rs checks it -->`. The test runs
//! the example's binary (`target/debug/examples/NAME`, which `cargo test` builds) with only the
//! `EMU_*` variables the marker names, and checks that the block's lines appear in its output in
//! order, addresses normalised (`0x1234` -> `0x_`); a line `...` in the block stands for output
//! left out. When the binary is missing (`cargo test --test it -- api::doc_reports` alone does not build
//! examples), the test says so and passes, unless `DEVICEEMU_REQUIRE` names `examples` (CI sets
//! it): then it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

const MARKER: &str = "<!-- report: examples/";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn example_binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(Path::parent).unwrap().join("examples").join(name)
}

/// `0x` and hex digits become `0x_`.
fn normalise(line: &str) -> String {
    let b = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'0' && b.get(i + 1) == Some(&b'x') && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit) {
            i += 2;
            while i < b.len() && b[i].is_ascii_hexdigit() {
                i += 1;
            }
            out.push_str("0x_");
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out.trim_end().to_owned()
}

/// An excerpt: the example, the `EMU_*` settings it runs with, the block's lines, and the
/// marker's line number.
type Excerpt = (String, Vec<(String, String)>, Vec<String>, usize);

/// Each marked excerpt of a document.
fn excerpts(doc: &str) -> Vec<Excerpt> {
    let lines: Vec<&str> = doc.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if let Some(rest) = lines[i].trim().strip_prefix(MARKER) {
            let mut words = rest.split(';').next().unwrap().split_whitespace();
            let name = words.next().unwrap().to_owned();
            let env = words
                .map(|w| {
                    let (k, v) =
                        w.split_once('=').unwrap_or_else(|| panic!("line {}: `{w}` is not EMU_X=value", i + 1));
                    assert!(k.starts_with("EMU_"), "line {}: `{k}` is not an EMU_ setting", i + 1);
                    (k.to_owned(), v.to_owned())
                })
                .collect();
            assert_eq!(
                lines.get(i + 1).map(|l| l.trim()),
                Some("```text"),
                "line {}: a marker must precede a ```text block",
                i + 1
            );
            let mut block = Vec::new();
            let mut j = i + 2;
            while lines[j].trim() != "```" {
                block.push(lines[j].to_owned());
                j += 1;
            }
            found.push((name, env, block, i + 1));
            i = j;
        }
        i += 1;
    }
    found
}

/// Whether `block`'s lines appear in `output` in order (`...` skips output).
fn appears_in(block: &[String], output: &[String]) -> Result<(), String> {
    let mut pos = 0;
    for segment in block.split(|l| l.trim() == "...") {
        let segment: Vec<String> = segment.iter().map(|l| normalise(l)).collect();
        if segment.is_empty() {
            continue;
        }
        let at = (pos..output.len())
            .find(|&s| output.len() - s >= segment.len() && output[s..s + segment.len()] == segment[..])
            .ok_or_else(|| {
                format!("these lines are not in the output after its line {pos}:\n{}", segment.join("\n"))
            })?;
        pos = at + segment.len();
    }
    Ok(())
}

#[test]
fn report_excerpts_match_a_fresh_run() {
    let mut checked = 0;
    // Each example runs once per set of settings; its excerpts are all checked against that run.
    let mut runs = std::collections::HashMap::new();
    let required = std::env::var("DEVICEEMU_REQUIRE").is_ok_and(|r| r.split(',').any(|w| w.trim() == "examples"));
    for doc_path in ["README.md", "docs/guide/reports.md", "docs/guide/settings.md", "docs/guide/progress.md"] {
        let doc = std::fs::read_to_string(root().join(doc_path)).unwrap();
        for (name, env, block, line) in excerpts(&doc) {
            let bin = example_binary(&name);
            if !bin.exists() {
                assert!(!required, "{} is not built, and DEVICEEMU_REQUIRE names examples", bin.display());
                eprintln!("SKIPPED: {} is not built (`cargo build --examples`)", bin.display());
                return;
            }
            let text = runs.entry((name.clone(), env.clone())).or_insert_with(|| {
                let mut cmd = Command::new(&bin);
                for (k, _) in std::env::vars() {
                    if k.starts_with("EMU_") {
                        cmd.env_remove(k);
                    }
                }
                cmd.envs(env);
                let run = cmd.output().unwrap();
                String::from_utf8_lossy(&run.stderr).into_owned() + &String::from_utf8_lossy(&run.stdout)
            });
            let output: Vec<String> = text.lines().map(normalise).collect();
            if let Err(e) = appears_in(&block, &output) {
                panic!("{doc_path}, the excerpt at line {line} (examples/{name}): {e}\nfresh run:\n{text}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 5, "the README's, reports.md's and settings.md's excerpts are marked ({checked} found)");
}

#[test]
fn elided_lines_and_addresses() {
    let out: Vec<String> = ["a 0x12ab", "b", "c", "d"].iter().map(|l| normalise(l)).collect();
    let block = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(appears_in(&block(&["a 0xffff", "b", "...", "d"]), &out).is_ok());
    assert!(appears_in(&block(&["b", "a 0x1"]), &out).is_err());
    assert!(appears_in(&block(&["a 0x1", "c"]), &out).is_err());
}
