use deviceemu::prelude::*;
#[doc(hidden)]
#[allow(unused_macros)]
macro_rules! __emu_waits_dot3 {
    () => {
        false
    };
}
#[allow(unused_imports)]
use __emu_waits_dot3;
#[allow(unused_mut, clippy::redundant_closure_call)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn dot3(a: Global<f32>, b: Global<f32>, i: usize) -> f32 {
    #[allow(non_snake_case, unused_variables)]
    let __EMU_CHECKED: bool = ::deviceemu::__private::helper_checking();
    (|| ::deviceemu::__private::load(__EMU_CHECKED, &a, i))()
        * (|| ::deviceemu::__private::load(__EMU_CHECKED, &b, i))()
        + (|| ::deviceemu::__private::load(__EMU_CHECKED, &a, i + 1))()
            * (|| ::deviceemu::__private::load(__EMU_CHECKED, &b, i + 1))()
        + (|| ::deviceemu::__private::load(__EMU_CHECKED, &a, i + 2))()
            * (|| ::deviceemu::__private::load(__EMU_CHECKED, &b, i + 2))()
}
#[doc(hidden)]
#[allow(unused_macros)]
macro_rules! __emu_waits_store_then_sync {
    () => {
        true
    };
}
#[allow(unused_imports)]
use __emu_waits_store_then_sync;
#[allow(unused_mut, clippy::redundant_closure_call)]
#[track_caller]
fn store_then_sync(t: Shared<u32>, (out, i): (GlobalMut<u32>, usize)) {
    #[allow(non_snake_case, unused_variables)]
    let __EMU_CHECKED: bool = ::deviceemu::__private::helper_checking();
    {
        let __emu_value = 1;
        (|| ::deviceemu::__private::store(__EMU_CHECKED, &t, i, __emu_value))()
    };
    sync_threads();
    {
        let __emu_value = (|| ::deviceemu::__private::load(
            __EMU_CHECKED,
            &t,
            (i + 1) % t.len(),
        ))();
        let __emu_view = (|| out)();
        let __emu_index = i;
        let mut __emu_old = (|| ::deviceemu::__private::load(
            __EMU_CHECKED,
            &__emu_view,
            __emu_index,
        ))();
        __emu_old += __emu_value;
        (|| ::deviceemu::__private::store(
            __EMU_CHECKED,
            &__emu_view,
            __emu_index,
            __emu_old,
        ))()
    };
}
#[doc(hidden)]
#[allow(unused_macros)]
macro_rules! __emu_waits_twice {
    () => {
        false
    };
}
#[allow(unused_imports)]
use __emu_waits_twice;
#[allow(unused_mut, clippy::redundant_closure_call)]
#[cfg_attr(not(debug_assertions), inline(always))]
const fn twice(x: u32) -> u32 {
    2 * x
}
#[doc(hidden)]
#[allow(unused_macros)]
macro_rules! __emu_waits_axpy_at {
    () => {
        false
    };
}
#[allow(unused_imports)]
use __emu_waits_axpy_at;
#[allow(unused_mut, clippy::redundant_closure_call)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn axpy_at(
    a: f32,
    x: ::deviceemu::__private::Global<'_, f32>,
    y: ::deviceemu::__private::GlobalMut<'_, f32>,
    i: usize,
) {
    #[allow(non_snake_case, unused_variables)]
    let __EMU_CHECKED: bool = ::deviceemu::__private::helper_checking();
    {
        let __emu_value = a * (|| ::deviceemu::__private::load(__EMU_CHECKED, &x, i))();
        let __emu_view = (|| y)();
        let __emu_index = i;
        let mut __emu_old = (|| ::deviceemu::__private::load(
            __EMU_CHECKED,
            &__emu_view,
            __emu_index,
        ))();
        __emu_old += __emu_value;
        (|| ::deviceemu::__private::store(
            __EMU_CHECKED,
            &__emu_view,
            __emu_index,
            __emu_old,
        ))()
    };
}
#[doc(hidden)]
#[allow(unused_macros)]
macro_rules! __emu_waits_kept_apart {
    () => {
        false
    };
}
#[allow(unused_imports)]
use __emu_waits_kept_apart;
#[inline(never)]
#[allow(unused_mut, clippy::redundant_closure_call)]
fn kept_apart(x: u32) -> u32 {
    x + 1
}
