//! The GPU oracle's corpus, regenerated in Rust: the same special values, the same fixed-seed
//! generator and the same hashes as `tools/fp-oracle/oracle.cu`, integer operations only, so
//! both sides produce identical inputs. Keep the two files in step: the data file records a
//! hash of each op's inputs, and `fp_oracle.rs` checks it before comparing results.
#![allow(dead_code, unreachable_pub)]

/// Generated inputs per op (on top of the special-value section).
pub const N_GENERATED: usize = 100_000;
/// Generated inputs for the fast-math ops, whose results are stored in full.
pub const N_GENERATED_FAST: usize = 4096;

/// How an op's inputs are formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// One f32.
    F1 = 1,
    /// Two f32.
    F2 = 2,
    /// Three f32.
    F3 = 3,
    /// One i32.
    I1 = 4,
    /// One u32.
    U1 = 5,
    /// One f16 pattern (all 65536).
    H1 = 6,
    /// Two f16.
    H2 = 7,
    /// Three f16.
    H3 = 8,
    /// One bf16 pattern (all 65536).
    B1 = 9,
    /// Two bf16.
    B2 = 10,
    /// Three bf16.
    B3 = 11,
    /// The `rcp.approx` probe: the 1024 f16 mantissas in [1, 2), then scaled copies.
    R1 = 12,
}

impl Kind {
    pub fn from_code(c: u8) -> Option<Kind> {
        use Kind::*;
        [F1, F2, F3, I1, U1, H1, H2, H3, B1, B2, B3, R1].into_iter().find(|k| *k as u8 == c)
    }
    pub fn arity(self) -> usize {
        use Kind::*;
        match self {
            F1 | I1 | U1 | H1 | B1 | R1 => 1,
            F2 | H2 | B2 => 2,
            F3 | H3 | B3 => 3,
        }
    }
}

/// A float format for the generator: mantissa and exponent widths.
#[derive(Clone, Copy)]
pub struct Fmt {
    pub man: u32,
    pub exp: u32,
}
pub const F32: Fmt = Fmt { man: 23, exp: 8 };
pub const F16: Fmt = Fmt { man: 10, exp: 5 };
pub const BF16: Fmt = Fmt { man: 7, exp: 8 };

impl Fmt {
    fn bias(self) -> u32 {
        (1 << (self.exp - 1)) - 1
    }
    fn emaxf(self) -> u32 {
        (1 << self.exp) - 1
    }
    fn sign(self) -> u32 {
        1 << (self.man + self.exp)
    }
    fn mmask(self) -> u32 {
        (1 << self.man) - 1
    }
    fn make(self, s: u32, e: u32, m: u32) -> u32 {
        (if s != 0 { self.sign() } else { 0 }) | (e << self.man) | (m & self.mmask())
    }
}

/// splitmix64's output function.
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Hash of one result: summed (wrapping) over a chunk, so order does not matter.
pub fn entry_hash(i: u64, v: u32) -> u64 {
    mix64(((i << 32) | v as u64) ^ 0x9e37_79b9_7f4a_7c15)
}

/// Hash of one input triple.
pub fn input_hash(i: u64, a: u32, b: u32, c: u32) -> u64 {
    entry_hash(i, a).wrapping_add(entry_hash(i, b).wrapping_mul(3)).wrapping_add(entry_hash(i, c).wrapping_mul(5))
}

/// FNV-1a of an op name: the op's seed.
pub fn fnv1a(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// splitmix64 positioned at input `j` of an op.
pub struct Gen(u64);
impl Gen {
    pub fn at(seed: u64, j: u64) -> Gen {
        Gen(seed ^ j.wrapping_mul(0xd1b5_4a32_d192_ed03))
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix64(self.0)
    }
}

/// The special values of a format, in a fixed order.
pub fn specials(f: Fmt) -> Vec<u32> {
    let (b, man, ef, mm) = (f.bias(), f.man, f.emaxf(), f.mmask());
    let cap = |e: u32| if e >= ef { ef - 1 } else { e };
    vec![
        f.make(0, 0, 0),
        f.make(1, 0, 0),
        f.make(0, 0, 1),
        f.make(1, 0, 1),
        f.make(0, 0, mm),
        f.make(0, 1, 0),
        f.make(1, 1, 0),
        f.make(0, b, 0),
        f.make(1, b, 0),
        f.make(0, b, 1),
        f.make(0, b - 1, mm),
        f.make(0, b, 1 << (man - 1)),
        f.make(0, b + 1, 0),
        f.make(0, b - 1, 0),
        f.make(0, b + 1, 1 << (man - 1)),
        f.make(1, b + 1, 1 << (man - 1)),
        f.make(0, b - 2, mm / 3),
        f.make(0, b - man - 1, 0),
        f.make(0, b - man - 1, 1 << (man - 1)),
        f.make(0, b - man, 0),
        f.make(0, ef - 1, mm),
        f.make(1, ef - 1, mm),
        f.make(0, ef - 1, 0),
        f.make(0, ef, 0),
        f.make(1, ef, 0),
        f.make(0, ef, 1 << (man - 1)),
        f.make(0, ef, (1 << (man - 1)) | (0x1234 & (mm >> 1))),
        f.make(0, ef, 1),
        f.make(1, ef, 1 << (man - 1)),
        f.make(0, cap(b + man + 1), 0),
        f.make(0, cap(b + man), mm),
        f.make(1, b + 1, 0x0049_0fdb >> (23 - man)),
        f.make(0, cap(b + 30), mm),
        f.make(0, cap(b + 31), 0),
        f.make(0, b - 2, mm),
        f.make(0, b + 1, 1 << (man - 2)),
    ]
}

/// Indices into [`specials`] used for the triples of three-operand ops.
pub const TRIPLE_SUBSET: [usize; 12] = [0, 1, 2, 5, 7, 8, 9, 17, 20, 23, 25, 14];

/// Integer special values.
pub fn int_specials() -> Vec<u32> {
    vec![
        0,
        1,
        0xffff_ffff,
        2,
        3,
        7,
        255,
        256,
        16_777_215,
        16_777_216,
        16_777_217,
        16_777_218,
        16_777_219,
        33_554_431,
        33_554_433,
        33_554_435,
        0x7fff_ffff,
        0x8000_0000,
        0x8000_0001,
        0x7fff_ff80,
        0x7fff_ffc0,
        0x7fff_ffbf,
        0x7fff_ffc1,
        0xffff_ff80,
        0xff00_0001,
        0xfeff_ffff,
        0x0100_0001,
        0xfeff_ffff_u32.wrapping_sub(2),
        0xffff_fffe,
        0x4000_0001,
        0x5555_5555,
        0xaaaa_aaab,
    ]
}

fn exp_of(f: Fmt, x: u32) -> u32 {
    (x >> f.man) & f.emaxf()
}

/// The product of two values' significands, truncated, as a value of the format (both normal
/// and the product in range), else `fallback`.
fn trunc_product(f: Fmt, a: u32, b: u32, neg: u32, fallback: u32) -> u32 {
    let (ea, eb) = (exp_of(f, a), exp_of(f, b));
    if ea == 0 || eb == 0 || ea == f.emaxf() || eb == f.emaxf() {
        return fallback;
    }
    let ma = ((a & f.mmask()) | (1 << f.man)) as u64;
    let mb = ((b & f.mmask()) | (1 << f.man)) as u64;
    let p = ma * mb;
    let (pm, carry) = if p >> (2 * f.man + 1) != 0 { (p >> (f.man + 1), 1) } else { (p >> f.man, 0) };
    let pe = ea as i64 + eb as i64 - f.bias() as i64 + carry;
    if pe < 1 || pe >= f.emaxf() as i64 {
        return fallback;
    }
    f.make(neg, pe as u32, pm as u32)
}

/// One generated operand.
pub fn gen_fp(g: &mut Gen, f: Fmt) -> u32 {
    let r = g.next();
    let cls = r & 15;
    let s = ((r >> 4) & 1) as u32;
    let mraw = (r >> 8) as u32 & f.mmask();
    let eraw = (r >> 40) as u32 & f.emaxf();
    let sel = (r >> 48) as u32;
    let b = f.bias();
    let ef = f.emaxf();
    let width_mask = ((f.sign() as u64) << 1) - 1;
    match cls {
        0..=2 => ((r >> 16) & width_mask) as u32,
        3 | 4 => f.make(s, b - f.man - 1 + sel % (2 * f.man + 3), mraw),
        5 => f.make(s, 0, mraw >> (sel % f.man)),
        6 => f.make(s, 1 + sel % 3, mraw),
        7 => f.make(s, ef - 1 - sel % 3, mraw),
        8 => {
            let sp = specials(f);
            sp[(sel as usize) % sp.len()]
        }
        9 => {
            let e = if eraw == ef { ef - 1 } else { eraw };
            f.make(s, e, mraw & !((1u32 << (sel % (f.man + 1))) - 1))
        }
        10 => {
            let m = if sel & 1 != 0 { f.mmask() - (mraw & 7) } else { mraw & 7 };
            f.make(s, b - (ef / 8) + (sel >> 1) % (ef / 4), m)
        }
        11 => {
            // Near an exact square: y*y truncated, nudged by up to 2 ulps.
            let y = f.make(0, b - (ef / 8) + sel % (ef / 4), mraw);
            let sq = trunc_product(f, y, y, 0, y);
            let d = ((r >> 24) % 5) as i64 - 2;
            ((sq as i64 + d).clamp(1, (f.make(0, ef, 0) - 1) as i64)) as u32
        }
        _ => f.make(s, b / 2 + sel % (ef / 2 + 1).min(ef - b / 2), mraw),
    }
}

/// A second operand, often related to the first.
pub fn gen_second(g: &mut Gen, f: Fmt, a: u32) -> u32 {
    let r = g.next();
    let sel = (r >> 8) as u32;
    let s = ((r >> 4) & 1) as u32;
    let ef = f.emaxf();
    let ea = exp_of(f, a);
    let width_mask = (f.sign() << 1).wrapping_sub(1);
    match r & 7 {
        2 | 3 if ea != ef => {
            let e = (ea as i64 + (sel % 61) as i64 - 30).clamp(0, ef as i64 - 1) as u32;
            f.make(s, e, (r >> 32) as u32)
        }
        4 => {
            let d = (sel & 15) as i64 - 8;
            let v = ((a & (f.sign() - 1)) as i64 + d).clamp(0, (f.sign() - 1) as i64) as u32;
            v | (s << (f.man + f.exp))
        }
        5 => ((a & !0xfff & width_mask) | (sel & 0xfff & width_mask)) ^ (s << (f.man + f.exp)),
        6 => {
            // a = b * q with q of few bits: quotients near exact values and ties.
            let q = f.make(s, f.bias() - 4 + sel % 9, ((r >> 32) as u32) & !((1u32 << (f.man - 3)) - 1));
            let p = trunc_product(f, a, q, s, a);
            let d = ((r >> 40) % 3) as i64 - 1;
            ((p as i64 + d).clamp(0, width_mask as i64)) as u32
        }
        _ => gen_fp(g, f),
    }
}

/// A third (addend) operand for fma, often near `-(a*b)`.
pub fn gen_third(g: &mut Gen, f: Fmt, a: u32, b: u32) -> u32 {
    let r = g.next();
    let sel = (r >> 8) as u32;
    match r & 3 {
        1 | 2 => {
            let neg = (((a ^ b) >> (f.man + f.exp)) & 1) ^ (if (r >> 2) & 1 == 0 { 1 } else { 0 });
            let fallback = gen_fp(g, f);
            let p = trunc_product(f, a, b, neg, fallback);
            let d = (sel % 7) as i64 - 3;
            let lim = ((f.sign() as u64) << 1) as i64 - 1;
            ((p as i64 + d).clamp(0, lim)) as u32
        }
        3 => {
            let ea = exp_of(f, a) as i64 + exp_of(f, b) as i64 - f.bias() as i64;
            let e = (ea + (sel % 51) as i64 - 25).clamp(0, f.emaxf() as i64 - 1) as u32;
            f.make(((r >> 2) & 1) as u32, e, (r >> 32) as u32)
        }
        _ => gen_fp(g, f),
    }
}

/// One generated integer.
pub fn gen_int(g: &mut Gen) -> u32 {
    let r = g.next();
    let sel = (r >> 32) as u32;
    match r & 7 {
        2 => ((sel % 2001) as i32 - 1000) as u32,
        3 => (1u32 << (sel % 32)).wrapping_add(((r >> 8) & 15) as u32).wrapping_sub(8),
        4 => {
            let x = ((r >> 16) as u32) >> (sel % 9);
            let low = [0x80u32, 0x7f, 0x81, 0x40, 0xc0][((r >> 8) % 5) as usize];
            (x & !0xff) | low
        }
        5 => (1u32 << (sel % 32)).wrapping_add(((r >> 8) & 15) as u32).wrapping_sub(8).wrapping_neg(),
        6 => {
            let sp = int_specials();
            sp[(sel as usize) % sp.len()]
        }
        _ => (r >> 16) as u32,
    }
}

fn fmt_of(k: Kind) -> Fmt {
    match k {
        Kind::H1 | Kind::H2 | Kind::H3 => F16,
        Kind::B1 | Kind::B2 | Kind::B3 => BF16,
        _ => F32,
    }
}

/// Every input of an op, in the oracle's order: the special section, then the generated one.
pub fn inputs(name: &str, kind: Kind, fast: bool) -> Vec<[u32; 3]> {
    let mut v = Vec::new();
    let f = fmt_of(kind);
    let n_gen = if fast { N_GENERATED_FAST } else { N_GENERATED };
    match kind {
        Kind::H1 | Kind::B1 => {
            return (0..65536u32).map(|x| [x, 0, 0]).collect();
        }
        Kind::R1 => {
            for k in [0i32, -20, -1, 1, 20, 100, -100, 126, -126] {
                for i in 0..1024u32 {
                    v.push([(((127 + k) as u32) << 23) | (i << 13), 0, 0]);
                }
            }
            return v;
        }
        Kind::I1 | Kind::U1 => {
            for x in int_specials() {
                v.push([x, 0, 0]);
            }
        }
        _ => {
            let sp = specials(f);
            match kind.arity() {
                1 => sp.iter().for_each(|&a| v.push([a, 0, 0])),
                2 => sp.iter().for_each(|&a| sp.iter().for_each(|&b| v.push([a, b, 0]))),
                _ => {
                    for &i in &TRIPLE_SUBSET {
                        for &j in &TRIPLE_SUBSET {
                            for &k in &TRIPLE_SUBSET {
                                v.push([sp[i], sp[j], sp[k]]);
                            }
                        }
                    }
                }
            }
        }
    }
    let seed = fnv1a(name);
    for j in 0..n_gen {
        let mut g = Gen::at(seed, j as u64);
        let x = match kind {
            Kind::I1 | Kind::U1 => [gen_int(&mut g), 0, 0],
            _ => {
                let a = gen_fp(&mut g, f);
                match kind.arity() {
                    1 => [a, 0, 0],
                    2 => {
                        let b = gen_second(&mut g, f, a);
                        if g.next() & 1 == 0 {
                            [a, b, 0]
                        } else {
                            [b, a, 0]
                        }
                    }
                    _ => {
                        let b = gen_second(&mut g, f, a);
                        let c = gen_third(&mut g, f, a, b);
                        [a, b, c]
                    }
                }
            }
        };
        v.push(x);
    }
    v
}

/// Input of an exhaustive op at index `i` (0..2^32).
pub fn exhaustive_input(kind: Kind, i: u64) -> [u32; 3] {
    match kind {
        Kind::H2 | Kind::B2 => [(i >> 16) as u32, (i & 0xffff) as u32, 0],
        _ => [i as u32, 0, 0],
    }
}
