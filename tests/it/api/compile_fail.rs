//! `#[kernel]` and `launch!` reject invalid code with an error at the user's offending tokens.
//!
//! The expected compiler output lives next to each case in `tests/ui/*.stderr`; regenerate it
//! with `TRYBUILD=overwrite cargo test --test it -- api::compile_fail` and review the diff.

#[test]
fn kernel_and_launch_misuse_is_rejected() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
