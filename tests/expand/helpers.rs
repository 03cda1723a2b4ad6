// `#[device]` helpers: accesses become checked loads and stores; one that calls a barrier is
// `#[track_caller]`; one without view accesses does not ask whether accesses are checked.
use deviceemu::prelude::*;

#[device]
fn dot3(a: Global<f32>, b: Global<f32>, i: usize) -> f32 {
    a[i] * b[i] + a[i + 1] * b[i + 1] + a[i + 2] * b[i + 2]
}

#[device]
fn store_then_sync(t: Shared<u32>, (out, i): (GlobalMut<u32>, usize)) {
    t[i] = 1;
    sync_threads();
    out[i] += t[(i + 1) % t.len()];
}

#[device]
const fn twice(x: u32) -> u32 {
    2 * x
}

// Slices, as a kernel takes them: the helper takes the kernel's views.
#[device]
fn axpy_at(a: f32, x: &[f32], y: &mut [f32], i: usize) {
    y[i] += a * x[i];
}

// CUDA's `__noinline__`: the helper keeps its own `inline` attribute, and is not made
// `inline(always)` in release builds.
#[device]
#[inline(never)]
fn kept_apart(x: u32) -> u32 {
    x + 1
}
