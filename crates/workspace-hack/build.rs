//! Empty: the build script exists so that the `[build-dependencies]` (host features) are part
//! of every build.

fn main() {}
