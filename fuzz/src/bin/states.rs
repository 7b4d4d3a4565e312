//! AFL++ entry point of the `states` fuzz target (see `collide_fuzz::states`).
fn main() {
    afl::fuzz!(|data: &[u8]| collide_fuzz::states(data));
}
