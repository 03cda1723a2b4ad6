//! The runtime's layering, checked (issue 27).
//!
//! Reads every `.rs` file under `emu-runtime/src`, collects every path that starts with
//! `crate::`, `super::` or `self::` (in `use` declarations, grouped ones included, and inline
//! paths such as `crate::host::sched::hooks::foo()`), resolves each to the module that defines
//! the item (following `use` re-exports, so a path through a facade `mod.rs` lands on the
//! module that holds the item), and builds the graph of *units*: a unit is a module, or a
//! folder counted as one (`UNITS`). It then
//!
//! - fails when a unit imports a unit its layer does not allow (`allowed`: `TOP`, device/,
//!   `HOST_LAYERS`, `MUTUAL`) and the edge is not in `KNOWN`, and
//! - prints the strongly connected components (Tarjan) and fails when one has more than
//!   `MAX_SCC` units in the graph without `KNOWN`'s edges (it prints both graphs' sizes).
//!
//! The one edge left out of the graph is the backend selection (`device/backend/mod.rs`'s
//! `use imp::*`): the device API calls the backend interface, and the host backend
//! (`device/backend/host.rs`, unit `device::backend::host`) sits on top of the host engine
//! (ARCHITECTURE.md, "The crates and the host engine's folders").

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The largest strongly connected component of units allowed.
const MAX_SCC: usize = 3;

/// Folders counted as one unit (a module under one of these prefixes is that unit), and files
/// given a module name other than their path's (`#[path]` selections).
const UNITS: &[&str] = &[
    "__private",
    "device::backend::host",
    "device::backend",
    "device::intrinsics",
    "device::math",
    "device::texture",
    "gpu",
    "host::report",
    "host::check::racecheck",
    "host::mem",
    "host::sched",
    "host::stream",
];

/// `#[path]` modules: (module as declared, file's module).
const PATH_ALIASES: &[(&str, &str)] =
    &[("device::backend::imp", "device::backend::host"), ("device::texture::imp", "device::texture::host")];

/// Edges not counted: the backend selection (see the module doc).
const INTERFACE_EDGES: &[(&str, &str)] = &[("device::backend", "device::backend::host")];

/// Units that only the rows naming them exactly may import (a prefix such as `"device"` does
/// not reach them): the facade, the macro ABI and the host backend sit on top of everything.
const TOP: &[&str] = &["", "__private", "device::backend::host"];

/// Leaves and layers of the host engine, bottom up; each row's units may import the earlier
/// rows (and `device`'s API, whose files import only `device`).
const HOST_LAYERS: &[&[&str]] = &[
    &["host::report"],
    &["host::config", "host::alloc"],
    &["host::launch_desc"],
    &["host::devices", "gpu"],
    &["host::check", "host::check::view_meta"],
    &["host::check::memcheck"],
    &["host::check::initcheck", "host::check::racecheck", "host::check::synccheck"],
    &["host::mem"],
    &["host::sched", "host::texture"],
    &["host::stream"],
    &["host"],
];

/// Pairs of units of one row allowed to import each other.
const MUTUAL: &[(&str, &str)] = &[
    // `devices` counts the GPU's devices; `gpu` asks `devices` which one is current.
    ("host::devices", "gpu"),
    ("gpu", "host::devices"),
];

/// Edges the layers forbid that the tree still has (issue 27, not done yet). The test fails
/// when one of them is gone, so that the list only shrinks.
const KNOWN: &[(&str, &str)] = &[];

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module a file defines: `host/sched/mod.rs` is `host::sched`, `lib.rs` the root `""`.
fn module_of(rel: &Path) -> String {
    let mut parts: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts.join("::")
}

/// The source with comments, string and character literals blanked out.
fn strip(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == b'r'
            && (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            // A raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push('r');
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == b'"' && b[j + 1..].iter().take(hashes).filter(|&&h| h == b'#').count() == hashes {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            i = j;
            out.push_str("\"\"");
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == b'\'' {
            // A character literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if b.get(i + 1) == Some(&b'\\') {
                let mut j = i + 2;
                while j < b.len() && b[j] != b'\'' {
                    j += 1;
                }
                i = j + 1;
                out.push_str("' '");
            } else if b.get(i + 2) == Some(&b'\'') {
                i += 3;
                out.push_str("' '");
            } else {
                // Possibly a multi-byte character: find its end.
                let rest = &src[i + 1..];
                let mut chars = rest.char_indices();
                match (chars.next(), chars.next()) {
                    (Some((_, ch)), Some((k, '\''))) if !ch.is_ascii() => {
                        i += 1 + k + 1;
                        out.push_str("' '");
                    }
                    _ => {
                        out.push('\'');
                        i += 1;
                    }
                }
            }
        } else {
            let ch = src[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Path, // ::
    Open,
    Close,
    Comma,
    Semi,
    Star,
    Dollar,
    Other,
}

fn tokens(s: &str) -> Vec<Tok> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_alphabetic() || c == b'_' {
            let st = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &s[st..i];
            // `r#ident`.
            out.push(Tok::Ident(word.to_string()));
            continue;
        }
        match c {
            b':' if b.get(i + 1) == Some(&b':') => {
                out.push(Tok::Path);
                i += 2;
                continue;
            }
            b'{' => out.push(Tok::Open),
            b'}' => out.push(Tok::Close),
            b',' => out.push(Tok::Comma),
            b';' => out.push(Tok::Semi),
            b'*' => out.push(Tok::Star),
            b'$' => out.push(Tok::Dollar),
            c if c.is_ascii_whitespace() => {}
            _ => out.push(Tok::Other),
        }
        i += 1;
    }
    out
}

/// One path read in a module: its segments (`*` for a glob), the name it binds when it is a
/// `use` leaf, and whether it came from a `use`.
#[derive(Debug)]
struct Ref {
    module: String,
    segs: Vec<String>,
    binds: Option<String>,
}

/// Parses a use tree at `toks[*i]` with `prefix`, pushing each leaf.
fn use_tree(toks: &[Tok], i: &mut usize, prefix: Vec<String>, leaves: &mut Vec<(Vec<String>, Option<String>)>) {
    let mut segs = prefix;
    loop {
        match toks.get(*i) {
            Some(Tok::Ident(w)) => {
                segs.push(w.clone());
                *i += 1;
                if toks.get(*i) == Some(&Tok::Path) {
                    *i += 1;
                    continue;
                }
                // `as name`?
                let mut bind = segs.last().cloned();
                if let (Some(Tok::Ident(a)), Some(Tok::Ident(n))) = (toks.get(*i), toks.get(*i + 1)) {
                    if a == "as" {
                        bind = Some(n.clone());
                        *i += 2;
                    }
                }
                if bind.as_deref() == Some("self") {
                    segs.pop();
                    bind = segs.last().cloned();
                }
                leaves.push((segs, bind));
                return;
            }
            Some(Tok::Star) => {
                *i += 1;
                segs.push("*".into());
                leaves.push((segs, None));
                return;
            }
            Some(Tok::Open) => {
                *i += 1;
                loop {
                    match toks.get(*i) {
                        Some(Tok::Close) => {
                            *i += 1;
                            return;
                        }
                        Some(Tok::Comma) => *i += 1,
                        None => return,
                        _ => use_tree(toks, i, segs.clone(), leaves),
                    }
                }
            }
            _ => return,
        }
    }
}

/// Every path of one file, with the inline modules (`mod tests { .. }`) tracked so that
/// `super::` resolves from the right place.
fn refs_of(
    file_module: &str,
    src: &str,
    inline_mods: &mut BTreeMap<String, String>,
    macros: &mut Vec<(String, String)>,
) -> Vec<Ref> {
    let toks = tokens(&strip(src));
    let mut out = Vec::new();
    // Stack of (module, brace depth at which it closes).
    let mut stack: Vec<(String, usize)> = vec![(file_module.to_string(), usize::MAX)];
    let mut depth = 0usize;
    let mut i = 0;
    let join = |m: &str, n: &str| {
        if m.is_empty() {
            n.to_string()
        } else {
            format!("{m}::{n}")
        }
    };
    while i < toks.len() {
        let cur = stack.last().unwrap().0.clone();
        match &toks[i] {
            Tok::Open => {
                depth += 1;
                i += 1;
            }
            Tok::Close => {
                if stack.last().unwrap().1 == depth {
                    stack.pop();
                }
                depth = depth.saturating_sub(1);
                i += 1;
            }
            Tok::Ident(w) if w == "macro_rules" => {
                // A `#[macro_export]` macro is named `crate::name!`: it belongs to this module.
                if let Some(Tok::Ident(name)) = toks.get(i + 2) {
                    macros.push((cur.clone(), name.clone()));
                }
                i += 1;
            }
            Tok::Ident(w) if w == "mod" => {
                if let (Some(Tok::Ident(name)), Some(Tok::Open)) = (toks.get(i + 1), toks.get(i + 2)) {
                    let m = join(&cur, name);
                    inline_mods.insert(m.clone(), file_module.to_string());
                    depth += 1;
                    stack.push((m, depth));
                    i += 3;
                } else {
                    i += 1;
                }
            }
            Tok::Ident(w) if w == "use" => {
                i += 1;
                let mut leaves = Vec::new();
                use_tree(&toks, &mut i, Vec::new(), &mut leaves);
                for (segs, binds) in leaves {
                    out.push(Ref { module: cur.clone(), segs, binds });
                }
            }
            Tok::Ident(w)
                if (w == "crate" || w == "super" || w == "self")
                    && toks.get(i + 1) == Some(&Tok::Path)
                    && !(i > 0 && (toks[i - 1] == Tok::Path || toks[i - 1] == Tok::Dollar)) =>
            {
                let mut segs = vec![w.clone()];
                i += 2;
                while let Some(Tok::Ident(s)) = toks.get(i) {
                    segs.push(s.clone());
                    i += 1;
                    if toks.get(i) == Some(&Tok::Path) {
                        i += 1;
                    } else {
                        break;
                    }
                }
                if toks.get(i) == Some(&Tok::Open) && toks.get(i - 1) == Some(&Tok::Path) {
                    // `crate::a::{b, c}` outside a `use` (in a macro): a use tree.
                    let mut leaves = Vec::new();
                    use_tree(&toks, &mut i, segs, &mut leaves);
                    for (segs, _) in leaves {
                        out.push(Ref { module: cur.clone(), segs, binds: None });
                    }
                } else {
                    out.push(Ref { module: cur.clone(), segs, binds: None });
                }
            }
            _ => i += 1,
        }
    }
    out
}

struct Crate {
    modules: BTreeSet<String>,
    /// Per module, the names its `use` declarations bind, to the absolute path they name.
    names: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    /// Per module, the modules it glob-imports.
    globs: BTreeMap<String, Vec<Vec<String>>>,
}

fn alias(m: &str) -> String {
    for (from, to) in PATH_ALIASES {
        if m == *from {
            return to.to_string();
        }
        if let Some(rest) = m.strip_prefix(&format!("{from}::")) {
            return format!("{to}::{rest}");
        }
    }
    m.to_string()
}

/// `segs` made absolute from `module`, or `None` for a path outside the crate.
fn absolute(module: &str, segs: &[String], modules: &BTreeSet<String>, use_decl: bool) -> Option<Vec<String>> {
    let mut base: Vec<String> = if module.is_empty() { vec![] } else { module.split("::").map(String::from).collect() };
    let mut rest = segs;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first().map(String::as_str) == Some("super") {
                base.pop();
                rest = &rest[1..];
            }
        }
        Some(first) if use_decl => {
            // A 2018 relative `use`: a child module of this one.
            let child = if module.is_empty() { first.to_string() } else { format!("{module}::{first}") };
            if !modules.contains(&alias(&child)) {
                return None;
            }
        }
        _ => return None,
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

impl Crate {
    /// The module that defines what `path` (absolute) names.
    fn resolve(&self, path: &[String], fuel: usize) -> String {
        // The longest prefix that is a module.
        let mut k = path.len();
        let mut m = String::new();
        while k > 0 {
            let cand = alias(&path[..k].join("::"));
            if self.modules.contains(&cand) {
                m = cand;
                break;
            }
            k -= 1;
        }
        if k < path.len() && fuel > 0 && path[k] != "*" {
            if let Some(target) = self.names.get(&m).and_then(|n| n.get(&path[k])) {
                let mut p = target.clone();
                p.extend(path[k + 1..].iter().cloned());
                return self.resolve(&p, fuel - 1);
            }
        }
        m
    }
}

fn unit_of(m: &str) -> String {
    let mut best = m.to_string();
    let mut best_len = 0;
    for u in UNITS {
        if (m == *u || m.starts_with(&format!("{u}::"))) && u.len() >= best_len {
            best = u.to_string();
            best_len = u.len();
        }
    }
    if best_len == 0 {
        return m.to_string();
    }
    best
}

/// The unit graph: (from, to) -> one example ("file module: path").
fn graph() -> (BTreeSet<String>, BTreeMap<(String, String), String>) {
    let src = src_dir();
    let mut files = Vec::new();
    rs_files(&src, &mut files);
    files.sort();
    let mut modules = BTreeSet::new();
    let mut all_refs = Vec::new();
    let mut inline = BTreeMap::new();
    let mut macros = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let m = module_of(rel);
        modules.insert(m.clone());
        let text = std::fs::read_to_string(f).unwrap();
        all_refs.extend(refs_of(&m, &text, &mut inline, &mut macros));
    }
    for (_, to) in PATH_ALIASES {
        assert!(modules.contains(*to), "PATH_ALIASES names {to}, which is no file");
    }
    modules.extend(inline.keys().map(|m| alias(m)));
    let mut krate = Crate { modules: modules.clone(), names: BTreeMap::new(), globs: BTreeMap::new() };
    for (m, name) in &macros {
        let mut p: Vec<String> = if m.is_empty() { vec![] } else { alias(m).split("::").map(String::from).collect() };
        p.push(name.clone());
        krate.names.entry(String::new()).or_default().entry(name.clone()).or_insert(p);
    }
    let mut resolved = Vec::new();
    for r in &all_refs {
        let module = alias(&r.module);
        let Some(abs) =
            absolute(&module, &r.segs, &modules, r.binds.is_some() || r.segs.last().map(String::as_str) == Some("*"))
        else {
            continue;
        };
        if let Some(b) = &r.binds {
            krate.names.entry(module.clone()).or_default().insert(b.clone(), abs.clone());
        }
        if abs.last().map(String::as_str) == Some("*") {
            krate.globs.entry(module.clone()).or_default().push(abs[..abs.len() - 1].to_vec());
        }
        resolved.push((module, abs));
    }
    let mut units = BTreeSet::new();
    for m in modules.iter().filter(|m| !inline.contains_key(*m)) {
        units.insert(unit_of(m));
    }
    let mut edges = BTreeMap::new();
    for (module, abs) in resolved {
        let target = krate.resolve(&abs, 16);
        // An inline module (`mod tests { .. }`) counts as its file's module.
        let file_of = |m: &String| inline.get(m).map(|f| alias(f)).unwrap_or_else(|| m.clone());
        let (from, to) = (unit_of(&file_of(&module)), unit_of(&file_of(&target)));
        if from == to || INTERFACE_EDGES.contains(&(from.as_str(), to.as_str())) {
            continue;
        }
        edges.entry((from, to)).or_insert_with(|| format!("{module}: {}", abs.join("::")));
    }
    (units, edges)
}

/// Tarjan's strongly connected components.
fn sccs(nodes: &BTreeSet<String>, edges: &BTreeMap<(String, String), String>) -> Vec<Vec<String>> {
    let names: Vec<&String> = nodes.iter().collect();
    let idx: BTreeMap<&String, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let mut adj = vec![Vec::new(); names.len()];
    for (a, b) in edges.keys() {
        if let (Some(&x), Some(&y)) = (idx.get(a), idx.get(b)) {
            adj[x].push(y);
        }
    }
    struct T<'a> {
        adj: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(t: &mut T, v: usize) {
        t.index[v] = Some(t.next);
        t.low[v] = t.next;
        t.next += 1;
        t.stack.push(v);
        t.on[v] = true;
        for &w in &t.adj[v].clone() {
            match t.index[w] {
                None => {
                    visit(t, w);
                    t.low[v] = t.low[v].min(t.low[w]);
                }
                Some(iw) if t.on[w] => t.low[v] = t.low[v].min(iw),
                _ => {}
            }
        }
        if Some(t.low[v]) == t.index[v] {
            let mut c = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on[w] = false;
                c.push(w);
                if w == v {
                    break;
                }
            }
            t.out.push(c);
        }
    }
    let n = names.len();
    let mut t =
        T { adj: &adj, index: vec![None; n], low: vec![0; n], on: vec![false; n], stack: vec![], next: 0, out: vec![] };
    for v in 0..n {
        if t.index[v].is_none() {
            visit(&mut t, v);
        }
    }
    let mut out: Vec<Vec<String>> = t
        .out
        .into_iter()
        .map(|c| {
            let mut c: Vec<String> = c.into_iter().map(|i| names[i].clone()).collect();
            c.sort();
            c
        })
        .collect();
    out.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    out
}

/// Whether unit `from` may import unit `to`.
fn allowed(from: &str, to: &str) -> bool {
    if TOP.contains(&from) {
        // The facade and the macro ABI may name anything; the host backend anything but them.
        return from != "device::backend::host" || !TOP.contains(&to);
    }
    if TOP.contains(&to) {
        return false;
    }
    let in_device = |u: &str| u == "device" || u.starts_with("device::");
    if in_device(from) {
        return in_device(to);
    }
    if in_device(to) || MUTUAL.contains(&(from, to)) {
        return true;
    }
    let row = |u: &str| HOST_LAYERS.iter().position(|r| r.contains(&u));
    match (row(from), row(to)) {
        (Some(a), Some(b)) => b < a,
        _ => false,
    }
}

#[test]
fn runtime_layers() {
    let (units, edges) = graph();
    let all = sccs(&units, &edges);
    let sizes = |c: &[Vec<String>]| c.iter().map(Vec::len).filter(|&n| n > 1).collect::<Vec<_>>();
    println!(
        "{} units, {} edges; components of more than one unit, every edge: {:?}",
        units.len(),
        edges.len(),
        sizes(&all)
    );
    let mut layered = edges.clone();
    layered.retain(|(a, b), _| !KNOWN.contains(&(a.as_str(), b.as_str())));
    let comps = sccs(&units, &layered);
    println!(
        "without the {} edges of KNOWN: {:?} (every other unit is a component of one)",
        KNOWN.len(),
        sizes(&comps)
    );
    for c in comps.iter().filter(|c| c.len() > 1) {
        println!("  component of {}: {}", c.len(), c.join(", "));
        for ((a, b), why) in &layered {
            if c.contains(a) && c.contains(b) {
                println!("    {a} -> {b}   ({why})");
            }
        }
    }
    let mut bad = Vec::new();
    for ((a, b), why) in &edges {
        if !allowed(a, b) && !KNOWN.contains(&(a.as_str(), b.as_str())) {
            bad.push(format!("{a} -> {b}   ({why})"));
        }
    }
    for u in &units {
        let placed = TOP.contains(&u.as_str())
            || u == "device"
            || u.starts_with("device::")
            || HOST_LAYERS.iter().any(|r| r.contains(&u.as_str()));
        if !placed {
            bad.push(format!("{u} is in no layer (TOP, device, HOST_LAYERS)"));
        }
    }
    for (a, b) in KNOWN {
        if !edges.contains_key(&(a.to_string(), b.to_string())) {
            bad.push(format!("{a} -> {b} is listed in KNOWN but no longer in the tree: remove it from KNOWN"));
        }
    }
    let too_big: Vec<_> = comps.iter().filter(|c| c.len() > MAX_SCC).collect();
    assert!(
        bad.is_empty() && too_big.is_empty(),
        "layering broken:\n{}\ncomponents larger than {MAX_SCC}: {too_big:?}",
        bad.join("\n")
    );
}
