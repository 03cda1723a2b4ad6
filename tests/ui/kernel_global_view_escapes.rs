use std::cell::Cell;

use deviceemu::prelude::*;

thread_local! {
    static KEPT: Cell<Option<GlobalMut<'static, f32>>> = const { Cell::new(None) };
}

#[kernel]
fn keep(y: &mut [f32]) {
    KEPT.with(|k| k.set(Some(y)));
}

fn main() {}
