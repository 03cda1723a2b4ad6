//! The sampler against hand-computed cases: every addressing mode, both filters, normalised
//! and unnormalised coordinates, 1-D and 2-D, and `tex1Dfetch`'s out-of-range reads.

use super::*;
use crate::device::texture::{AddressMode::*, FilterMode::*};

/// Texels `[10, 20, 30, 40]`.
const ROW: [f32; 4] = [10.0, 20.0, 30.0, 40.0];

fn one_d(data: &[f32]) -> Texels<'_> {
    Texels { data, channels: 1, width: data.len(), height: 1, pitch: data.len() }
}

fn desc(mode: AddressMode, filter: FilterMode, normalized: bool) -> TextureDesc {
    TextureDesc::new().address(mode).filter(filter).normalized(normalized).border([-1.0, -2.0, -3.0, -4.0])
}

fn s1(mode: AddressMode, filter: FilterMode, normalized: bool, x: f32) -> f32 {
    sample_1d(&one_d(&ROW), &desc(mode, filter, normalized), x)[0]
}

#[test]
fn point_unnormalised_reads_floor_and_clamps_or_borders() {
    for (x, want) in
        [(0.0, 10.0), (0.99, 10.0), (1.0, 20.0), (3.5, 40.0), (-0.01, 10.0), (4.0, 40.0), (1e9, 40.0), (-1e9, 10.0)]
    {
        assert_eq!(s1(Clamp, Point, false, x), want, "clamp x = {x}");
    }
    for (x, want) in [(0.0, 10.0), (2.7, 30.0), (-0.01, -1.0), (4.0, -1.0), (3.999, 40.0)] {
        assert_eq!(s1(Border, Point, false, x), want, "border x = {x}");
    }
    // Wrap and mirror need normalised coordinates; unnormalised they clamp.
    assert_eq!(s1(Wrap, Point, false, 5.5), 40.0);
    assert_eq!(s1(Mirror, Point, false, -2.0), 10.0);
}

#[test]
fn point_normalised_wraps_and_mirrors() {
    // x * 4: texel floor(4x).
    for (x, want) in
        [(0.0, 10.0), (0.3, 20.0), (0.99, 40.0), (1.0, 10.0), (1.3, 20.0), (-0.1, 40.0), (-0.3, 30.0), (2.6, 30.0)]
    {
        assert_eq!(s1(Wrap, Point, true, x), want, "wrap x = {x}");
    }
    // Period 2: [0, 1) forwards, [1, 2) backwards.
    for (x, want) in
        [(0.1, 10.0), (0.9, 40.0), (1.1, 40.0), (1.3, 30.0), (1.9, 10.0), (-0.1, 10.0), (-0.3, 20.0), (2.1, 10.0)]
    {
        assert_eq!(s1(Mirror, Point, true, x), want, "mirror x = {x}");
    }
    for (x, want) in [(-0.5, 10.0), (0.5, 30.0), (1.5, 40.0)] {
        assert_eq!(s1(Clamp, Point, true, x), want, "clamp x = {x}");
    }
    for (x, want) in [(-0.01, -1.0), (0.5, 30.0), (1.0, -1.0)] {
        assert_eq!(s1(Border, Point, true, x), want, "border x = {x}");
    }
}

#[test]
fn linear_blends_neighbours_with_eight_bit_weights() {
    // Texel centres are at i + 0.5: x = 1.5 is texel 1 exactly, x = 2.0 halfway to texel 2.
    assert_eq!(s1(Clamp, Linear, false, 1.5), 20.0);
    assert_eq!(s1(Clamp, Linear, false, 2.0), 25.0);
    assert_eq!(s1(Clamp, Linear, false, 1.75), 22.5);
    // The weight has 8 fractional bits, rounded with ties upwards: 1/1024 past a centre still
    // reads the centre, 1/512 (a tie) reads 1/256 of the next texel.
    assert_eq!(s1(Clamp, Linear, false, 1.5 + 1.0 / 1024.0), 20.0);
    assert_eq!(s1(Clamp, Linear, false, 1.5 + 1.0 / 512.0), 20.0 + 10.0 / 256.0);
    assert_eq!(s1(Clamp, Linear, false, 1.5 + 1.0 / 256.0), 20.0 + 10.0 / 256.0);
    assert_eq!(s1(Clamp, Linear, false, 1.5 - 1.0 / 1024.0), 20.0);
    // Edges: clamp repeats the edge texel.
    assert_eq!(s1(Clamp, Linear, false, 0.0), 10.0);
    assert_eq!(s1(Clamp, Linear, false, 4.0), 40.0);
    // Border: a 1-D texture is a 2-D one of height 1 sampled at y = 0, halfway to the border
    // row, so half of every linear sample is the border colour (measured on the H200).
    assert_eq!(s1(Border, Linear, false, 1.5), -0.5 + 0.5 * 20.0);
    assert_eq!(s1(Border, Linear, false, 0.0), -0.5 + 0.5 * (-0.5 + 0.5 * 10.0));
    assert_eq!(s1(Border, Linear, false, 4.0), -0.5 + 0.5 * (0.5 * 40.0 + -0.5));
    assert_eq!(s1(Border, Linear, false, -1.0), -1.0);
    // Point sampling reads row 0 itself: no border there.
    assert_eq!(s1(Border, Point, false, 0.5), 10.0);
}

#[test]
fn linear_normalised_wraps_and_mirrors_between_the_edges() {
    // x = 0 is the left edge of texel 0: halfway between texel 3 (wrapped) and texel 0.
    assert_eq!(s1(Wrap, Linear, true, 0.0), 25.0);
    assert_eq!(s1(Wrap, Linear, true, 1.0), 25.0);
    // Mirror: the texel before 0 is 0 itself.
    assert_eq!(s1(Mirror, Linear, true, 0.0), 10.0);
    assert_eq!(s1(Mirror, Linear, true, 1.0), 40.0);
    assert_eq!(s1(Clamp, Linear, true, 0.5), 25.0);
    // Half the border row, as above: 0.5 * -1 + 0.5 * (0.5 * -1 + 0.5 * 10).
    assert_eq!(s1(Border, Linear, true, 0.0), 1.75);
}

#[test]
fn two_d_bilinear_and_border_per_axis() {
    // 2 x 2 texels, pitch 4 (padding must not be read).
    let data = [1.0, 2.0, 99.0, 99.0, 3.0, 4.0, 99.0, 99.0];
    let t = Texels { data: &data, channels: 1, width: 2, height: 2, pitch: 4 };
    let d = desc(Clamp, Point, false);
    assert_eq!(sample_2d(&t, &d, 1.5, 0.2)[0], 2.0);
    assert_eq!(sample_2d(&t, &d, 0.5, 1.9)[0], 3.0);
    assert_eq!(sample_2d(&t, &d, 7.0, 7.0)[0], 4.0);
    let l = desc(Clamp, Linear, false);
    assert_eq!(sample_2d(&t, &l, 1.0, 1.0)[0], 2.5);
    // x = 1.25: texels 0 and 1, weight 0.75 for texel 1.
    assert_eq!(sample_2d(&t, &l, 1.25, 0.5)[0], 0.25 * 1.0 + 0.75 * 2.0);
    // Border in y only: below the texture reads the border colour, x still clamps.
    let b = TextureDesc::new().address_xy(Clamp, Border).border([8.0, 0.0, 0.0, 0.0]);
    assert_eq!(sample_2d(&t, &b, 9.0, -0.5)[0], 8.0);
    assert_eq!(sample_2d(&t, &b, 9.0, 0.5)[0], 2.0);
}

#[test]
fn channels_are_filtered_apart() {
    let data = [0.0, 100.0, 1.0, 200.0];
    let t = Texels { data: &data, channels: 2, width: 2, height: 1, pitch: 2 };
    let v = sample_1d(&t, &desc(Clamp, Linear, false), 1.0);
    assert_eq!(v, [0.5, 150.0, 0.0, 0.0]);
    let b = sample_1d(&t, &desc(Border, Point, false), 5.0);
    assert_eq!(b, [-1.0, -2.0, -3.0, -4.0]);
}

#[test]
fn normalised_coordinates_keep_21_fractional_bits_before_scaling() {
    // 1/13 in f32 is slightly above 1/13; times 13 exactly it is above 1, but the hardware
    // truncates it to 21 fractional bits first, which lands below 1: texel 0.
    let data: Vec<f32> = (0..13).map(|i| i as f32).collect();
    let t = one_d(&data);
    let d = desc(Clamp, Point, true);
    assert!((1.0f32 / 13.0) as f64 * 13.0 > 1.0);
    assert_eq!(sample_1d(&t, &d, 1.0 / 13.0)[0], 0.0);
    assert_eq!(sample_1d(&t, &d, 2.0 / 13.0)[0], 1.0);
    // Subnormal coordinates read as zero: -1e-45 is texel 0, not the border.
    assert_eq!(sample_1d(&t, &desc(Border, Point, false), -1e-45)[0], 0.0);
    assert_eq!(sample_1d(&t, &desc(Border, Point, false), -1e-30)[0], -1.0);
}

#[test]
fn weights_derive_from_the_rounded_product() {
    // alpha * beta rounds (ties up); the other three weights make the sum 256.
    assert_eq!(weights(218, 19), [256 - 218 - 19 + 16, 218 - 16, 19 - 16, 16]);
    assert_eq!(weights(1, 128), [128, 0, 127, 1]);
    assert_eq!(weights(0, 0), [256, 0, 0, 0]);
    for a in 0..256 {
        for b in 0..256 {
            let w = weights(a, b);
            assert_eq!(w.iter().sum::<i64>(), 256);
            assert!(w.iter().all(|&x| (0..=256).contains(&x)), "{a} {b} {w:?}");
        }
    }
}

/// `blend` with the texels of non-zero rounded weight live.
fn blend_w(v: [f32; 4], w: [i64; 4]) -> f32 {
    blend(v, w, w.map(|x| x != 0))
}

#[test]
fn the_blend_aligns_to_the_largest_texel_and_rounds_ties_away() {
    // Exact when nothing is lost: (3 * 10 + 1 * 20) / 4.
    assert_eq!(blend_w([10.0, 20.0, 0.0, 0.0], [192, 64, 0, 0]), 12.5);
    // A texel with weight 0 does not take part, however large.
    assert_eq!(blend_w([2.0e-6, 1.0e30, 0.0, 0.0], [256, 0, 0, 0]), 2.0e-6);
    // A tie at the last place rounds away from zero (measured: 0x3f15e645, not ...644).
    let v = blend_w([-0.840_463_9, 10.567_606, -0.840_463_9, 10.567_606], [112, 16, 112, 16]);
    assert_eq!(v.to_bits(), 0x3f15_e645);
    // A texel 2^30 times smaller than the largest is truncated to nothing.
    assert_eq!(blend_w([1.0, 2f32.powi(-30), 0.0, 0.0], [128, 128, 0, 0]), 0.5);
    // Subnormal texels read as zero, subnormal results flush, and zero is -0 when every texel
    // taking part is negative (all measured).
    assert_eq!(blend_w([1e-39, 1.0, 0.0, 0.0], [255, 1, 0, 0]), 1.0 / 256.0);
    assert_eq!(blend_w([2e-38, 0.0, 0.0, 0.0], [1, 255, 0, 0]).to_bits(), 0);
    assert_eq!(blend_w([-0.0, -1e-40, 0.0, 0.0], [128, 128, 0, 0]).to_bits(), 0x8000_0000);
    assert_eq!(blend_w([-0.0, 0.0, 0.0, 0.0], [128, 128, 0, 0]).to_bits(), 0);
    // Non-finite texels: an infinity wins, even with a rounded weight of 0 (measured), NaN or
    // infinities of both signs give NaN.
    assert!(blend_w([f32::NAN, 1.0, 0.0, 0.0], [128, 128, 0, 0]).is_nan());
    assert_eq!(blend_w([f32::INFINITY, 1.0, 0.0, 0.0], [128, 128, 0, 0]), f32::INFINITY);
    assert_eq!(
        blend([1.0, f32::NEG_INFINITY, 0.0, 0.0], [256, 0, 0, 0], [true, true, false, false]),
        f32::NEG_INFINITY
    );
    assert!(blend_w([f32::INFINITY, f32::NEG_INFINITY, 0.0, 0.0], [128, 128, 0, 0]).is_nan());
}

#[test]
fn fetch_reads_zero_outside_the_buffer() {
    let t = one_d(&ROW);
    assert_eq!(fetch_1d(&t, 0)[0], 10.0);
    assert_eq!(fetch_1d(&t, 3)[0], 40.0);
    for i in [-1, 4, i32::MIN, i32::MAX] {
        assert_eq!(fetch_1d(&t, i), [0.0; 4], "i = {i}");
    }
}

#[test]
fn nan_and_huge_coordinates_stay_in_range() {
    for mode in [Wrap, Clamp, Mirror, Border] {
        for filter in [Point, Linear] {
            for normalized in [false, true] {
                for x in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MAX, -f32::MAX, 1e30, -1e-30] {
                    let v = s1(mode, filter, normalized, x);
                    assert!(v.is_finite(), "{mode:?} {filter:?} {normalized} {x}: {v}");
                }
            }
        }
    }
}
