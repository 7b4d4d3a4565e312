//! AFL++ entry point of the `hfield` fuzz target (see `collide_fuzz::hfield`).
fn main() {
    afl::fuzz!(|data: &[u8]| collide_fuzz::hfield(data));
}
