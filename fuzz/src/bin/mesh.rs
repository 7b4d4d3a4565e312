//! AFL++ entry point of the `mesh` fuzz target (see `collide_fuzz::mesh`).
fn main() {
    afl::fuzz!(|data: &[u8]| collide_fuzz::mesh(data));
}
