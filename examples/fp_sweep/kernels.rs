//! GPU-vs-emulator sweep of every float intrinsic: each intrinsic runs on the GPU (where
//! `deviceemu::intrinsics` compiles to the PTX instruction: `add.rz.f32`, `cvt.rn.bf16.f32`,
//! `rcp.approx.ftz.f32`, ...) and in the emulator (the integer engine) over the same inputs,
//! and the result bits are compared. Every op except the fast-math ones must agree bit for bit.
//!
//! `examples/gpu_vs_emu.rs` includes this file as a module and calls `fp_sweep_run_all(1 << 16)`.
//! It needs the `gpu` feature and an sm_90 GPU (the kernels use sm_90 PTX). On the H200: 148 ops
//! × 65 536 inputs in 1.2 s, 0 differences in the 136 bit-exact ops (FP.md).
//!
//! Inputs, per op, `n` of them (`n` a multiple of 256): for 16-bit operands of one-operand ops,
//! every one of the 65536 patterns when `n >= 65536`; otherwise a deterministic mix of special
//! values (zeros, subnormals, the smallest normal, one and its neighbours, the largest finite
//! value, infinities, NaNs with payloads), random bit patterns, values near the subnormal and
//! overflow boundaries, second operands a few ulps from the first, and fma addends near
//! `-a * b`. Fast-math ops (`*_fast`, `fdividef`, `rcp.approx` on arbitrary significands) are
//! reported as "identical / max ulp", not counted as differences.

// `examples/gpu_vs_emu.rs` already has the prelude glob (a second one is harmless); `Config`,
// `Error` and `Target` are written out in full below so that no import is doubled.
use deviceemu::intrinsics::__oracle;
use deviceemu::prelude::*;

/// Every swept op: (name, operand kind, arity, bit-exact). Kinds: `f` f32 bit patterns, `s` f32
/// whose last operand (the divisor) has a significand of at most 10 fraction bits, `i` 32-bit
/// integers, `h` f16 and `b` bf16 patterns in the low 16 bits. The index is the op number that
/// `fp_sweep_eval` switches on.
pub(crate) const FP_SWEEP_OPS: &[(&str, u8, u32, bool)] = &[
    ("fadd_rn", b'f', 2, true),
    ("fadd_rn_ftz", b'f', 2, true),
    ("fadd_rz", b'f', 2, true),
    ("fadd_rz_ftz", b'f', 2, true),
    ("fadd_ru", b'f', 2, true),
    ("fadd_ru_ftz", b'f', 2, true),
    ("fadd_rd", b'f', 2, true),
    ("fadd_rd_ftz", b'f', 2, true),
    ("fsub_rn", b'f', 2, true),
    ("fsub_rn_ftz", b'f', 2, true),
    ("fsub_rz", b'f', 2, true),
    ("fsub_rz_ftz", b'f', 2, true),
    ("fsub_ru", b'f', 2, true),
    ("fsub_ru_ftz", b'f', 2, true),
    ("fsub_rd", b'f', 2, true),
    ("fsub_rd_ftz", b'f', 2, true),
    ("fmul_rn", b'f', 2, true),
    ("fmul_rn_ftz", b'f', 2, true),
    ("fmul_rz", b'f', 2, true),
    ("fmul_rz_ftz", b'f', 2, true),
    ("fmul_ru", b'f', 2, true),
    ("fmul_ru_ftz", b'f', 2, true),
    ("fmul_rd", b'f', 2, true),
    ("fmul_rd_ftz", b'f', 2, true),
    ("fdiv_rn", b'f', 2, true),
    ("fdiv_rn_ftz", b'f', 2, true),
    ("fdiv_rz", b'f', 2, true),
    ("fdiv_rz_ftz", b'f', 2, true),
    ("fdiv_ru", b'f', 2, true),
    ("fdiv_ru_ftz", b'f', 2, true),
    ("fdiv_rd", b'f', 2, true),
    ("fdiv_rd_ftz", b'f', 2, true),
    ("fmaf_rn", b'f', 3, true),
    ("fmaf_rn_ftz", b'f', 3, true),
    ("fmaf_rz", b'f', 3, true),
    ("fmaf_rz_ftz", b'f', 3, true),
    ("fmaf_ru", b'f', 3, true),
    ("fmaf_ru_ftz", b'f', 3, true),
    ("fmaf_rd", b'f', 3, true),
    ("fmaf_rd_ftz", b'f', 3, true),
    ("frcp_rn", b'f', 1, true),
    ("frcp_rn_ftz", b'f', 1, true),
    ("frcp_rz", b'f', 1, true),
    ("frcp_rz_ftz", b'f', 1, true),
    ("frcp_ru", b'f', 1, true),
    ("frcp_ru_ftz", b'f', 1, true),
    ("frcp_rd", b'f', 1, true),
    ("frcp_rd_ftz", b'f', 1, true),
    ("fsqrt_rn", b'f', 1, true),
    ("fsqrt_rn_ftz", b'f', 1, true),
    ("fsqrt_rz", b'f', 1, true),
    ("fsqrt_rz_ftz", b'f', 1, true),
    ("fsqrt_ru", b'f', 1, true),
    ("fsqrt_ru_ftz", b'f', 1, true),
    ("fsqrt_rd", b'f', 1, true),
    ("fsqrt_rd_ftz", b'f', 1, true),
    ("frsqrt_rn", b'f', 1, true),
    ("saturatef", b'f', 1, true),
    ("float2int_rn", b'f', 1, true),
    ("float2uint_rn", b'f', 1, true),
    ("int2float_rn", b'i', 1, true),
    ("uint2float_rn", b'i', 1, true),
    ("float2half_rn", b'f', 1, true),
    ("float2bfloat16_rn", b'f', 1, true),
    ("float2int_rz", b'f', 1, true),
    ("float2uint_rz", b'f', 1, true),
    ("int2float_rz", b'i', 1, true),
    ("uint2float_rz", b'i', 1, true),
    ("float2half_rz", b'f', 1, true),
    ("float2bfloat16_rz", b'f', 1, true),
    ("float2int_ru", b'f', 1, true),
    ("float2uint_ru", b'f', 1, true),
    ("int2float_ru", b'i', 1, true),
    ("uint2float_ru", b'i', 1, true),
    ("float2half_ru", b'f', 1, true),
    ("float2bfloat16_ru", b'f', 1, true),
    ("float2int_rd", b'f', 1, true),
    ("float2uint_rd", b'f', 1, true),
    ("int2float_rd", b'i', 1, true),
    ("uint2float_rd", b'i', 1, true),
    ("float2half_rd", b'f', 1, true),
    ("float2bfloat16_rd", b'f', 1, true),
    ("half2float", b'h', 1, true),
    ("bfloat162float", b'b', 1, true),
    ("hadd", b'h', 2, true),
    ("hsub", b'h', 2, true),
    ("hmul", b'h', 2, true),
    ("hdiv", b'h', 2, true),
    ("hmin", b'h', 2, true),
    ("hmax", b'h', 2, true),
    ("hmin_nan", b'h', 2, true),
    ("hmax_nan", b'h', 2, true),
    ("hfma", b'h', 3, true),
    ("hneg", b'h', 1, true),
    ("habs", b'h', 1, true),
    ("hisnan", b'h', 1, true),
    ("heq", b'h', 2, true),
    ("hne", b'h', 2, true),
    ("hlt", b'h', 2, true),
    ("hle", b'h', 2, true),
    ("hgt", b'h', 2, true),
    ("hge", b'h', 2, true),
    ("hequ", b'h', 2, true),
    ("hneu", b'h', 2, true),
    ("hltu", b'h', 2, true),
    ("hleu", b'h', 2, true),
    ("hgtu", b'h', 2, true),
    ("hgeu", b'h', 2, true),
    ("hadd_bf16", b'b', 2, true),
    ("hsub_bf16", b'b', 2, true),
    ("hmul_bf16", b'b', 2, true),
    ("hdiv_bf16", b'b', 2, true),
    ("hmin_bf16", b'b', 2, true),
    ("hmax_bf16", b'b', 2, true),
    ("hmin_nan_bf16", b'b', 2, true),
    ("hmax_nan_bf16", b'b', 2, true),
    ("hfma_bf16", b'b', 3, true),
    ("hneg_bf16", b'b', 1, true),
    ("habs_bf16", b'b', 1, true),
    ("hisnan_bf16", b'b', 1, true),
    ("heq_bf16", b'b', 2, true),
    ("hne_bf16", b'b', 2, true),
    ("hlt_bf16", b'b', 2, true),
    ("hle_bf16", b'b', 2, true),
    ("hgt_bf16", b'b', 2, true),
    ("hge_bf16", b'b', 2, true),
    ("hequ_bf16", b'b', 2, true),
    ("hneu_bf16", b'b', 2, true),
    ("hltu_bf16", b'b', 2, true),
    ("hleu_bf16", b'b', 2, true),
    ("hgtu_bf16", b'b', 2, true),
    ("hgeu_bf16", b'b', 2, true),
    ("expf_fast", b'f', 1, false),
    ("exp10f_fast", b'f', 1, false),
    ("logf_fast", b'f', 1, false),
    ("log2f_fast", b'f', 1, false),
    ("log10f_fast", b'f', 1, false),
    ("sinf_fast", b'f', 1, false),
    ("cosf_fast", b'f', 1, false),
    ("tanf_fast", b'f', 1, false),
    ("powf_fast", b'f', 2, false),
    ("fdividef", b'f', 2, false),
    ("fdividef_short_divisor", b's', 2, true),
    ("rcp_approx_ftz", b'f', 1, false),
    ("rcp_approx_ftz_short", b's', 1, true),
    ("rcp_approx", b'f', 1, false),
    ("rcp_approx_short", b's', 1, true),
    ("div_approx_ftz_short", b's', 2, true),
];

/// Applies op number `op` to the operand bits `x`, `y`, `z`; returns the result bits.
#[device]
pub(crate) fn fp_sweep_eval(op: u32, x: u32, y: u32, z: u32) -> u32 {
    let (a, b, c) = (f32::from_bits(x), f32::from_bits(y), f32::from_bits(z));
    let (ha, hb, hc) = (f16::from_bits(x as u16), f16::from_bits(y as u16), f16::from_bits(z as u16));
    let (ba, bb, bc) = (bf16::from_bits(x as u16), bf16::from_bits(y as u16), bf16::from_bits(z as u16));
    match op {
        0 => fadd_rn(a, b).to_bits(),
        1 => fadd_rn_ftz(a, b).to_bits(),
        2 => fadd_rz(a, b).to_bits(),
        3 => fadd_rz_ftz(a, b).to_bits(),
        4 => fadd_ru(a, b).to_bits(),
        5 => fadd_ru_ftz(a, b).to_bits(),
        6 => fadd_rd(a, b).to_bits(),
        7 => fadd_rd_ftz(a, b).to_bits(),
        8 => fsub_rn(a, b).to_bits(),
        9 => fsub_rn_ftz(a, b).to_bits(),
        10 => fsub_rz(a, b).to_bits(),
        11 => fsub_rz_ftz(a, b).to_bits(),
        12 => fsub_ru(a, b).to_bits(),
        13 => fsub_ru_ftz(a, b).to_bits(),
        14 => fsub_rd(a, b).to_bits(),
        15 => fsub_rd_ftz(a, b).to_bits(),
        16 => fmul_rn(a, b).to_bits(),
        17 => fmul_rn_ftz(a, b).to_bits(),
        18 => fmul_rz(a, b).to_bits(),
        19 => fmul_rz_ftz(a, b).to_bits(),
        20 => fmul_ru(a, b).to_bits(),
        21 => fmul_ru_ftz(a, b).to_bits(),
        22 => fmul_rd(a, b).to_bits(),
        23 => fmul_rd_ftz(a, b).to_bits(),
        24 => fdiv_rn(a, b).to_bits(),
        25 => fdiv_rn_ftz(a, b).to_bits(),
        26 => fdiv_rz(a, b).to_bits(),
        27 => fdiv_rz_ftz(a, b).to_bits(),
        28 => fdiv_ru(a, b).to_bits(),
        29 => fdiv_ru_ftz(a, b).to_bits(),
        30 => fdiv_rd(a, b).to_bits(),
        31 => fdiv_rd_ftz(a, b).to_bits(),
        32 => fmaf_rn(a, b, c).to_bits(),
        33 => fmaf_rn_ftz(a, b, c).to_bits(),
        34 => fmaf_rz(a, b, c).to_bits(),
        35 => fmaf_rz_ftz(a, b, c).to_bits(),
        36 => fmaf_ru(a, b, c).to_bits(),
        37 => fmaf_ru_ftz(a, b, c).to_bits(),
        38 => fmaf_rd(a, b, c).to_bits(),
        39 => fmaf_rd_ftz(a, b, c).to_bits(),
        40 => frcp_rn(a).to_bits(),
        41 => frcp_rn_ftz(a).to_bits(),
        42 => frcp_rz(a).to_bits(),
        43 => frcp_rz_ftz(a).to_bits(),
        44 => frcp_ru(a).to_bits(),
        45 => frcp_ru_ftz(a).to_bits(),
        46 => frcp_rd(a).to_bits(),
        47 => frcp_rd_ftz(a).to_bits(),
        48 => fsqrt_rn(a).to_bits(),
        49 => fsqrt_rn_ftz(a).to_bits(),
        50 => fsqrt_rz(a).to_bits(),
        51 => fsqrt_rz_ftz(a).to_bits(),
        52 => fsqrt_ru(a).to_bits(),
        53 => fsqrt_ru_ftz(a).to_bits(),
        54 => fsqrt_rd(a).to_bits(),
        55 => fsqrt_rd_ftz(a).to_bits(),
        56 => frsqrt_rn(a).to_bits(),
        57 => saturatef(a).to_bits(),
        58 => float2int_rn(a) as u32,
        59 => float2uint_rn(a),
        60 => int2float_rn(x as i32).to_bits(),
        61 => uint2float_rn(x).to_bits(),
        62 => float2half_rn(a).to_bits() as u32,
        63 => float2bfloat16_rn(a).to_bits() as u32,
        64 => float2int_rz(a) as u32,
        65 => float2uint_rz(a),
        66 => int2float_rz(x as i32).to_bits(),
        67 => uint2float_rz(x).to_bits(),
        68 => float2half_rz(a).to_bits() as u32,
        69 => float2bfloat16_rz(a).to_bits() as u32,
        70 => float2int_ru(a) as u32,
        71 => float2uint_ru(a),
        72 => int2float_ru(x as i32).to_bits(),
        73 => uint2float_ru(x).to_bits(),
        74 => float2half_ru(a).to_bits() as u32,
        75 => float2bfloat16_ru(a).to_bits() as u32,
        76 => float2int_rd(a) as u32,
        77 => float2uint_rd(a),
        78 => int2float_rd(x as i32).to_bits(),
        79 => uint2float_rd(x).to_bits(),
        80 => float2half_rd(a).to_bits() as u32,
        81 => float2bfloat16_rd(a).to_bits() as u32,
        82 => half2float(ha).to_bits(),
        83 => bfloat162float(ba).to_bits(),
        84 => hadd(ha, hb).to_bits() as u32,
        85 => hsub(ha, hb).to_bits() as u32,
        86 => hmul(ha, hb).to_bits() as u32,
        87 => hdiv(ha, hb).to_bits() as u32,
        88 => hmin(ha, hb).to_bits() as u32,
        89 => hmax(ha, hb).to_bits() as u32,
        90 => hmin_nan(ha, hb).to_bits() as u32,
        91 => hmax_nan(ha, hb).to_bits() as u32,
        92 => hfma(ha, hb, hc).to_bits() as u32,
        93 => hneg(ha).to_bits() as u32,
        94 => habs(ha).to_bits() as u32,
        95 => hisnan(ha) as u32,
        96 => heq(ha, hb) as u32,
        97 => hne(ha, hb) as u32,
        98 => hlt(ha, hb) as u32,
        99 => hle(ha, hb) as u32,
        100 => hgt(ha, hb) as u32,
        101 => hge(ha, hb) as u32,
        102 => hequ(ha, hb) as u32,
        103 => hneu(ha, hb) as u32,
        104 => hltu(ha, hb) as u32,
        105 => hleu(ha, hb) as u32,
        106 => hgtu(ha, hb) as u32,
        107 => hgeu(ha, hb) as u32,
        108 => hadd_bf16(ba, bb).to_bits() as u32,
        109 => hsub_bf16(ba, bb).to_bits() as u32,
        110 => hmul_bf16(ba, bb).to_bits() as u32,
        111 => hdiv_bf16(ba, bb).to_bits() as u32,
        112 => hmin_bf16(ba, bb).to_bits() as u32,
        113 => hmax_bf16(ba, bb).to_bits() as u32,
        114 => hmin_nan_bf16(ba, bb).to_bits() as u32,
        115 => hmax_nan_bf16(ba, bb).to_bits() as u32,
        116 => hfma_bf16(ba, bb, bc).to_bits() as u32,
        117 => hneg_bf16(ba).to_bits() as u32,
        118 => habs_bf16(ba).to_bits() as u32,
        119 => hisnan_bf16(ba) as u32,
        120 => heq_bf16(ba, bb) as u32,
        121 => hne_bf16(ba, bb) as u32,
        122 => hlt_bf16(ba, bb) as u32,
        123 => hle_bf16(ba, bb) as u32,
        124 => hgt_bf16(ba, bb) as u32,
        125 => hge_bf16(ba, bb) as u32,
        126 => hequ_bf16(ba, bb) as u32,
        127 => hneu_bf16(ba, bb) as u32,
        128 => hltu_bf16(ba, bb) as u32,
        129 => hleu_bf16(ba, bb) as u32,
        130 => hgtu_bf16(ba, bb) as u32,
        131 => hgeu_bf16(ba, bb) as u32,
        132 => expf_fast(a).to_bits(),
        133 => exp10f_fast(a).to_bits(),
        134 => logf_fast(a).to_bits(),
        135 => log2f_fast(a).to_bits(),
        136 => log10f_fast(a).to_bits(),
        137 => sinf_fast(a).to_bits(),
        138 => cosf_fast(a).to_bits(),
        139 => tanf_fast(a).to_bits(),
        140 => powf_fast(a, b).to_bits(),
        141 => fdividef(a, b).to_bits(),
        142 => fdividef(a, b).to_bits(),
        143 => __oracle::rcp_approx_ftz(a).to_bits(),
        144 => __oracle::rcp_approx_ftz(a).to_bits(),
        145 => __oracle::rcp_approx(a).to_bits(),
        146 => __oracle::rcp_approx(a).to_bits(),
        147 => __oracle::div_approx_ftz(a, b).to_bits(),
        _ => 0xdead_beef,
    }
}

/// One thread per (op, input): op `block_idx().y`, input `block_idx().x * block_dim().x +
/// thread_idx().x`; operand and result arrays are op-major, `n` per op.
#[kernel]
pub(crate) fn fp_sweep(n: u32, a: &[u32], b: &[u32], c: &[u32], out: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let op = block_idx().y;
    if i < n as usize {
        let k = op as usize * n as usize + i;
        out[k] = fp_sweep_eval(op, a[k], b[k], c[k]);
    }
}

/// splitmix64 step.
fn fp_sweep_rng(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const FP_SWEEP_SPECIALS_F32: &[u32] = &[
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
    0x8000_0001,
    0x007f_ffff,
    0x0080_0000,
    0x8080_0000,
    0x0080_0001,
    0x3f80_0000,
    0xbf80_0000,
    0x3f80_0001,
    0x3f7f_ffff,
    0x3f00_0000,
    0x4000_0000,
    0x4040_0000,
    0x3eaa_aaab,
    0x3380_0000,
    0x33c0_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x7e80_0000,
    0x7e80_0001,
    0x7f00_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0x7fc0_1234,
    0x7f80_0001,
    0xffc0_0000,
    0x4b80_0000,
    0x4b7f_ffff,
    0xc049_0fdb,
    0x4eff_ffff,
    0x4f00_0000,
    0x3eff_ffff,
    0x4020_0000,
];
const FP_SWEEP_SPECIALS_16: &[u16] = &[
    0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x8400, 0x3c00, 0xbc00, 0x3c01, 0x3bff, 0x3800, 0x4000, 0x7bff,
    0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe00, 0x007f, 0x0080, 0x3f80, 0xbf80, 0x3f81, 0x7f7f, 0x7f80, 0xff80,
    0x7fc0, 0x7f81, 0xffc0, 0x4b80,
];

/// An f32 operand: special, random bits, near the subnormal or overflow boundary, or moderate.
fn fp_sweep_f32(s: &mut u64) -> u32 {
    let r = fp_sweep_rng(s);
    let sign = ((r >> 4) & 1) as u32;
    let mant = (r >> 8) as u32 & 0x7f_ffff;
    let sel = (r >> 40) as u32;
    match r & 7 {
        0 => FP_SWEEP_SPECIALS_F32[sel as usize % FP_SWEEP_SPECIALS_F32.len()],
        1 | 2 => (r >> 16) as u32,
        3 => (sign << 31) | ((sel % 4) << 23) | mant,
        4 => (sign << 31) | ((251 + sel % 4) << 23) | mant,
        5 => (sign << 31) | ((127 - 20 + sel % 40) << 23) | (mant & !((1 << (sel % 23)) - 1)),
        _ => (sign << 31) | ((64 + sel % 128) << 23) | mant,
    }
}

/// A second operand related to `a`: a few ulps away, a power of two times it, or independent.
fn fp_sweep_f32_second(s: &mut u64, a: u32) -> u32 {
    let r = fp_sweep_rng(s);
    match r & 3 {
        0 => a.wrapping_add(((r >> 8) & 15) as u32).wrapping_sub(8) ^ (((r >> 12) & 1) as u32) << 31,
        1 => {
            let e = ((a >> 23) & 0xff) as i32 + ((r >> 16) % 61) as i32 - 30;
            (a & 0x807f_ffff) | ((e.clamp(0, 254) as u32) << 23)
        }
        _ => fp_sweep_f32(s),
    }
}

/// An fma addend near `-a * b`, or independent.
fn fp_sweep_f32_third(s: &mut u64, a: u32, b: u32) -> u32 {
    let r = fp_sweep_rng(s);
    if r & 1 == 0 {
        let p = -(f32::from_bits(a) * f32::from_bits(b));
        if p.is_finite() {
            return p.to_bits().wrapping_add(((r >> 8) & 7) as u32).wrapping_sub(3);
        }
    }
    fp_sweep_f32(s)
}

fn fp_sweep_16(s: &mut u64) -> u32 {
    let r = fp_sweep_rng(s);
    if r & 3 == 0 {
        FP_SWEEP_SPECIALS_16[(r >> 8) as usize % FP_SWEEP_SPECIALS_16.len()] as u32
    } else {
        (r >> 16) as u32 & 0xffff
    }
}

/// The operands of op `op`: three arrays of `n`.
#[allow(clippy::needless_range_loop)] // `i` is an input too (the exhaustive 16-bit sweeps)
fn fp_sweep_inputs(op: usize, n: usize) -> [Vec<u32>; 3] {
    let (_, kind, arity, _) = FP_SWEEP_OPS[op];
    let mut s = 0x5eed_0000_0000_0000 ^ (op as u64).wrapping_mul(0x1000_0000_01b3);
    let mut v = [vec![0u32; n], vec![0u32; n], vec![0u32; n]];
    for i in 0..n {
        let (x, y, z) = match kind {
            b'i' => {
                let r = fp_sweep_rng(&mut s);
                let x = match r & 3 {
                    0 => FP_SWEEP_SPECIALS_F32[(r >> 8) as usize % FP_SWEEP_SPECIALS_F32.len()] >> ((r >> 20) % 8),
                    1 => ((r >> 16) as u32) >> ((r >> 8) % 32),
                    2 => (((r >> 16) as i32) >> ((r >> 8) % 32)) as u32,
                    _ => (r >> 16) as u32,
                };
                (x, 0, 0)
            }
            b'h' | b'b' if arity == 1 && n >= 65536 => (i as u32 & 0xffff, 0, 0),
            b'h' | b'b' => (fp_sweep_16(&mut s), fp_sweep_16(&mut s), fp_sweep_16(&mut s)),
            _ => {
                let x = fp_sweep_f32(&mut s);
                let y = fp_sweep_f32_second(&mut s, x);
                let z = fp_sweep_f32_third(&mut s, x, y);
                if kind == b's' {
                    // Shorten the divisor's significand to 10 fraction bits.
                    if arity == 1 {
                        (x & !0x1fff, 0, 0)
                    } else {
                        (x, y & !0x1fff, 0)
                    }
                } else {
                    (x, y, z)
                }
            }
        };
        v[0][i] = x;
        v[1][i] = y;
        v[2][i] = z;
    }
    v
}

/// Distance in ulps between two f32 patterns (NaN equals NaN; NaN against a number is
/// `u64::MAX`).
fn fp_sweep_ulps(x: u32, y: u32) -> u64 {
    let (fx, fy) = (f32::from_bits(x), f32::from_bits(y));
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

/// Runs every op of [`FP_SWEEP_OPS`] over `n` inputs (a multiple of 256) on the GPU and in the
/// emulator and prints one line per op. Returns the number of differing results of bit-exact
/// ops (the target is 0).
pub(crate) fn fp_sweep_run_all(n: usize) -> Result<usize, deviceemu::Error> {
    assert!(n % 256 == 0 && n > 0);
    let nops = FP_SWEEP_OPS.len();
    let mut a = Vec::with_capacity(nops * n);
    let mut b = Vec::with_capacity(nops * n);
    let mut c = Vec::with_capacity(nops * n);
    for op in 0..nops {
        let [x, y, z] = fp_sweep_inputs(op, n);
        a.extend(x);
        b.extend(y);
        c.extend(z);
    }
    let run = |target: deviceemu::Target| -> Result<Vec<u32>, deviceemu::Error> {
        deviceemu::with_config(deviceemu::Config::default().target(target), || {
            let ab = DeviceBuffer::from_slice(&a)?;
            let bb = DeviceBuffer::from_slice(&b)?;
            let cb = DeviceBuffer::from_slice(&c)?;
            let mut ob = DeviceBuffer::<u32>::zeroed(nops * n)?;
            launch!(fp_sweep<<<((n / 256) as u32, nops as u32), 256>>>(n as u32, &ab, &bb, &cb, &mut ob))?;
            ob.to_vec()
        })
    };
    let gpu = run(deviceemu::Target::Gpu)?;
    let emu = run(deviceemu::Target::Emulator)?;
    let mut total = 0;
    for (op, &(name, _, _, exact)) in FP_SWEEP_OPS.iter().enumerate() {
        let lo = op * n;
        let diffs: Vec<usize> = (lo..lo + n).filter(|&k| gpu[k] != emu[k]).collect();
        if exact {
            total += diffs.len();
            println!("fp_sweep {name:<24} {n:>8} inputs {:>6} differences", diffs.len());
            for &k in diffs.iter().take(4) {
                println!(
                    "    inputs {:#010x} {:#010x} {:#010x}: gpu {:#010x} emulator {:#010x}",
                    a[k], b[k], c[k], gpu[k], emu[k]
                );
            }
        } else {
            let worst = (lo..lo + n).max_by_key(|&k| fp_sweep_ulps(gpu[k], emu[k])).unwrap_or(lo);
            let max = fp_sweep_ulps(gpu[worst], emu[worst]);
            println!(
                "fp_sweep {name:<24} {n:>8} inputs, approximate: {} identical, max {} ulp (inputs {:#010x} {:#010x}: gpu {:#010x} emulator {:#010x})",
                n - diffs.len(),
                if max == u64::MAX { "NaN-vs-number".to_string() } else { max.to_string() },
                a[worst], b[worst], gpu[worst], emu[worst]
            );
        }
    }
    println!("fp_sweep: {total} differences in bit-exact ops");
    Ok(total)
}
