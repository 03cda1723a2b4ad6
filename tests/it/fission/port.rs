//! Kernels shaped like CUDA code being ported (issue 30): each compiles, runs on both host
//! paths (CI runs this file again with `EMU_PATH=general`) and, with the `gpu` feature, is
//! compiled to PTX and checked by ptxas (`tests/ptx.rs`).

use deviceemu::prelude::*;

/// CUDA's `scale<<<g, b>>>(d_data, n)` called once per time step.
#[kernel]
fn scale_step(data: &mut [f32], n: u32) {
    let i = block_idx().x * block_dim().x + thread_idx().x;
    if i < n {
        data[i] = data[i] * 2.0 + 1.0;
    }
}

/// A port's unused parameters keep their CUDA names with a leading underscore, and draw no
/// warning about a generated name (the launcher's buffer descriptions are `__emu_meta_p_x`;
/// issue 30, item 9).
#[kernel]
fn unused_params(_x: &[f32], _flags: u32, out: &mut [f32], _scratch: &mut [f32]) {
    let i = thread_idx().x;
    out[i] = i as f32;
}

/// Runs `steps` time steps on a buffer the caller lends: `d_data` is a `&mut DeviceBuffer`
/// passed by name to each launch, as CUDA passes the pointer.
fn run_steps(d_data: &mut DeviceBuffer<f32>, n: u32, steps: u32) {
    for _ in 0..steps {
        launch!(scale_step<<<n.div_ceil(64), 64>>>(d_data, n)).unwrap();
    }
}

#[test]
fn a_mut_buffer_variable_is_passed_by_name_in_a_loop() {
    let mut buf = DeviceBuffer::from_slice(&[0.0f32; 100]).unwrap();
    run_steps(&mut buf, 100, 3);
    // 0 -> 1 -> 3 -> 7
    assert!(buf.to_vec().unwrap().iter().all(|&v| v == 7.0));
    // A mutable binding, and a slice, in a loop too.
    let mut d_data = &mut buf;
    for _ in 0..2 {
        launch!(scale_step<<<2, 64>>>(d_data, 100)).unwrap();
    }
    d_data = &mut buf;
    launch!(scale_step<<<2, 64>>>(d_data, 100)).unwrap();
    assert!(buf.to_vec().unwrap().iter().all(|&v| v == 63.0));
    let part = buf.slice_mut(0..10);
    launch!(scale_step<<<1, 64>>>(part, 10)).unwrap();
    assert_eq!(buf.to_vec().unwrap()[9..11], [127.0, 63.0]);
}

#[test]
fn parameters_with_a_leading_underscore() {
    let x = DeviceBuffer::from_slice(&[1.0f32; 4]).unwrap();
    let mut out = DeviceBuffer::<f32>::zeroed(4).unwrap();
    let mut scratch = DeviceBuffer::<f32>::zeroed(1).unwrap();
    launch!(unused_params<<<1, 4>>>(&x, 0, &mut out, &mut scratch)).unwrap();
    assert_eq!(out.to_vec().unwrap(), [0.0, 1.0, 2.0, 3.0]);
}

/// A port's double-precision math (CUDA's `exp`, `log`, `pow`, `sin`, ... on `double`), one
/// function per column, through `deviceemu::math`.
#[kernel]
fn f64_math(x: &[f64], y: &[f64], out: &mut [f64]) {
    use deviceemu::math::*;
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < x.len() {
        let (a, b) = (x[i], y[i]);
        let (s, c) = sincos(a);
        let r = [
            exp(a),
            exp2(a),
            exp10(a),
            expm1(a),
            log(a),
            log2(a),
            log10(a),
            log1p(a),
            sqrt(a),
            rsqrt(a),
            cbrt(a),
            pow(a, b),
            sin(a),
            cos(a),
            tan(a),
            s,
            c,
            asin(a),
            acos(a),
            atan(a),
            atan2(a, b),
            sinh(a),
            cosh(a),
            tanh(a),
            asinh(a),
            acosh(a),
            atanh(a),
            hypot(a, b),
            fma(a, b, a),
            fmin(a, b),
            fmax(a, b),
            floor(a),
            ceil(a),
            trunc(a),
            round(a),
            fabs(a),
            fmod(a, b),
            remainder(a, b),
            copysign(a, b),
            erf(a),
            erfc(a),
            lgamma(a),
            tgamma(a),
        ];
        let mut k = 0;
        while k < F64_FUNCTIONS {
            out[i * F64_FUNCTIONS + k] = r[k];
            k += 1;
        }
    }
}

/// Columns of `f64_math`.
const F64_FUNCTIONS: usize = 43;

#[test]
fn double_precision_math_runs_in_kernels() {
    use deviceemu::math::*;
    let xs: Vec<f64> = (0..256).map(|i| (i as f64 - 128.0) * 0.173 + 1e-3).collect();
    let ys: Vec<f64> = (0..256).map(|i| (i as f64 % 17.0) - 8.5).collect();
    let x = DeviceBuffer::from_slice(&xs).unwrap();
    let y = DeviceBuffer::from_slice(&ys).unwrap();
    let mut out = DeviceBuffer::<f64>::zeroed(xs.len() * F64_FUNCTIONS).unwrap();
    launch!(f64_math<<<4, 64>>>(&x, &y, &mut out)).unwrap();
    let got = out.to_vec().unwrap();
    for (i, (&a, &b)) in xs.iter().zip(&ys).enumerate() {
        let row = &got[i * F64_FUNCTIONS..(i + 1) * F64_FUNCTIONS];
        assert_eq!(row[0].to_bits(), exp(a).to_bits());
        assert_eq!(row[11].to_bits(), pow(a, b).to_bits());
        assert_eq!(row[12].to_bits(), sin(a).to_bits());
        assert_eq!(row[15].to_bits(), sin(a).to_bits());
        assert_eq!(row[37].to_bits(), remainder(a, b).to_bits());
        assert_eq!(row[42].to_bits(), tgamma(a).to_bits());
        // Close to the host's own functions where those are defined.
        if a > 0.0 {
            assert!((row[4] - a.ln()).abs() <= 1e-15 * a.ln().abs().max(1.0), "log({a})");
        } else {
            assert_eq!(row[4].to_bits(), 0x7fff_ffff_ffff_ffff, "log({a}) is the canonical NaN");
        }
        assert!((row[12] - a.sin()).abs() <= 1e-15, "sin({a})");
        assert_eq!(row[28], a.mul_add(b, a));
    }
}

/// CUDA's per-thread scratch: `int* s = (int*)malloc(k * sizeof(int)); ... free(s);`, and a
/// block-wide buffer that thread 0 allocates and shares through shared memory.
#[kernel]
fn heap_scratch(k: u32, out: &mut [u32], failed: &mut [u32]) {
    let t = thread_idx().x;
    let i = block_idx().x * block_dim().x + t;
    let shared = shared_array![DevicePtr<u32>; 1];
    if t == 0 {
        match device_malloc::<u32>(block_dim().x as usize) {
            Some(p) => shared[0] = p,
            None => shared[0] = DevicePtr::null(),
        }
    }
    sync_threads();
    let Some(p) = device_malloc::<u32>(k as usize) else {
        failed[i] = 1;
        return;
    };
    let s: GlobalMut<u32> = p.view();
    let mut j = 0;
    while j < k {
        s[j] = i * j;
        j += 1;
    }
    let mut sum = 0u32;
    j = 0;
    while j < k {
        sum = sum.wrapping_add(s[j]);
        j += 1;
    }
    device_free(p);
    let block_buf = shared[0];
    if !block_buf.is_null() {
        block_buf.store(t as usize, sum);
    }
    sync_threads();
    if !block_buf.is_null() {
        out[i] = block_buf.load((block_dim().x - 1 - t) as usize);
    }
    sync_threads();
    if t == 0 && !block_buf.is_null() {
        device_free(block_buf);
    }
}

/// Writes one element past its allocation.
#[kernel]
fn heap_overflow(out: &mut [u32]) {
    if let Some(p) = device_malloc::<u32>(4) {
        let v: GlobalMut<u32> = p.view();
        v[4] = 1; // @HEAP_OOB
        out[0] = v[0];
        device_free(p);
    }
}

/// Reads a block after freeing it.
#[kernel]
fn heap_use_after_free(out: &mut [u32]) {
    if let Some(p) = device_malloc::<u32>(4) {
        device_free(p); // @HEAP_FREE
        out[0] = p.load(0); // @HEAP_UAF
    }
}

/// Allocates and never frees (`keep` receives the pointers).
#[kernel]
fn heap_leak(keep: &mut [DevicePtr<f64>]) {
    let i = thread_idx().x as usize;
    if let Some(p) = device_malloc::<f64>(3) {
        keep[i] = p;
    }
}

fn line_of(marker: &str) -> usize {
    include_str!("port.rs").lines().position(|l| l.contains(marker) && !l.contains("line_of")).unwrap() + 1
}

#[test]
fn device_malloc_and_free_in_a_kernel() {
    let (n, b, k) = (4u32, 64u32, 8u32);
    let mut out = DeviceBuffer::<u32>::zeroed((n * b) as usize).unwrap();
    let mut failed = DeviceBuffer::<u32>::zeroed((n * b) as usize).unwrap();
    launch!(heap_scratch<<<n, b>>>(k, &mut out, &mut failed)).unwrap();
    assert!(failed.to_vec().unwrap().iter().all(|&f| f == 0));
    let got = out.to_vec().unwrap();
    let sum = |i: u32| (0..k).map(|j| i * j).fold(0u32, u32::wrapping_add);
    for blk in 0..n {
        for t in 0..b {
            assert_eq!(got[(blk * b + t) as usize], sum(blk * b + (b - 1 - t)), "block {blk} thread {t}");
        }
    }
}

#[test]
fn device_heap_out_of_bounds_use_after_free_and_leaks_are_reported() {
    let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
    let err = deviceemu::quietly(|| launch!(heap_overflow<<<1, 1>>>(&mut out))).unwrap_err();
    assert_eq!(err.code(), 700, "{err}");
    let text = err.to_string();
    assert!(text.contains("Invalid __global__ write of size 4 bytes"), "{text}");
    assert!(text.contains(&format!("tests/it/fission/port.rs:{}:", line_of("@HEAP_OOB"))), "{text}");
    assert!(text.contains("device_malloc at tests/it/fission/port.rs"), "the block is named by its allocation: {text}");

    let err = deviceemu::quietly(|| launch!(heap_use_after_free<<<1, 1>>>(&mut out))).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("use after free"), "{text}");
    assert!(text.contains(&format!("freed at tests/it/fission/port.rs:{}:", line_of("@HEAP_FREE"))), "{text}");
    assert!(text.contains(&format!("tests/it/fission/port.rs:{}:", line_of("@HEAP_UAF"))), "{text}");

    let mut keep = DeviceBuffer::<DevicePtr<f64>>::zeroed(2).unwrap();
    launch!(heap_leak<<<1, 2>>>(&mut keep)).unwrap();
    let kept = keep.to_vec().unwrap();
    let leaks = deviceemu::device_heap_leaks();
    for p in &kept {
        assert!(!p.is_null());
        let leak =
            leaks.iter().find(|l| format!("{:?}", p).contains(&format!("{:#x}", l.address))).expect("listed as a leak");
        assert_eq!(leak.bytes, 24);
        assert!(leak.to_string().contains("by thread ("), "{leak}");
    }
    // The heap's size is fixed once it is in use, as CUDA's.
    assert!(deviceemu::set_malloc_heap_size(1 << 20).is_err());
    assert_eq!(deviceemu::malloc_heap_size(), 8 << 20);
}

/// CUDA's `struct Particle { char alive; float x; double t; }` with its padding written as
/// fields, as `#[derive(DeviceCopy)]` asks (tests/ui/derive_device_copy_padding.rs is the
/// version it rejects).
#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(C)]
struct Particle {
    alive: u8,
    _pad0: [u8; 3],
    x: f32,
    t: f64,
}

/// Advances every live particle.
#[kernel]
fn advance(ps: &mut [Particle], dt: f64) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < ps.len() && ps[i].alive != 0 {
        let mut p = ps[i];
        p.t += dt;
        p.x += 1.0;
        ps[i] = p;
    }
}

#[test]
fn a_padded_struct_derives_device_copy_with_its_padding_as_fields() {
    let start: Vec<Particle> =
        (0..40).map(|i| Particle { alive: (i % 2) as u8, _pad0: [0; 3], x: i as f32, t: 0.5 }).collect();
    let mut ps = DeviceBuffer::from_slice(&start).unwrap();
    launch!(advance<<<2, 32>>>(&mut ps, 0.25)).unwrap();
    let got = ps.to_vec().unwrap();
    for (a, b) in start.iter().zip(&got) {
        let want = if a.alive != 0 { Particle { x: a.x + 1.0, t: 0.75, ..*a } } else { *a };
        assert_eq!(*b, want);
    }
}

/// CUDA's `const float* bias` that the host sets to `NULL` when the model has none: a
/// zero-length buffer stands for null, and `bias.is_empty()` is the kernel's `bias != NULL`
/// (the guide's "Porting from CUDA C++", docs/guide/porting.md, "Null pointers").
#[kernel]
fn add_optional_bias(x: &mut [f32], bias: &[f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < x.len() {
        let b = if bias.is_empty() { 0.0 } else { bias[i % bias.len()] };
        x[i] += b;
    }
}

#[test]
fn a_null_pointer_is_a_zero_length_buffer() {
    let mut x = DeviceBuffer::from_slice(&[1.0f32; 8]).unwrap();
    let no_bias = DeviceBuffer::<f32>::zeroed(0).unwrap();
    launch!(add_optional_bias<<<1, 32>>>(&mut x, &no_bias)).unwrap();
    assert_eq!(x.to_vec().unwrap(), [1.0; 8]);
    let bias = DeviceBuffer::from_slice(&[0.5f32, 1.5]).unwrap();
    launch!(add_optional_bias<<<1, 32>>>(&mut x, &bias)).unwrap();
    assert_eq!(x.to_vec().unwrap()[..2], [1.5, 2.5]);
}

/// CUDA's texture reference `texture<float, 1, cudaReadModeElementType> tex_ref;` read with
/// `tex1Dfetch(tex_ref, i)`, ported to a texture object parameter (docs/guide/porting.md,
/// "Texture references").
#[kernel]
fn gather_through_texture(tex_ref: Texture<f32>, idx: &[i32], out: &mut [f32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = tex_ref.fetch(idx[i]);
    }
}

#[test]
fn a_texture_reference_becomes_a_texture_object_parameter() {
    let table = DeviceBuffer::from_slice(&[10.0f32, 20.0, 30.0, 40.0]).unwrap();
    let tex = deviceemu::TextureObject::linear(&table, TextureDesc::new()).unwrap();
    let idx = DeviceBuffer::from_slice(&[3i32, 0, 2, 1]).unwrap();
    let mut out = DeviceBuffer::<f32>::zeroed(4).unwrap();
    launch!(gather_through_texture<<<1, 32>>>(tex.texture(), &idx, &mut out)).unwrap();
    assert_eq!(out.to_vec().unwrap(), [40.0, 10.0, 30.0, 20.0]);
}

/// A closure defined before a barrier and called after it, as CUDA C's lambdas are (issue 30,
/// item 10): a closure kept for each thread across a barrier sends the kernel to the general
/// path (each region's copy of it would be a closure of another type), and it runs right.
#[kernel]
fn closure_across_barrier(x: &[f32], out: &mut [f32]) {
    let t = shared_array![f32; 64];
    let tid = thread_idx().x as usize;
    let bias = tid as f32;
    let scale = |v: f32| v * 2.0 + bias;
    t[tid] = x[tid];
    sync_threads();
    out[tid] = scale(t[(tid + 1) % 64]);
}

/// The same with a closure whose captures are block-uniform (a scalar parameter, a view, a
/// block index): one closure for the whole block, which takes barrier regions.
#[kernel]
fn uniform_closure_across_barrier(x: &[f32], out: &mut [f32], k: f32) {
    let t = shared_array![f32; 64];
    let tid = thread_idx().x as usize;
    let base = block_idx().x as usize * 64;
    let scale = |v: f32| v * k + x[base];
    t[tid] = x[base + tid];
    sync_threads();
    out[base + tid] = scale(t[(tid + 1) % 64]);
}

#[test]
fn a_closure_of_uniform_values_takes_regions() {
    let x: Vec<f32> = (0..128).map(|i| i as f32 * 0.5).collect();
    let want: Vec<f32> = (0..128).map(|i| x[i / 64 * 64 + (i + 1) % 64] * 3.0 + x[i / 64 * 64]).collect();
    let xb = DeviceBuffer::from_slice(&x).unwrap();
    for path in [deviceemu::ExecPath::Auto, deviceemu::ExecPath::General] {
        let mut out = DeviceBuffer::<f32>::zeroed(128).unwrap();
        let config = deviceemu::Config::from_env().unwrap().path(path);
        deviceemu::with_config(config, || launch!(uniform_closure_across_barrier<<<2, 64>>>(&xb, &mut out, 3.0)))
            .unwrap();
        assert_eq!(out.to_vec().unwrap(), want, "{path:?}");
        let want_path = if path == deviceemu::ExecPath::Auto { "regions" } else { "general" };
        assert_eq!(deviceemu::__private::last_path(), want_path);
    }
}

#[test]
fn a_closure_defined_before_a_barrier_is_called_after_it() {
    let x: Vec<f32> = (0..64).map(|i| i as f32 * 0.5).collect();
    let want: Vec<f32> = (0..64).map(|i| x[(i + 1) % 64] * 2.0 + i as f32).collect();
    let xb = DeviceBuffer::from_slice(&x).unwrap();
    for path in [deviceemu::ExecPath::Auto, deviceemu::ExecPath::General] {
        let mut out = DeviceBuffer::<f32>::zeroed(64).unwrap();
        let config = deviceemu::Config::from_env().unwrap().path(path);
        deviceemu::with_config(config, || launch!(closure_across_barrier<<<1, 64>>>(&xb, &mut out))).unwrap();
        assert_eq!(out.to_vec().unwrap(), want, "{path:?}");
        // `bias` is the thread's own: the closure is per thread.
        assert_eq!(deviceemu::__private::last_path(), "general");
    }
}
