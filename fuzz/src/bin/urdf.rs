//! AFL++ entry point of the `urdf` fuzz target (see `collide_fuzz::urdf`).
fn main() {
    afl::fuzz!(|data: &[u8]| collide_fuzz::urdf(data));
}
