//! The emulator against a real GPU, bit for bit.
//!
//! `tools/fp-oracle/oracle.cu` evaluates every intrinsic on the device over a fixed corpus and
//! writes `tests/data/fp_oracle.bin` (result bits for the special-value section, hashes of the
//! rest, hashes of exhaustive 2^32 sweeps). These tests regenerate the same inputs
//! (`fp_corpus`), run the emulator and compare.
//!
//! * `corpus_matches_gpu`: every op's corpus (about 10^5 inputs each); fails on any mismatch of
//!   a bit-exact op and prints the inputs. When the data file is absent it says so on stderr
//!   and checks nothing else.
//! * `generator_matches_c_oracle`: the Rust generator against the C one
//!   (`tests/data/fp_oracle_inputs.txt`, from `oracle --inputs-only`), no GPU needed.
//! * `exhaustive_matches_gpu` (ignored; minutes per op): the 2^32 sweeps. Set
//!   `FP_ORACLE_OPS=fsqrt_rz,hdiv` to pick ops.
//!
//! `FP_ORACLE_DATA=path` reads another data file; `FP_ORACLE_FULL=dir` (the oracle's `--full`
//! output) makes a hash mismatch name the exact inputs.

#[path = "fp_corpus/mod.rs"]
mod fp_corpus;

use std::io::Write;
use std::path::PathBuf;

use deviceemu::intrinsics::__oracle;
use deviceemu::intrinsics::*;
use deviceemu::intrinsics::{bf16, f16};
use fp_corpus::{entry_hash, exhaustive_input, input_hash, inputs, Kind};

/// Writes a line to the real stderr, past the test harness's capture, so a skip is visible.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn f(x: u32) -> f32 {
    f32::from_bits(x)
}
fn h(x: u32) -> f16 {
    f16::from_bits(x as u16)
}
fn b(x: u32) -> bf16 {
    bf16::from_bits(x as u16)
}
fn canon(x: f32) -> u32 {
    if x.is_nan() {
        0x7fff_ffff
    } else {
        x.to_bits()
    }
}

type OpFn = fn(u32, u32, u32) -> u32;

/// The emulator's function for each oracle op name.
fn op_fn(name: &str) -> Option<OpFn> {
    macro_rules! ops {
        ($($n:literal => |$a:ident, $b:ident, $c:ident| $e:expr),* $(,)?) => {
            match name {
                $($n => Some(|$a: u32, $b: u32, $c: u32| -> u32 { let _ = ($a, $b, $c); $e }),)*
                _ => None,
            }
        };
    }
    ops! {
        "fadd_rn" => |x, y, z| fadd_rn(f(x), f(y)).to_bits(),
        "fadd_rz" => |x, y, z| fadd_rz(f(x), f(y)).to_bits(),
        "fadd_ru" => |x, y, z| fadd_ru(f(x), f(y)).to_bits(),
        "fadd_rd" => |x, y, z| fadd_rd(f(x), f(y)).to_bits(),
        "fsub_rn" => |x, y, z| fsub_rn(f(x), f(y)).to_bits(),
        "fsub_rz" => |x, y, z| fsub_rz(f(x), f(y)).to_bits(),
        "fsub_ru" => |x, y, z| fsub_ru(f(x), f(y)).to_bits(),
        "fsub_rd" => |x, y, z| fsub_rd(f(x), f(y)).to_bits(),
        "fmul_rn" => |x, y, z| fmul_rn(f(x), f(y)).to_bits(),
        "fmul_rz" => |x, y, z| fmul_rz(f(x), f(y)).to_bits(),
        "fmul_ru" => |x, y, z| fmul_ru(f(x), f(y)).to_bits(),
        "fmul_rd" => |x, y, z| fmul_rd(f(x), f(y)).to_bits(),
        "fdiv_rn" => |x, y, z| fdiv_rn(f(x), f(y)).to_bits(),
        "fdiv_rz" => |x, y, z| fdiv_rz(f(x), f(y)).to_bits(),
        "fdiv_ru" => |x, y, z| fdiv_ru(f(x), f(y)).to_bits(),
        "fdiv_rd" => |x, y, z| fdiv_rd(f(x), f(y)).to_bits(),
        "fmaf_rn" => |x, y, z| fmaf_rn(f(x), f(y), f(z)).to_bits(),
        "fmaf_rz" => |x, y, z| fmaf_rz(f(x), f(y), f(z)).to_bits(),
        "fmaf_ru" => |x, y, z| fmaf_ru(f(x), f(y), f(z)).to_bits(),
        "fmaf_rd" => |x, y, z| fmaf_rd(f(x), f(y), f(z)).to_bits(),
        "frcp_rn" => |x, y, z| frcp_rn(f(x)).to_bits(),
        "frcp_rz" => |x, y, z| frcp_rz(f(x)).to_bits(),
        "frcp_ru" => |x, y, z| frcp_ru(f(x)).to_bits(),
        "frcp_rd" => |x, y, z| frcp_rd(f(x)).to_bits(),
        "fsqrt_rn" => |x, y, z| fsqrt_rn(f(x)).to_bits(),
        "fsqrt_rz" => |x, y, z| fsqrt_rz(f(x)).to_bits(),
        "fsqrt_ru" => |x, y, z| fsqrt_ru(f(x)).to_bits(),
        "fsqrt_rd" => |x, y, z| fsqrt_rd(f(x)).to_bits(),
        "frsqrt_rn" => |x, y, z| frsqrt_rn(f(x)).to_bits(),
        "fadd_rn_ftz" => |x, y, z| fadd_rn_ftz(f(x), f(y)).to_bits(),
        "fadd_rz_ftz" => |x, y, z| fadd_rz_ftz(f(x), f(y)).to_bits(),
        "fadd_ru_ftz" => |x, y, z| fadd_ru_ftz(f(x), f(y)).to_bits(),
        "fadd_rd_ftz" => |x, y, z| fadd_rd_ftz(f(x), f(y)).to_bits(),
        "fsub_rn_ftz" => |x, y, z| fsub_rn_ftz(f(x), f(y)).to_bits(),
        "fsub_rz_ftz" => |x, y, z| fsub_rz_ftz(f(x), f(y)).to_bits(),
        "fsub_ru_ftz" => |x, y, z| fsub_ru_ftz(f(x), f(y)).to_bits(),
        "fsub_rd_ftz" => |x, y, z| fsub_rd_ftz(f(x), f(y)).to_bits(),
        "fmul_rn_ftz" => |x, y, z| fmul_rn_ftz(f(x), f(y)).to_bits(),
        "fmul_rz_ftz" => |x, y, z| fmul_rz_ftz(f(x), f(y)).to_bits(),
        "fmul_ru_ftz" => |x, y, z| fmul_ru_ftz(f(x), f(y)).to_bits(),
        "fmul_rd_ftz" => |x, y, z| fmul_rd_ftz(f(x), f(y)).to_bits(),
        "fdiv_rn_ftz" => |x, y, z| fdiv_rn_ftz(f(x), f(y)).to_bits(),
        "fdiv_rz_ftz" => |x, y, z| fdiv_rz_ftz(f(x), f(y)).to_bits(),
        "fdiv_ru_ftz" => |x, y, z| fdiv_ru_ftz(f(x), f(y)).to_bits(),
        "fdiv_rd_ftz" => |x, y, z| fdiv_rd_ftz(f(x), f(y)).to_bits(),
        "fmaf_rn_ftz" => |x, y, z| fmaf_rn_ftz(f(x), f(y), f(z)).to_bits(),
        "fmaf_rz_ftz" => |x, y, z| fmaf_rz_ftz(f(x), f(y), f(z)).to_bits(),
        "fmaf_ru_ftz" => |x, y, z| fmaf_ru_ftz(f(x), f(y), f(z)).to_bits(),
        "fmaf_rd_ftz" => |x, y, z| fmaf_rd_ftz(f(x), f(y), f(z)).to_bits(),
        "frcp_rn_ftz" => |x, y, z| frcp_rn_ftz(f(x)).to_bits(),
        "frcp_rz_ftz" => |x, y, z| frcp_rz_ftz(f(x)).to_bits(),
        "frcp_ru_ftz" => |x, y, z| frcp_ru_ftz(f(x)).to_bits(),
        "frcp_rd_ftz" => |x, y, z| frcp_rd_ftz(f(x)).to_bits(),
        "fsqrt_rn_ftz" => |x, y, z| fsqrt_rn_ftz(f(x)).to_bits(),
        "fsqrt_rz_ftz" => |x, y, z| fsqrt_rz_ftz(f(x)).to_bits(),
        "fsqrt_ru_ftz" => |x, y, z| fsqrt_ru_ftz(f(x)).to_bits(),
        "fsqrt_rd_ftz" => |x, y, z| fsqrt_rd_ftz(f(x)).to_bits(),
        "float2int_rn" => |x, y, z| float2int_rn(f(x)) as u32,
        "float2int_rz" => |x, y, z| float2int_rz(f(x)) as u32,
        "float2int_ru" => |x, y, z| float2int_ru(f(x)) as u32,
        "float2int_rd" => |x, y, z| float2int_rd(f(x)) as u32,
        "float2uint_rn" => |x, y, z| float2uint_rn(f(x)),
        "float2uint_rz" => |x, y, z| float2uint_rz(f(x)),
        "float2uint_ru" => |x, y, z| float2uint_ru(f(x)),
        "float2uint_rd" => |x, y, z| float2uint_rd(f(x)),
        "int2float_rn" => |x, y, z| int2float_rn(x as i32).to_bits(),
        "int2float_rz" => |x, y, z| int2float_rz(x as i32).to_bits(),
        "int2float_ru" => |x, y, z| int2float_ru(x as i32).to_bits(),
        "int2float_rd" => |x, y, z| int2float_rd(x as i32).to_bits(),
        "uint2float_rn" => |x, y, z| uint2float_rn(x).to_bits(),
        "uint2float_rz" => |x, y, z| uint2float_rz(x).to_bits(),
        "uint2float_ru" => |x, y, z| uint2float_ru(x).to_bits(),
        "uint2float_rd" => |x, y, z| uint2float_rd(x).to_bits(),
        "float2half_rn" => |x, y, z| float2half_rn(f(x)).to_bits() as u32,
        "float2half_rz" => |x, y, z| float2half_rz(f(x)).to_bits() as u32,
        "float2half_ru" => |x, y, z| float2half_ru(f(x)).to_bits() as u32,
        "float2half_rd" => |x, y, z| float2half_rd(f(x)).to_bits() as u32,
        "float2bfloat16_rn" => |x, y, z| float2bfloat16_rn(f(x)).to_bits() as u32,
        "float2bfloat16_rz" => |x, y, z| float2bfloat16_rz(f(x)).to_bits() as u32,
        "float2bfloat16_ru" => |x, y, z| float2bfloat16_ru(f(x)).to_bits() as u32,
        "float2bfloat16_rd" => |x, y, z| float2bfloat16_rd(f(x)).to_bits() as u32,
        "half2float" => |x, y, z| half2float(h(x)).to_bits(),
        "bfloat162float" => |x, y, z| bfloat162float(b(x)).to_bits(),
        "saturatef" => |x, y, z| saturatef(f(x)).to_bits(),
        "hneg" => |x, y, z| hneg(h(x)).to_bits() as u32,
        "habs" => |x, y, z| habs(h(x)).to_bits() as u32,
        "hisnan" => |x, y, z| hisnan(h(x)) as u32,
        "hneg_bf16" => |x, y, z| hneg_bf16(b(x)).to_bits() as u32,
        "habs_bf16" => |x, y, z| habs_bf16(b(x)).to_bits() as u32,
        "hisnan_bf16" => |x, y, z| hisnan_bf16(b(x)) as u32,
        "hadd" => |x, y, z| hadd(h(x), h(y)).to_bits() as u32,
        "hsub" => |x, y, z| hsub(h(x), h(y)).to_bits() as u32,
        "hmul" => |x, y, z| hmul(h(x), h(y)).to_bits() as u32,
        "hdiv" => |x, y, z| hdiv(h(x), h(y)).to_bits() as u32,
        "hfma" => |x, y, z| hfma(h(x), h(y), h(z)).to_bits() as u32,
        "hmin" => |x, y, z| hmin(h(x), h(y)).to_bits() as u32,
        "hmax" => |x, y, z| hmax(h(x), h(y)).to_bits() as u32,
        "hmin_nan" => |x, y, z| hmin_nan(h(x), h(y)).to_bits() as u32,
        "hmax_nan" => |x, y, z| hmax_nan(h(x), h(y)).to_bits() as u32,
        "heq" => |x, y, z| heq(h(x), h(y)) as u32,
        "hne" => |x, y, z| hne(h(x), h(y)) as u32,
        "hlt" => |x, y, z| hlt(h(x), h(y)) as u32,
        "hle" => |x, y, z| hle(h(x), h(y)) as u32,
        "hgt" => |x, y, z| hgt(h(x), h(y)) as u32,
        "hge" => |x, y, z| hge(h(x), h(y)) as u32,
        "hequ" => |x, y, z| hequ(h(x), h(y)) as u32,
        "hneu" => |x, y, z| hneu(h(x), h(y)) as u32,
        "hltu" => |x, y, z| hltu(h(x), h(y)) as u32,
        "hleu" => |x, y, z| hleu(h(x), h(y)) as u32,
        "hgtu" => |x, y, z| hgtu(h(x), h(y)) as u32,
        "hgeu" => |x, y, z| hgeu(h(x), h(y)) as u32,
        "hadd_bf16" => |x, y, z| hadd_bf16(b(x), b(y)).to_bits() as u32,
        "hsub_bf16" => |x, y, z| hsub_bf16(b(x), b(y)).to_bits() as u32,
        "hmul_bf16" => |x, y, z| hmul_bf16(b(x), b(y)).to_bits() as u32,
        "hdiv_bf16" => |x, y, z| hdiv_bf16(b(x), b(y)).to_bits() as u32,
        "hfma_bf16" => |x, y, z| hfma_bf16(b(x), b(y), b(z)).to_bits() as u32,
        "hmin_bf16" => |x, y, z| hmin_bf16(b(x), b(y)).to_bits() as u32,
        "hmax_bf16" => |x, y, z| hmax_bf16(b(x), b(y)).to_bits() as u32,
        "hmin_nan_bf16" => |x, y, z| hmin_nan_bf16(b(x), b(y)).to_bits() as u32,
        "hmax_nan_bf16" => |x, y, z| hmax_nan_bf16(b(x), b(y)).to_bits() as u32,
        "heq_bf16" => |x, y, z| heq_bf16(b(x), b(y)) as u32,
        "hne_bf16" => |x, y, z| hne_bf16(b(x), b(y)) as u32,
        "hlt_bf16" => |x, y, z| hlt_bf16(b(x), b(y)) as u32,
        "hle_bf16" => |x, y, z| hle_bf16(b(x), b(y)) as u32,
        "hgt_bf16" => |x, y, z| hgt_bf16(b(x), b(y)) as u32,
        "hge_bf16" => |x, y, z| hge_bf16(b(x), b(y)) as u32,
        "hequ_bf16" => |x, y, z| hequ_bf16(b(x), b(y)) as u32,
        "hneu_bf16" => |x, y, z| hneu_bf16(b(x), b(y)) as u32,
        "hltu_bf16" => |x, y, z| hltu_bf16(b(x), b(y)) as u32,
        "hleu_bf16" => |x, y, z| hleu_bf16(b(x), b(y)) as u32,
        "hgtu_bf16" => |x, y, z| hgtu_bf16(b(x), b(y)) as u32,
        "hgeu_bf16" => |x, y, z| hgeu_bf16(b(x), b(y)) as u32,
        "expf_fast" => |x, y, z| expf_fast(f(x)).to_bits(),
        "exp10f_fast" => |x, y, z| exp10f_fast(f(x)).to_bits(),
        "logf_fast" => |x, y, z| logf_fast(f(x)).to_bits(),
        "log2f_fast" => |x, y, z| log2f_fast(f(x)).to_bits(),
        "log10f_fast" => |x, y, z| log10f_fast(f(x)).to_bits(),
        "sinf_fast" => |x, y, z| sinf_fast(f(x)).to_bits(),
        "cosf_fast" => |x, y, z| cosf_fast(f(x)).to_bits(),
        "tanf_fast" => |x, y, z| tanf_fast(f(x)).to_bits(),
        "powf_fast" => |x, y, z| powf_fast(f(x), f(y)).to_bits(),
        "fdividef" => |x, y, z| fdividef(f(x), f(y)).to_bits(),
        // Plain Rust arithmetic, NaN payloads canonicalized: the evidence that it needs no
        // intrinsic.
        "plain_add" => |x, y, z| canon(f(x) + f(y)),
        "plain_sub" => |x, y, z| canon(f(x) - f(y)),
        "plain_mul" => |x, y, z| canon(f(x) * f(y)),
        "plain_div" => |x, y, z| canon(f(x) / f(y)),
        "plain_sqrt" => |x, y, z| canon(f(x).sqrt()),
        "plain_fma" => |x, y, z| canon(f(x).mul_add(f(y), f(z))),
        "rcp_approx_ftz" => |x, y, z| __oracle::rcp_approx_ftz(f(x)).to_bits(),
    }
}

/// Ops that are not bit-exact (fast math): compared by ulp distance, reported, not failed.
fn is_approximate(name: &str) -> bool {
    name.ends_with("_fast") || name == "fdividef"
}

/// Ordered distance in ulps between two f32 patterns (NaN equals NaN).
fn ulp_distance(x: u32, y: u32) -> u64 {
    let (fx, fy) = (f(x), f(y));
    if fx.is_nan() || fy.is_nan() {
        return if fx.is_nan() && fy.is_nan() { 0 } else { u64::MAX };
    }
    let key = |v: u32| -> i64 {
        if v & 0x8000_0000 != 0 {
            -((v & 0x7fff_ffff) as i64)
        } else {
            v as i64
        }
    };
    (key(x) - key(y)).unsigned_abs()
}

struct Record {
    name: String,
    sweep: u8,
    kind: Kind,
    count: u64,
    input_hash: u64,
    chunk_log2: u32,
    chunks: Vec<u64>,
    full: Vec<u32>,
}

struct Data {
    meta: String,
    records: Vec<Record>,
}

fn data_path() -> PathBuf {
    std::env::var_os("FP_ORACLE_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/fp_oracle.bin")))
}

fn load() -> Option<Data> {
    parse(&std::fs::read(data_path()).ok()?)
}

fn parse(bytes: &[u8]) -> Option<Data> {
    let mut p = 0usize;
    let mut take = |n: usize| {
        let s = &bytes[p..p + n];
        p += n;
        s
    };
    assert_eq!(take(8), b"FPORACL1", "not an oracle data file");
    let u32le = |s: &[u8]| u32::from_le_bytes(s.try_into().unwrap());
    let u64le = |s: &[u8]| u64::from_le_bytes(s.try_into().unwrap());
    let meta_len = u32le(take(4)) as usize;
    let meta = String::from_utf8_lossy(take(meta_len)).into_owned();
    let n = u32le(take(4));
    let mut records = Vec::new();
    for _ in 0..n {
        let len = take(1)[0] as usize;
        let name = String::from_utf8_lossy(take(len)).into_owned();
        let sweep = take(1)[0];
        let kind = Kind::from_code(take(1)[0]).expect("unknown input kind");
        let _flags = take(1)[0];
        let count = u64le(take(8));
        let input_hash = u64le(take(8));
        let chunk_log2 = u32le(take(4));
        let nc = u32le(take(4)) as usize;
        let chunks = (0..nc).map(|_| u64le(take(8))).collect();
        let nf = u32le(take(4)) as usize;
        let full = (0..nf).map(|_| u32le(take(4))).collect();
        records.push(Record { name, sweep, kind, count, input_hash, chunk_log2, chunks, full });
    }
    Some(Data { meta, records })
}

fn load_or_say_skipped(test: &str) -> Option<Data> {
    let d = load();
    if d.is_none() {
        say(&format!(
            "fp_oracle::{test}: SKIPPED, no GPU data at {} (build and run tools/fp-oracle/oracle.cu on a GPU, \
             see FP.md); nothing was compared",
            data_path().display()
        ));
    }
    d
}

/// Every device result of an op, from the oracle's `--full` output, if `FP_ORACLE_FULL` names it.
fn full_results(name: &str) -> Option<Vec<u32>> {
    let dir = std::env::var_os("FP_ORACLE_FULL")?;
    let bytes = std::fs::read(PathBuf::from(dir).join(format!("{name}.bin"))).ok()?;
    Some(bytes.chunks_exact(4).map(|s| u32::from_le_bytes(s.try_into().unwrap())).collect())
}

#[test]
fn corpus_matches_gpu() {
    let Some(data) = load_or_say_skipped("corpus_matches_gpu") else { return };
    say(&format!("fp_oracle: device data: {}", data.meta));
    let failures = compare_corpus(&data);
    assert!(failures.is_empty(), "emulator differs from the GPU:\n{}", failures.join("\n"));
}

/// Compares every corpus record with the emulator; returns one message per failing op.
fn compare_corpus(data: &Data) -> Vec<String> {
    let mut failures = Vec::new();
    let mut rcp_fixups: Vec<(u16, i64)> = Vec::new();
    for rec in data.records.iter().filter(|r| r.sweep == 0) {
        let Some(op) = op_fn(&rec.name) else {
            failures.push(format!("{}: no emulator function for this op", rec.name));
            continue;
        };
        let ins = inputs(&rec.name, rec.kind, is_approximate(&rec.name));
        assert_eq!(ins.len() as u64, rec.count, "{}: input count differs from the oracle's", rec.name);
        let ih = ins.iter().enumerate().fold(0u64, |h, (i, x)| h.wrapping_add(input_hash(i as u64, x[0], x[1], x[2])));
        assert_eq!(ih, rec.input_hash, "{}: inputs differ from the oracle's (generators out of step)", rec.name);
        let got: Vec<u32> = ins.iter().map(|x| op(x[0], x[1], x[2])).collect();
        if is_approximate(&rec.name) {
            let mut max = 0u64;
            let mut worst = 0usize;
            let mut exact = 0usize;
            for (i, &want) in rec.full.iter().enumerate() {
                let d = ulp_distance(got[i], want);
                exact += (d == 0) as usize;
                if d > max {
                    max = d;
                    worst = i;
                }
            }
            let w = ins[worst];
            say(&format!(
                "fp_oracle: {:<14} approximate: {}/{} identical to the device, max distance {} ulp (inputs {:#010x} {:#010x}: emu {:#010x}, gpu {:#010x})",
                rec.name, exact, rec.full.len(), if max == u64::MAX { "NaN-vs-number".to_string() } else { max.to_string() },
                w[0], w[1], got[worst], rec.full[worst]
            ));
            continue;
        }
        let mut mism = Vec::new();
        for (i, &want) in rec.full.iter().enumerate() {
            if got[i] != want {
                mism.push(i);
            }
        }
        let chunk = 1usize << rec.chunk_log2;
        let mut bad_chunks = 0;
        let mut full_file: Option<Option<Vec<u32>>> = None;
        for (c, &want) in rec.chunks.iter().enumerate() {
            let lo = c * chunk;
            let hi = ((c + 1) * chunk).min(got.len());
            let hsum = (lo..hi).fold(0u64, |h, i| h.wrapping_add(entry_hash(i as u64, got[i])));
            if hsum != want {
                bad_chunks += 1;
                if let Some(all) = full_file.get_or_insert_with(|| full_results(&rec.name)) {
                    for (i, &g) in got.iter().enumerate().take(hi).skip(lo.max(rec.full.len())) {
                        if all.get(i).is_some_and(|&v| v != g) {
                            mism.push(i);
                        }
                    }
                }
            }
        }
        if rec.name == "rcp_approx_ftz" {
            for i in 0..1024 {
                if got[i] != rec.full[i] {
                    rcp_fixups.push((i as u16, rec.full[i] as i64 - fdiv_rn(1.0, f(ins[i][0])).to_bits() as i64));
                }
            }
        }
        let total = rec.count;
        say(&format!(
            "fp_oracle: {:<18} {:>7} inputs, {:>4} mismatches in the {} stored results, {} of {} hashed chunks differ",
            rec.name,
            total,
            mism.len(),
            rec.full.len(),
            bad_chunks,
            rec.chunks.len()
        ));
        if !mism.is_empty() || bad_chunks > 0 {
            let mut msg = format!("{}: {} mismatching results, {} chunks", rec.name, mism.len(), bad_chunks);
            for &i in mism.iter().take(8) {
                let x = ins[i];
                let want = rec
                    .full
                    .get(i)
                    .copied()
                    .or_else(|| full_file.as_ref().and_then(|f| f.as_ref()).and_then(|f| f.get(i).copied()))
                    .unwrap_or(0);
                msg += &format!(
                    "\n    #{i}: inputs {:#010x} {:#010x} {:#010x}: emulator {:#010x}, device {:#010x}",
                    x[0], x[1], x[2], got[i], want
                );
            }
            failures.push(msg);
        }
    }
    if !rcp_fixups.is_empty() {
        let list: Vec<String> = rcp_fixups.iter().map(|(i, d)| format!("({i}, {d})")).collect();
        say(&format!(
            "fp_oracle: rcp.approx differs from the compiled-in table; paste into emu-runtime/src/device/intrinsics/fast.rs:\n\
             pub(crate) const RCP_APPROX_FIXUPS: &[(u16, i8)] = &[{}];",
            list.join(", ")
        ));
    }
    failures
}

/// The comparison machinery itself: a file in the oracle's format holding the emulator's own
/// results must pass, and one corrupted result, in the stored part or in a hashed chunk, must be
/// caught and attributed to its op.
#[test]
fn comparison_catches_a_wrong_bit() {
    fn record(out: &mut Vec<u8>, name: &str, kind: Kind, corrupt: Option<usize>) {
        let op = op_fn(name).unwrap();
        let ins = inputs(name, kind, false);
        let mut res: Vec<u32> = ins.iter().map(|x| op(x[0], x[1], x[2])).collect();
        if let Some(i) = corrupt {
            res[i] ^= 1;
        }
        let ih = ins.iter().enumerate().fold(0u64, |h, (i, x)| h.wrapping_add(input_hash(i as u64, x[0], x[1], x[2])));
        let mut chunks = vec![0u64; res.len().div_ceil(4096)];
        for (i, &r) in res.iter().enumerate() {
            chunks[i >> 12] = chunks[i >> 12].wrapping_add(entry_hash(i as u64, r));
        }
        out.push(name.len() as u8);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&[0, kind as u8, 0]);
        out.extend_from_slice(&(res.len() as u64).to_le_bytes());
        out.extend_from_slice(&ih.to_le_bytes());
        out.extend_from_slice(&12u32.to_le_bytes());
        out.extend_from_slice(&(chunks.len() as u32).to_le_bytes());
        chunks.iter().for_each(|c| out.extend_from_slice(&c.to_le_bytes()));
        out.extend_from_slice(&2048u32.to_le_bytes());
        res[..2048].iter().for_each(|r| out.extend_from_slice(&r.to_le_bytes()));
    }
    let file = |corrupt: [Option<usize>; 3]| {
        let mut out = b"FPORACL1".to_vec();
        out.extend_from_slice(&4u32.to_le_bytes());
        out.extend_from_slice(b"test");
        out.extend_from_slice(&3u32.to_le_bytes());
        record(&mut out, "fmul_rz", Kind::F2, corrupt[0]);
        record(&mut out, "float2half_ru", Kind::F1, corrupt[1]);
        record(&mut out, "hadd", Kind::H2, corrupt[2]);
        parse(&out).unwrap()
    };
    assert!(compare_corpus(&file([None, None, None])).is_empty());
    let f = compare_corpus(&file([Some(100), None, Some(50_000)]));
    assert_eq!(f.len(), 2, "{f:?}");
    assert!(f[0].starts_with("fmul_rz: 1 mismatching results, 1 chunks") && f[0].contains("#100:"), "{f:?}");
    assert!(f[1].starts_with("hadd: 0 mismatching results, 1 chunks"), "{f:?}");
}

fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

#[test]
#[ignore = "2^32 evaluations per op: minutes each; run with --release -- --ignored"]
fn exhaustive_matches_gpu() {
    use rayon::prelude::*;
    let Some(data) = load_or_say_skipped("exhaustive_matches_gpu") else { return };
    let filter: Option<Vec<String>> =
        std::env::var("FP_ORACLE_OPS").ok().map(|s| s.split(',').map(|x| x.trim().to_string()).collect());
    let mut failures = Vec::new();
    for rec in data.records.iter().filter(|r| r.sweep == 1) {
        if let Some(f) = &filter {
            if !f.contains(&rec.name) {
                continue;
            }
        }
        let op = op_fn(&rec.name).expect("no emulator function");
        let t = std::time::Instant::now();
        let kind = rec.kind;
        let bad: Vec<usize> = (0..rec.chunks.len())
            .into_par_iter()
            .filter(|&c| {
                let lo = (c as u64) << rec.chunk_log2;
                let mut s = 0u64;
                for i in lo..lo + (1u64 << rec.chunk_log2) {
                    let x = exhaustive_input(kind, i);
                    let r = op(x[0], x[1], x[2]);
                    s = s.wrapping_add(fmix32(r.wrapping_add((i as u32).wrapping_mul(0x9e37_79b1))) as u64);
                }
                s != rec.chunks[c]
            })
            .collect();
        say(&format!(
            "fp_oracle: exhaustive {:<18} 2^32 inputs, {} of {} chunks differ ({:.0} s)",
            rec.name,
            bad.len(),
            rec.chunks.len(),
            t.elapsed().as_secs_f64()
        ));
        if !bad.is_empty() {
            failures.push(format!(
                "{}: chunks {:?} (inputs [c*2^24, (c+1)*2^24))",
                rec.name,
                &bad[..bad.len().min(16)]
            ));
        }
    }
    assert!(failures.is_empty(), "emulator differs from the GPU:\n{}", failures.join("\n"));
}

#[test]
fn generator_matches_c_oracle() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/fp_oracle_inputs.txt");
    let text = std::fs::read_to_string(path).expect("tests/data/fp_oracle_inputs.txt (from `oracle --inputs-only`)");
    let mut n = 0;
    for line in text.lines() {
        let mut it = line.split_whitespace();
        let (name, kind, count, hash) =
            (it.next().unwrap(), it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
        let kind = Kind::from_code(kind.parse().unwrap()).unwrap();
        let ins = inputs(name, kind, is_approximate(name));
        assert_eq!(ins.len(), count.parse::<usize>().unwrap(), "{name}: count");
        let ih = ins.iter().enumerate().fold(0u64, |h, (i, x)| h.wrapping_add(input_hash(i as u64, x[0], x[1], x[2])));
        assert_eq!(format!("{ih:016x}"), hash, "{name}: Rust and C generators disagree");
        assert!(op_fn(name).is_some(), "{name}: the oracle has an op the emulator test does not know");
        n += 1;
    }
    assert!(n > 100);
}
