//! Compile errors are part of the product: each case in `tests/ui/fail` has a `.stderr` that was
//! read as a user would read it; each case in `tests/ui/pass` is surface that must keep compiling.
//!
//! Run with `cargo test --test ui`; after a deliberate change to a message, regenerate with
//! `TRYBUILD=overwrite cargo test --test ui` and review the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/fail/*.rs");
    t.pass("ui/pass/*.rs");
}
