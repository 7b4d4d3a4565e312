//! AFL++ entry point of the `pairs` fuzz target (see `collide_fuzz::pairs`).
fn main() {
    afl::fuzz!(|data: &[u8]| collide_fuzz::pairs(data));
}
