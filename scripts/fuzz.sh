#!/usr/bin/env bash
# Coverage-guided fuzzing on the stable toolchain: AFL++ through afl.rs (`cargo afl`).
#   bash scripts/fuzz.sh TARGET SECONDS     # TARGET: mjcf urdf mesh hfield states scene2d pairs
#   bash scripts/fuzz.sh all SECONDS        # every target, SECONDS each
# Installs cargo-afl if missing, builds fuzz/ (its own workspace) into target/fuzz, seeds each
# target from files of the repository, runs `cargo afl fuzz -V SECONDS` and prints the
# executions, crashes and hangs. Findings are in target/fuzz/out/TARGET/default/{crashes,hangs};
# reproduce one with `target/fuzz/release/replay TARGET FILE`. Exits non-zero on a crash or hang.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
targets=(mjcf urdf mesh hfield states scene2d pairs)
[ $# -eq 2 ] || { echo "usage: $0 TARGET|all SECONDS  (targets: ${targets[*]})" >&2; exit 2; }
want="$1"; secs="$2"
export CARGO_TARGET_DIR="$root/target/fuzz"
command -v cargo-afl >/dev/null || cargo install cargo-afl --locked
cargo afl config --build >/dev/null 2>&1 || true   # builds AFL++ once (errors if already built)
(cd "$root/fuzz" && cargo afl build --release)

seed() {  # seed directory of target $1
  local t="$1" d="$CARGO_TARGET_DIR/seeds/$1" c="$root/conformance/corpus" a="$root/conformance/corpus/scenes/assets"
  rm -rf "$d"; mkdir -p "$d"
  case "$t" in
    mjcf) for f in "$c"/scenes/{box_stack,include_attach,mesh_pile,hfield_png,builtin_meshes,builtin_lattice,sleep_settle,joints_mocap,sdf_torus_rod,sdf_gears,sdf_nut_bolt}.xml; do
            cp "$f" "$d/$(basename "$f")"; done
          { cat "$c/scenes/include_attach.xml"; printf '\0'; cat "$c/scenes/parts/arena.xml"; } > "$d/with_include"
          # a mesh-backed sdf geom (octree) on an inline tetrahedron, with a sphere and a mesh
          printf '%s' '<mujoco><asset><mesh name="t" vertex="0 0 0 .1 0 0 0 .1 0 0 0 .1"/></asset><worldbody><body><freejoint/><geom type="sdf" mesh="t"/></body><body pos=".05 0 0"><freejoint/><geom size=".03"/></body><body pos="0 .05 .02"><freejoint/><geom type="mesh" mesh="t"/></body></worldbody></mujoco>' > "$d/mesh_sdf.xml" ;;
    urdf) cp "$c"/scenes/*.urdf "$d/"; find "$c/urdf" -name '*.urdf' | head -5 | while read -r f; do cp "$f" "$d/"; done ;;
    mesh) i=0; for f in "$a"/*.stl "$a"/*.obj "$a"/*.msh; do
            case "$f" in *.stl) k='\x00';; *.obj) k='\x01';; *) k='\x02';; esac
            { printf "$k"; cat "$f"; } > "$d/seed$i"; i=$((i+1)); done ;;
    hfield) i=0; for f in "$a"/*.png; do { printf '\x00'; cat "$f"; } > "$d/png$i"; i=$((i+1)); done
            for f in "$a"/*.bin; do { printf '\x01'; cat "$f"; } > "$d/bin$i"; i=$((i+1)); done ;;
    states) for f in "$root"/conformance/states/scenes__{joints_mocap,sleep_settle,box_stack}.json; do cp "$f" "$d/"; done ;;
    scene2d) cp "$root/crates/collide2d/assets/demo_pool.json" "$d/" ;;
    pairs) for i in 1 2 3 4; do head -c 128 /dev/urandom > "$d/rand$i"; done ;;
  esac
}

status=0
for t in "${targets[@]}"; do
  [ "$want" = all ] || [ "$want" = "$t" ] || continue
  seed "$t"
  out="$CARGO_TARGET_DIR/out/$t"; rm -rf "$out"; mkdir -p "$CARGO_TARGET_DIR/out"
  AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_QUIET=1 \
    cargo afl fuzz -i "$CARGO_TARGET_DIR/seeds/$t" -o "$out" -V "$secs" -t 2000 \
    "$CARGO_TARGET_DIR/release/$t" >"$out.log" 2>&1 || true
  stats="$out/default/fuzzer_stats"
  if [ ! -f "$stats" ]; then echo "$t: AFL did not start (see $out.log)"; tail -5 "$out.log"; status=1; continue; fi
  get() { awk -F: -v k="$1" '$1 ~ "^"k" *$" {gsub(/ /,"",$2); print $2}' "$stats"; }
  echo "$t: $(get execs_done) executions in ${secs} s, $(get corpus_count) corpus entries, $(get saved_crashes) crashes, $(get saved_hangs) hangs"
  if [ "$(get saved_crashes)" != 0 ] || [ "$(get saved_hangs)" != 0 ]; then status=1; fi
done
exit $status
