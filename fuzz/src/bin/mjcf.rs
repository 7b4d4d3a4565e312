//! AFL++ entry point of the `mjcf` fuzz target (see `collide_fuzz::mjcf`).
fn main() {
    afl::fuzz!(|data: &[u8]| collide_fuzz::mjcf(data));
}
