//! `atomic_add` on `f16`, `bf16`, `Half2` and `Bfloat162` (sm_90's `atom.add.noftz`): each
//! result is the exact sum rounded to nearest even with subnormals kept (checked against the
//! `half` crate's conversion of the exact sum, proptest over special values and random bits),
//! the old value comes back, the lanes of a pair are independent, it is atomic (many threads
//! adding to one element), and it works on shared memory and at every scope.

use deviceemu::intrinsics::{Bfloat162, Half2};
use deviceemu::prelude::*;
use half::{bf16, f16};
use proptest::prelude::*;

/// `acc[i] += b[i]` atomically; the old value goes to `old[i]`.
#[kernel]
pub fn add_f16(acc: &mut [f16], b: &[f16], old: &mut [f16]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < acc.len() {
        old[i] = acc.atomic_add(i, b[i]);
    }
}

#[kernel]
pub fn add_bf16(acc: &mut [bf16], b: &[bf16], old: &mut [bf16]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < acc.len() {
        old[i] = acc.atomic_add(i, b[i]);
    }
}

#[kernel]
pub fn add_half2(acc: &mut [Half2], b: &[Half2], old: &mut [Half2]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < acc.len() {
        old[i] = acc.atomic_add(i, b[i]);
    }
}

#[kernel]
pub fn add_bfloat162(acc: &mut [Bfloat162], b: &[Bfloat162], old: &mut [Bfloat162]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < acc.len() {
        old[i] = acc.atomic_add(i, b[i]);
    }
}

/// `x` rounded to nearest even in a binary format with `mbits` fraction bits and exponents
/// `emin..=emax` (subnormals below `2^emin`), infinity past its largest finite value: the
/// rounding done here, in f64, so that the conversion to the 16-bit type afterwards is exact.
/// (`half`'s `from_f64` rounds some halfway-adjacent values the wrong way: 0x03ff + 0xb0e9.)
fn round_to(x: f64, mbits: i32, emin: i32, emax: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let e = x.abs().log2().floor() as i32;
    // log2 may be off by one next to a power of two: fix e so that 2^e <= |x| < 2^(e+1).
    let e = if 2f64.powi(e) > x.abs() {
        e - 1
    } else if 2f64.powi(e + 1) <= x.abs() {
        e + 1
    } else {
        e
    };
    let ulp = 2f64.powi(e.max(emin) - mbits);
    let r = (x / ulp).round_ties_even() * ulp;
    if r.abs() >= 2f64.powi(emax + 1) {
        f64::INFINITY.copysign(x)
    } else {
        r
    }
}

/// The reference: the exact sum (exact in f64 for two f16; for bf16 the f64 sum is exact or
/// so far below half a bf16 ulp of the larger operand that its rounding cannot change the
/// result), rounded once to the 16-bit format (zero results keep IEEE's signs: `x + -x` is
/// +0), NaN as the canonical `0x7fff`.
fn ref_f16(a: u16, b: u16) -> u16 {
    let s = f16::from_bits(a).to_f64() + f16::from_bits(b).to_f64();
    if s.is_nan() {
        0x7fff
    } else {
        f16::from_f64(round_to(s, 10, -14, 15)).to_bits()
    }
}

fn ref_bf16(a: u16, b: u16) -> u16 {
    let s = bf16::from_bits(a).to_f64() + bf16::from_bits(b).to_f64();
    if s.is_nan() {
        0x7fff
    } else {
        bf16::from_f64(round_to(s, 7, -126, 127)).to_bits()
    }
}

#[test]
fn the_reference_rounds_as_ieee_does() {
    // Just under half an ulp of 0xb0e9 (2^-13): stays.
    assert_eq!(ref_f16(0x03ff, 0xb0e9), 0xb0e9);
    // 1 + 2^-11 is a tie: to even (1); 1 + 3 * 2^-11 rounds up to 1 + 2^-9.
    assert_eq!(ref_f16(0x3c00, 0x1000), 0x3c00);
    assert_eq!(ref_f16(0x3c01, 0x1000), 0x3c02);
    assert_eq!(ref_f16(0x7bff, 0x7bff), 0x7c00);
    assert_eq!(ref_f16(0x3c00, 0xbc00), 0x0000);
    assert_eq!(ref_bf16(0x3f80, 0x3b80), 0x3f80);
    assert_eq!(ref_bf16(0x7f7f, 0x7f7f), 0x7f80);
}

/// Special 16-bit patterns of both formats: zeros, the smallest and largest subnormals, the
/// smallest normal, one, values next to the largest finite, infinities, NaNs.
const SPECIAL_F16: [u16; 20] = [
    0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x83ff, 0x0400, 0x8400, 0x3c00, 0xbc00, 0x3c01, 0x7bff, 0xfbff, 0x7bfe,
    0x7c00, 0xfc00, 0x7e00, 0x7c01, 0x1400, 0x0200,
];
const SPECIAL_BF16: [u16; 20] = [
    0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x807f, 0x0080, 0x8080, 0x3f80, 0xbf80, 0x3f81, 0x7f7f, 0xff7f, 0x7f7e,
    0x7f80, 0xff80, 0x7fc0, 0x7f81, 0x3400, 0x0040,
];

fn pattern(special: &'static [u16; 20]) -> impl Strategy<Value = u16> {
    prop_oneof![prop::sample::select(&special[..]), any::<u16>()]
}

fn run_f16(a: &[u16], b: &[u16]) -> (Vec<u16>, Vec<u16>) {
    let mut acc = DeviceBuffer::from_slice(&a.iter().map(|&x| f16::from_bits(x)).collect::<Vec<_>>()).unwrap();
    let bb = DeviceBuffer::from_slice(&b.iter().map(|&x| f16::from_bits(x)).collect::<Vec<_>>()).unwrap();
    let mut old = DeviceBuffer::<f16>::zeroed(a.len()).unwrap();
    launch!(add_f16<<<(a.len() as u32).div_ceil(64), 64>>>(&mut acc, &bb, &mut old)).unwrap();
    let bits = |v: Vec<f16>| v.into_iter().map(f16::to_bits).collect();
    (bits(acc.to_vec().unwrap()), bits(old.to_vec().unwrap()))
}

fn run_bf16(a: &[u16], b: &[u16]) -> (Vec<u16>, Vec<u16>) {
    let mut acc = DeviceBuffer::from_slice(&a.iter().map(|&x| bf16::from_bits(x)).collect::<Vec<_>>()).unwrap();
    let bb = DeviceBuffer::from_slice(&b.iter().map(|&x| bf16::from_bits(x)).collect::<Vec<_>>()).unwrap();
    let mut old = DeviceBuffer::<bf16>::zeroed(a.len()).unwrap();
    launch!(add_bf16<<<(a.len() as u32).div_ceil(64), 64>>>(&mut acc, &bb, &mut old)).unwrap();
    let bits = |v: Vec<bf16>| v.into_iter().map(bf16::to_bits).collect();
    (bits(acc.to_vec().unwrap()), bits(old.to_vec().unwrap()))
}

#[test]
fn every_pair_of_special_values_adds_as_the_reference() {
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &x in &SPECIAL_F16 {
        for &y in &SPECIAL_F16 {
            a.push(x);
            b.push(y);
        }
    }
    let (acc, old) = run_f16(&a, &b);
    for i in 0..a.len() {
        assert_eq!(acc[i], ref_f16(a[i], b[i]), "f16 {:#06x} + {:#06x}", a[i], b[i]);
        assert_eq!(old[i], a[i]);
    }
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &x in &SPECIAL_BF16 {
        for &y in &SPECIAL_BF16 {
            a.push(x);
            b.push(y);
        }
    }
    let (acc, old) = run_bf16(&a, &b);
    for i in 0..a.len() {
        assert_eq!(acc[i], ref_bf16(a[i], b[i]), "bf16 {:#06x} + {:#06x}", a[i], b[i]);
        assert_eq!(old[i], a[i]);
    }
    // Subnormals are kept (noftz): the smallest subnormals add to the next one, not to zero.
    assert_eq!(ref_f16(0x0001, 0x0001), 0x0002);
    assert_eq!(ref_bf16(0x0001, 0x0001), 0x0002);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn f16_and_bf16_atomic_adds_round_the_exact_sum(pairs in prop::collection::vec((pattern(&SPECIAL_F16), pattern(&SPECIAL_F16)), 1..200),
                                                    bpairs in prop::collection::vec((pattern(&SPECIAL_BF16), pattern(&SPECIAL_BF16)), 1..200)) {
        let (a, b): (Vec<u16>, Vec<u16>) = pairs.into_iter().unzip();
        let (acc, old) = run_f16(&a, &b);
        for i in 0..a.len() {
            prop_assert_eq!(acc[i], ref_f16(a[i], b[i]), "f16 {:#06x} + {:#06x}", a[i], b[i]);
            prop_assert_eq!(old[i], a[i]);
        }
        let (a, b): (Vec<u16>, Vec<u16>) = bpairs.into_iter().unzip();
        let (acc, old) = run_bf16(&a, &b);
        for i in 0..a.len() {
            prop_assert_eq!(acc[i], ref_bf16(a[i], b[i]), "bf16 {:#06x} + {:#06x}", a[i], b[i]);
            prop_assert_eq!(old[i], a[i]);
        }
    }

    #[test]
    fn the_lanes_of_a_pair_add_on_their_own(lanes in prop::collection::vec((pattern(&SPECIAL_F16), pattern(&SPECIAL_F16), pattern(&SPECIAL_F16), pattern(&SPECIAL_F16)), 1..100),
                                            blanes in prop::collection::vec((pattern(&SPECIAL_BF16), pattern(&SPECIAL_BF16), pattern(&SPECIAL_BF16), pattern(&SPECIAL_BF16)), 1..100)) {
        let h = f16::from_bits;
        let a: Vec<Half2> = lanes.iter().map(|l| Half2::new(h(l.0), h(l.1))).collect();
        let b: Vec<Half2> = lanes.iter().map(|l| Half2::new(h(l.2), h(l.3))).collect();
        let mut acc = DeviceBuffer::from_slice(&a).unwrap();
        let bb = DeviceBuffer::from_slice(&b).unwrap();
        let mut old = DeviceBuffer::<Half2>::zeroed(a.len()).unwrap();
        launch!(add_half2<<<(a.len() as u32).div_ceil(64), 64>>>(&mut acc, &bb, &mut old)).unwrap();
        let (acc, old) = (acc.to_vec().unwrap(), old.to_vec().unwrap());
        for (i, l) in lanes.iter().enumerate() {
            prop_assert_eq!((acc[i].x.to_bits(), acc[i].y.to_bits()), (ref_f16(l.0, l.2), ref_f16(l.1, l.3)));
            prop_assert_eq!(old[i].to_bits(), a[i].to_bits());
        }
        let bh = bf16::from_bits;
        let a: Vec<Bfloat162> = blanes.iter().map(|l| Bfloat162::new(bh(l.0), bh(l.1))).collect();
        let b: Vec<Bfloat162> = blanes.iter().map(|l| Bfloat162::new(bh(l.2), bh(l.3))).collect();
        let mut acc = DeviceBuffer::from_slice(&a).unwrap();
        let bb = DeviceBuffer::from_slice(&b).unwrap();
        let mut old = DeviceBuffer::<Bfloat162>::zeroed(a.len()).unwrap();
        launch!(add_bfloat162<<<(a.len() as u32).div_ceil(64), 64>>>(&mut acc, &bb, &mut old)).unwrap();
        let (acc, old) = (acc.to_vec().unwrap(), old.to_vec().unwrap());
        for (i, l) in blanes.iter().enumerate() {
            prop_assert_eq!((acc[i].x.to_bits(), acc[i].y.to_bits()), (ref_bf16(l.0, l.2), ref_bf16(l.1, l.3)));
            prop_assert_eq!(old[i].to_bits(), a[i].to_bits());
        }
    }
}

/// Every thread adds one to a shared counter (per block, at block scope) and to a global one
/// (at every scope in turn), `f16` and `Half2`: the integers up to 2048 are exact in `f16`,
/// so a lost update would show.
#[kernel]
pub fn count(total: &mut [f16], pairs: &mut [Half2], per_block: &mut [f16]) {
    let s = shared_array![f16; 1];
    let t = thread_idx().x;
    if t == 0 {
        s[0] = f16::from_bits(0);
    }
    sync_threads();
    s.atomic_add_scoped(0, f16::from_bits(0x3c00), Scope::Block);
    match t % 3 {
        0 => total.atomic_add(0, f16::from_bits(0x3c00)),
        1 => total.atomic_add_scoped(0, f16::from_bits(0x3c00), Scope::Block),
        _ => total.atomic_add_scoped(0, f16::from_bits(0x3c00), Scope::System),
    };
    pairs.atomic_add(0, Half2::new(f16::from_bits(0x3c00), f16::from_bits(0x4000)));
    sync_threads();
    if t == 0 {
        per_block[block_idx().x as usize] = s[0];
    }
}

#[test]
fn many_threads_adding_lose_no_update() {
    let mut total = DeviceBuffer::<f16>::zeroed(1).unwrap();
    let mut pairs = DeviceBuffer::<Half2>::zeroed(1).unwrap();
    let mut per_block = DeviceBuffer::<f16>::zeroed(4).unwrap();
    launch!(count<<<4, 128>>>(&mut total, &mut pairs, &mut per_block)).unwrap();
    assert_eq!(total.to_vec().unwrap()[0].to_f32(), 512.0);
    let p = pairs.to_vec().unwrap()[0];
    assert_eq!((p.x.to_f32(), p.y.to_f32()), (512.0, 1024.0));
    assert!(per_block.to_vec().unwrap().iter().all(|v| v.to_f32() == 128.0));
}

/// Each thread adds `b*[t]` to its own slot of shared arrays, between barriers: in barrier
/// regions, where a block's shared atomics are a relaxed load and store
/// (`host/mem/atomic.rs`). The sums go to `a*`, the old values to `old*`.
#[kernel]
pub fn add_halves_in_shared(
    a16: &mut [f16],
    b16: &[f16],
    abf: &mut [bf16],
    bbf: &[bf16],
    a2: &mut [Half2],
    b2: &[Half2],
    old16: &mut [f16],
    old2: &mut [Half2],
) {
    let t = thread_idx().x as usize;
    let (s16, sbf, s2) = (shared_array![f16; 400], shared_array![bf16; 400], shared_array![Half2; 400]);
    s16[t] = a16[t];
    sbf[t] = abf[t];
    s2[t] = a2[t];
    sync_threads();
    old16[t] = s16.atomic_add(t, b16[t]);
    sbf.atomic_add(t, bbf[t]);
    old2[t] = s2.atomic_add(t, b2[t]);
    sync_threads();
    a16[t] = s16[t];
    abf[t] = sbf[t];
    a2[t] = s2[t];
}

#[test]
fn half_adds_on_shared_memory_in_barrier_regions_round_as_the_reference() {
    // Every pair of special values, f16 and bf16; the pairs' lanes are the f16 pairs, their
    // second lane reversed.
    let (mut a, mut b, mut abf, mut bbf) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, &x) in SPECIAL_F16.iter().enumerate() {
        for (j, &y) in SPECIAL_F16.iter().enumerate() {
            a.push(x);
            b.push(y);
            abf.push(SPECIAL_BF16[i]);
            bbf.push(SPECIAL_BF16[j]);
        }
    }
    let n = a.len();
    let h = |v: &[u16]| DeviceBuffer::from_slice(&v.iter().map(|&x| f16::from_bits(x)).collect::<Vec<_>>()).unwrap();
    let hb = |v: &[u16]| DeviceBuffer::from_slice(&v.iter().map(|&x| bf16::from_bits(x)).collect::<Vec<_>>()).unwrap();
    let pair = |v: &[u16], k: usize| Half2::new(f16::from_bits(v[k]), f16::from_bits(v[n - 1 - k]));
    let (pa, pb): (Vec<Half2>, Vec<Half2>) = (0..n).map(|k| (pair(&a, k), pair(&b, k))).unzip();
    let (mut a16, b16, mut abf_d, bbf_d) = (h(&a), h(&b), hb(&abf), hb(&bbf));
    let (mut a2, b2) = (DeviceBuffer::from_slice(&pa).unwrap(), DeviceBuffer::from_slice(&pb).unwrap());
    let (mut old16, mut old2) = (DeviceBuffer::<f16>::zeroed(n).unwrap(), DeviceBuffer::<Half2>::zeroed(n).unwrap());
    launch!(add_halves_in_shared<<<1, n as u32>>>(&mut a16, &b16, &mut abf_d, &bbf_d, &mut a2, &b2, &mut old16, &mut old2))
        .unwrap();
    if std::env::var_os("EMU_PATH").is_none() && std::env::var("EMU_TARGET").as_deref() != Ok("gpu") {
        assert_eq!(deviceemu::__private::last_path(), "regions");
    }
    let bits = |v: Vec<f16>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let want16: Vec<u16> = (0..n).map(|k| ref_f16(a[k], b[k])).collect();
    assert_eq!(bits(a16.to_vec().unwrap()), want16, "f16 sums");
    assert_eq!(bits(old16.to_vec().unwrap()), a, "f16 old values");
    let wantbf: Vec<u16> = (0..n).map(|k| ref_bf16(abf[k], bbf[k])).collect();
    assert_eq!(abf_d.to_vec().unwrap().iter().map(|x| x.to_bits()).collect::<Vec<_>>(), wantbf, "bf16 sums");
    let got2 = a2.to_vec().unwrap();
    let olds2 = old2.to_vec().unwrap();
    for k in 0..n {
        let want = (ref_f16(a[k], b[k]), ref_f16(a[n - 1 - k], b[n - 1 - k]));
        assert_eq!((got2[k].x.to_bits(), got2[k].y.to_bits()), want, "Half2 sum {k}");
        assert_eq!((olds2[k].x.to_bits(), olds2[k].y.to_bits()), (a[k], a[n - 1 - k]), "Half2 old {k}");
    }
}
