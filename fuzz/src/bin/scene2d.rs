//! AFL++ entry point of the `scene2d` fuzz target (see `collide_fuzz::scene2d`).
fn main() {
    afl::fuzz!(|data: &[u8]| collide_fuzz::scene2d(data));
}
