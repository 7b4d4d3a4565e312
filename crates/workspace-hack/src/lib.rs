//! No code: see `Cargo.toml`. The leaf crates built on their own (`collide-cli`, `collide-py`)
//! depend on it so that their builds reuse the crates compiled by `cargo test --workspace`.
