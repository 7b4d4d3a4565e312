//! Mesh compilation checked against MuJoCo 4.0.0 (values recorded with its Python bindings).
//!
//! The Python that produced every expected value (run in `tests/data/mesh/`, whose files it
//! loads; `gen_data.py`, at the end, wrote those files):
//!
//! ```python
//! # Oracle values for crates/collide-mjcf/tests/mesh_oracle.rs (MuJoCo 4.0.0 Python bindings).
//! import mujoco, numpy as np
//! def fmt(a): return " ".join(repr(float(x)) for x in np.ravel(a))
//! def compile_inline(v, f=None, attrs=""):
//!     fs = f' face="{" ".join(str(int(x)) for x in np.ravel(f))}"' if f is not None else ""
//!     xml = (f'<mujoco><asset><mesh name="m" vertex="{fmt(v)}"{fs} {attrs}/></asset>'
//!            '<worldbody><body><freejoint/><geom type="mesh" mesh="m"/></body>'
//!            '<body pos="5 0 0"><freejoint/><geom type="box" mesh="m"/></body></worldbody></mujoco>')
//!     return mujoco.MjModel.from_xml_string(xml)
//! def compile_file(name, attrs=""):
//!     xml = (f'<mujoco><compiler meshdir="."/><asset><mesh name="m" file="{name}" {attrs}/></asset>'
//!            '<worldbody><body><freejoint/><geom type="mesh" mesh="m"/></body>'
//!            '<body pos="5 0 0"><freejoint/><geom type="box" mesh="m"/></body></worldbody></mujoco>')
//!     return mujoco.MjModel.from_xml_string(xml, {name: open(name, "rb").read()})
//! def report(label, m):
//!     aabb = m.geom_aabb[0]
//!     print(f"// {label}")
//!     print(f"pos: [{', '.join(repr(float(x)) for x in m.mesh_pos[0])}],")
//!     print(f"quat: [{', '.join(repr(float(x)) for x in m.mesh_quat[0])}],")
//!     print(f"vert: &[{', '.join('[' + ', '.join(repr(float(x)) for x in v) + ']' for v in m.mesh_vert[:4])}],")
//!     print(f"nvert: {m.nmeshvert}, nface: {m.nmeshface},")
//!     print(f"volume: {float(m.body_mass[1]) / 1000!r},")
//!     print(f"aabb: [{', '.join(repr(float(x)) for x in aabb)}],")
//!     print(f"boxsz: [{', '.join(repr(float(x)) for x in m.geom_size[1])}],")
//! # 1-2: L-shaped prism (non-convex), legacy and exact
//! P = [(0, 0), (2, 0), (2, 1), (1, 1), (1, 3), (0, 3)]
//! n = len(P); L_v = np.array([(x, y, 0) for x, y in P] + [(x, y, 1) for x, y in P], float); L_f = []
//! for t in [(0, 1, 2), (0, 2, 3), (0, 3, 4), (0, 4, 5)]:
//!     L_f.append((t[0], t[2], t[1])); L_f.append((t[0] + n, t[1] + n, t[2] + n))
//! for i in range(n):
//!     j = (i + 1) % n; L_f += [(i, j, j + n), (i, j + n, i + n)]
//! report("L legacy", compile_inline(L_v, L_f))
//! report("L exact", compile_inline(L_v, L_f, 'inertia="exact"'))
//! # 3: unit cube with refpos/refquat and a negative-determinant scale
//! C_v = np.array([0,0,0, 1,0,0, 1,1,0, 0,1,0, 0,0,1, 1,0,1, 1,1,1, 0,1,1], float).reshape(-1, 3)
//! C_f = np.array([0,2,1, 0,3,2, 4,5,6, 4,6,7, 0,1,5, 0,5,4, 1,2,6, 1,6,5, 2,3,7, 2,7,6, 3,0,4, 3,4,7]).reshape(-1, 3)
//! report("cube mirrored", compile_inline(C_v, C_f, 'scale="-1 2 3" refpos="0.25 0.5 0.125" refquat="0.9 0.1 0.3 0.2"'))
//! # 4: point cloud without faces (convex hull)
//! rng = np.random.default_rng(5)
//! cloud = (rng.normal(size=(12, 3)) * [1, 2, 3]).astype(np.float32)
//! print("cloud:", fmt(cloud))
//! report("cloud", compile_inline(cloud))
//! # 5: irregular tetrahedron, exact
//! T_v = np.array([[0.125, -0.5, 0.25], [2, 0.25, -0.375], [0.5, 1.75, 0.625], [0.375, 0.5, 1.5]])
//! T_f = [[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]]
//! report("tet exact", compile_inline(T_v, T_f, 'inertia="exact"'))
//! # 6: non-convex star-shaped closed mesh, shell inertia
//! def uvsphere(nu=8, nv=6):
//!     v = [[0, 0, 1.]]; f = []
//!     for i in range(1, nv):
//!         th = np.pi * i / nv
//!         for j in range(nu):
//!             ph = 2 * np.pi * j / nu; v.append([np.sin(th) * np.cos(ph), np.sin(th) * np.sin(ph), np.cos(th)])
//!     v.append([0, 0, -1.]); S = len(v) - 1
//!     idx = lambda i, j: 1 + (i - 1) * nu + (j % nu)
//!     for j in range(nu): f.append([0, idx(1, j), idx(1, j + 1)])
//!     for i in range(1, nv - 1):
//!         for j in range(nu):
//!             a, b, c, d = idx(i, j), idx(i + 1, j), idx(i + 1, j + 1), idx(i, j + 1); f += [[a, b, c], [a, c, d]]
//!     for j in range(nu): f.append([S, idx(nv - 1, j + 1), idx(nv - 1, j)])
//!     return np.array(v), np.array(f)
//! S_v, S_f = uvsphere(6, 4)
//! S_v = (S_v * (1 + 0.4 * np.sin(np.arange(len(S_v)) * 1.7))[:, None] * [1, 1.5, 0.75]).astype(np.float32)
//! print("star:", fmt(S_v)); print("star faces:", " ".join(map(str, np.ravel(S_f))))
//! report("star shell", compile_inline(S_v, S_f, 'inertia="shell"'))
//! report("star legacy", compile_inline(S_v, S_f))
//! # 7-8: files in tests/data/mesh
//! report("quad_box.obj", compile_file("quad_box.obj", 'scale="0.5 1 2"'))
//! report("star.stl", compile_file("star.stl"))
//! report("star.msh", compile_file("star.msh", 'refquat="0 1 0 0"'))
//! ```
//!
//! ```python
//! # Writes the small test files in crates/collide-mjcf/tests/data/mesh/.
//! import numpy as np, struct, zlib
//! def uvsphere(nu=8, nv=6):
//!     v = [[0, 0, 1.]]; f = []
//!     for i in range(1, nv):
//!         th = np.pi * i / nv
//!         for j in range(nu):
//!             ph = 2 * np.pi * j / nu; v.append([np.sin(th) * np.cos(ph), np.sin(th) * np.sin(ph), np.cos(th)])
//!     v.append([0, 0, -1.]); S = len(v) - 1
//!     idx = lambda i, j: 1 + (i - 1) * nu + (j % nu)
//!     for j in range(nu): f.append([0, idx(1, j), idx(1, j + 1)])
//!     for i in range(1, nv - 1):
//!         for j in range(nu):
//!             a, b, c, d = idx(i, j), idx(i + 1, j), idx(i + 1, j + 1), idx(i, j + 1); f += [[a, b, c], [a, c, d]]
//!     for j in range(nu): f.append([S, idx(nv - 1, j + 1), idx(nv - 1, j)])
//!     return np.array(v), np.array(f)
//! S_v, S_f = uvsphere(6, 4)
//! S_v = (S_v * (1 + 0.4 * np.sin(np.arange(len(S_v)) * 1.7))[:, None] * [1, 1.5, 0.75]).astype(np.float32)
//! # binary STL
//! b = b"binary stl written for collide-mjcf tests".ljust(80, b" ") + struct.pack("<I", len(S_f))
//! for t in S_f:
//!     b += struct.pack("<3f", 0, 0, 0) + S_v[t].tobytes() + b"\0\0"
//! open("star.stl", "wb").write(b)
//! # MSH: nvertex, nnormal, ntexcoord, nface, then float vertices and int faces
//! open("star.msh", "wb").write(struct.pack("<4i", len(S_v), 0, 0, len(S_f)) + S_v.tobytes() + S_f.astype(np.int32).tobytes())
//! # ASCII STL of a unit cube
//! C_v = np.array([0,0,0, 1,0,0, 1,1,0, 0,1,0, 0,0,1, 1,0,1, 1,1,1, 0,1,1], float).reshape(-1, 3)
//! C_f = np.array([0,2,1, 0,3,2, 4,5,6, 4,6,7, 0,1,5, 0,5,4, 1,2,6, 1,6,5, 2,3,7, 2,7,6, 3,0,4, 3,4,7]).reshape(-1, 3)
//! s = "solid cube\n"
//! for t in C_f:
//!     s += "  facet normal 0 0 0\n    outer loop\n" + "".join(f"      vertex {a:g} {b:g} {c:g}\n" for a, b, c in C_v[t]) + "    endloop\n  endfacet\n"
//! open("cube_ascii.stl", "w").write(s + "endsolid cube\n")
//! # OBJ: a skewed box made of quads (diagonal choice matters), plus a second object that must be ignored
//! obj = """# skewed box with quad faces
//! o box
//! v 0 0 0
//! v 3 0 0
//! v 3.5 1 0
//! v 0.25 1.25 0
//! v 0 0 1
//! v 3 0 1
//! v 3.5 1 1
//! v 0.25 1.25 1
//! f 1 4 3 2
//! f 5/1 6/1 7/1 8/1
//! f 1//1 2//1 6//1 5//1
//! f 2 3 7 6
//! f -6 -5 -1 -2
//! f 4 1 5 8
//! o ignored
//! v 10 10 10
//! v 11 10 10
//! v 10 11 10
//! f 9 10 11
//! """
//! open("quad_box.obj", "w").write(obj)
//! # height fields: 8-bit grey PNG (3 cols x 2 rows), RGB PNG, 16-bit grey PNG, custom binary
//! def png(w, h, ctype, depth, rows):
//!     def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
//!     raw = b"".join(b"\0" + r for r in rows)
//!     return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0, 0))
//!             + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
//! open("hfield_grey.png", "wb").write(png(3, 2, 0, 8, [bytes([0, 10, 20]), bytes([30, 40, 255])]))
//! open("hfield_rgb.png", "wb").write(png(3, 2, 2, 8, [bytes([100,0,0, 0,100,0, 0,0,100]), bytes([50,60,70, 255,255,255, 0,0,0])]))
//! open("hfield_grey16.png", "wb").write(png(3, 2, 0, 16, [struct.pack(">3H", 0x1234, 0x80ff, 0xffff), struct.pack(">3H", 0x0001, 0x00ff, 0x0100)]))
//! open("hfield.bin", "wb").write(struct.pack("<2i", 2, 3) + np.array([0, 1, 2, 3, 4, 5], np.float32).tobytes())
//! ```
//!
//! Positions and quaternions agree to ~1e-15 (tolerance 1e-9); vertices agree bit for bit in
//! `f32` (tolerance 1e-9).

use collide_mjcf::mesh_compile::{compile_mesh, MeshInertia, MeshSettings};
use collide_mjcf::mesh_file::{decode_mesh, RawMesh};
use glam::{DQuat, DVec3};

struct Expect {
    pos: [f64; 3],
    quat: [f64; 4],
    vert: &'static [[f64; 3]],
    nvert: usize,
    nface: usize,
    volume: f64,
    aabb: [f64; 6],
    boxsz: [f64; 3],
}

fn check(label: &str, m: &collide::Mesh, e: &Expect) {
    let close = |a: f64, b: f64, tol: f64, what: &str| {
        assert!((a - b).abs() <= tol, "{label}: {what}: got {a}, MuJoCo {b}");
    };
    for k in 0..3 {
        close(m.pos[k], e.pos[k], 1e-9, "mesh_pos");
        close(m.boxsz[k], e.boxsz[k], 1e-9, "boxsz");
    }
    let q = [m.quat.w, m.quat.x, m.quat.y, m.quat.z];
    for (a, b) in q.iter().zip(e.quat) {
        close(*a, b, 1e-9, "mesh_quat");
    }
    assert_eq!(m.vert.len(), e.nvert, "{label}: vertex count");
    assert_eq!(m.face.len(), e.nface, "{label}: face count");
    for (i, v) in e.vert.iter().enumerate() {
        for (k, &c) in v.iter().enumerate() {
            close(m.vert[i][k], c, 1e-9, &format!("mesh_vert[{i}]"));
            assert_eq!(
                m.vert[i][k], m.vert[i][k] as f32 as f64,
                "{label}: vertex not f32"
            );
        }
    }
    close(m.volume, e.volume, 1e-12 * e.volume, "volume");
    // geom_aabb is (centre, half-size) of the mesh aamm
    for k in 0..3 {
        close(
            0.5 * (m.aamm[k] + m.aamm[k + 3]),
            e.aabb[k],
            1e-9,
            "aabb centre",
        );
        close(
            0.5 * (m.aamm[k + 3] - m.aamm[k]),
            e.aabb[k + 3],
            1e-9,
            "aabb half-size",
        );
    }
}

fn raw(v: &[[f64; 3]], f: &[[u32; 3]]) -> RawMesh {
    RawMesh {
        vert: v.iter().map(|p| DVec3::from_array(*p)).collect(),
        face: f.to_vec(),
    }
}

fn quat(w: f64, x: f64, y: f64, z: f64) -> DQuat {
    DQuat::from_xyzw(x, y, z, w)
}

fn l_prism() -> RawMesh {
    let p = [
        (0.0, 0.0),
        (2.0, 0.0),
        (2.0, 1.0),
        (1.0, 1.0),
        (1.0, 3.0),
        (0.0, 3.0),
    ];
    let n = p.len() as u32;
    let mut v: Vec<[f64; 3]> = p.iter().map(|&(x, y)| [x, y, 0.0]).collect();
    v.extend(p.iter().map(|&(x, y)| [x, y, 1.0]));
    let mut f = Vec::new();
    for t in [[0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 4, 5]] {
        f.push([t[0], t[2], t[1]]);
        f.push([t[0] + n, t[1] + n, t[2] + n]);
    }
    for i in 0..n {
        let j = (i + 1) % n;
        f.push([i, j, j + n]);
        f.push([i, j + n, i + n]);
    }
    raw(&v, &f)
}

const CUBE_V: [[f64; 3]; 8] = [
    [0.0, 0.0, 0.0],
    [1.0, 0.0, 0.0],
    [1.0, 1.0, 0.0],
    [0.0, 1.0, 0.0],
    [0.0, 0.0, 1.0],
    [1.0, 0.0, 1.0],
    [1.0, 1.0, 1.0],
    [0.0, 1.0, 1.0],
];
const CUBE_F: [[u32; 3]; 12] = [
    [0, 2, 1],
    [0, 3, 2],
    [4, 5, 6],
    [4, 6, 7],
    [0, 1, 5],
    [0, 5, 4],
    [1, 2, 6],
    [1, 6, 5],
    [2, 3, 7],
    [2, 7, 6],
    [3, 0, 4],
    [3, 4, 7],
];

const CLOUD: [[f64; 3]; 12] = [
    [
        -0.8019314408302307,
        -2.6487178802490234,
        -0.7450848817825317,
    ],
    [0.4204452335834503, 2.2720930576324463, 0.3291192054748535],
    [-0.5526472926139832, -1.5695607662200928, 2.246237277984619],
    [1.6347830295562744, 0.545537531375885, -3.699985980987549],
    [-0.9582651853561401, 3.200038194656372, 0.608647346496582],
    [
        -1.7321348190307617,
        -0.16739238798618317,
        -3.489677906036377,
    ],
    [-0.6292880773544312, -0.9760116338729858, -2.139940023422241],
    [
        0.5533784627914429,
        -0.12617194652557373,
        -1.7682937383651733,
    ],
    [0.40963783860206604, 1.6597106456756592, -4.929069995880127],
    [
        -0.2567301392555237,
        -1.9614946842193604,
        -0.5194656848907471,
    ],
    [
        -1.2894186973571777,
        0.04138078913092613,
        -0.11365722119808197,
    ],
    [-0.304337739944458, -2.095853090286255, -1.1885709762573242],
];

const STAR_V: [[f64; 3]; 20] = [
    [0.0, 0.0, 0.75],
    [0.9875919222831726, 0.0, 0.740693986415863],
    [0.31741443276405334, 0.8246668577194214, 0.4761216342449188],
    [-0.22262342274188995, 0.5783926248550415, 0.3339351415634155],
    [
        -0.8468631505966187,
        1.555662299114024e-16,
        0.6351473331451416,
    ],
    [
        -0.46647652983665466,
        -1.2119415998458862,
        0.6997147798538208,
    ],
    [0.254576176404953, -0.6614082455635071, 0.3818642497062683],
    [0.7527451515197754, 0.0, 3.4569260844575215e-17],
    [0.6718323826789856, 1.745471715927124, 6.170680019372901e-17],
    [
        -0.579348087310791,
        1.5051906108856201,
        5.3212260799017803e-17,
    ],
    [
        -0.6154410243034363,
        1.1305467861011354e-16,
        2.8263669652528386e-17,
    ],
    [
        -0.47020018100738525,
        -1.2216159105300903,
        4.318718580817728e-17,
    ],
    [
        0.6999585628509521,
        -1.8185456991195679,
        6.429015142118112e-17,
    ],
    [0.6763797402381897, 0.0, -0.5072847604751587],
    [0.21612033247947693, 0.5614970922470093, -0.3241805136203766],
    [
        -0.40433192253112793,
        1.0504851341247559,
        -0.6064978837966919,
    ],
    [
        -0.9558027386665344,
        1.755781244441141e-16,
        -0.716852068901062,
    ],
    [
        -0.27073177695274353,
        -0.7033817768096924,
        -0.4060976505279541,
    ],
    [
        0.2505476176738739,
        -0.6509418487548828,
        -0.37582144141197205,
    ],
    [0.0, 0.0, -0.9819983839988708],
];

const STAR_F: [[u32; 3]; 36] = [
    [0, 1, 2],
    [0, 2, 3],
    [0, 3, 4],
    [0, 4, 5],
    [0, 5, 6],
    [0, 6, 1],
    [1, 7, 8],
    [1, 8, 2],
    [2, 8, 9],
    [2, 9, 3],
    [3, 9, 10],
    [3, 10, 4],
    [4, 10, 11],
    [4, 11, 5],
    [5, 11, 12],
    [5, 12, 6],
    [6, 12, 7],
    [6, 7, 1],
    [7, 13, 14],
    [7, 14, 8],
    [8, 14, 15],
    [8, 15, 9],
    [9, 15, 16],
    [9, 16, 10],
    [10, 16, 17],
    [10, 17, 11],
    [11, 17, 18],
    [11, 18, 12],
    [12, 18, 13],
    [12, 13, 7],
    [19, 14, 13],
    [19, 15, 14],
    [19, 16, 15],
    [19, 17, 16],
    [19, 18, 17],
    [19, 13, 18],
];

#[test]
fn l_prism_legacy() {
    let m = compile_mesh("L", l_prism(), &MeshSettings::default()).unwrap();
    check(
        "L legacy",
        &m,
        &Expect {
            pos: [0.7751966568338249, 1.2420108161258605, 0.4999999999999999],
            quat: [
                0.4098684445992308,
                0.5762012305799152,
                -0.4098684445992308,
                0.5762012305799152,
            ],
            vert: &[
                [-0.5, 1.139721155166626, 0.9189975261688232],
                [-0.5, -0.7496124505996704, 1.5750603675842285],
                [-0.5, -1.077643871307373, 0.6303935647010803],
                [-0.5, -0.13297709822654724, 0.3023621439933777],
            ],
            nvert: 12,
            nface: 20,
            volume: 4.161340544083907,
            aabb: [
                1.1102230246251565e-16,
                0.03103861417983056,
                -0.1699712563010617,
                0.5000000000000013,
                1.108682524859426,
                1.7450316454109474,
            ],
            boxsz: [0.4961077210913521, 0.7956772743892111, 1.5554156843187168],
        },
    );
}

#[test]
fn l_prism_exact() {
    let s = MeshSettings {
        inertia: MeshInertia::Exact,
        ..Default::default()
    };
    let m = compile_mesh("L", l_prism(), &s).unwrap();
    check(
        "L exact",
        &m,
        &Expect {
            pos: [0.75, 1.25, 0.49999999999999994],
            quat: [
                0.4134526073152654,
                0.5736348503222328,
                -0.4134526073152654,
                0.5736348503222328,
            ],
            vert: &[
                [-0.5, 1.106797218322754, 0.9486833214759827],
                [-0.5, -0.7905694246292114, 1.5811388492584229],
                [-0.5, -1.106797218322754, 0.6324555277824402],
                [-0.5, -0.15811388194561005, 0.3162277638912201],
            ],
            nvert: 12,
            nface: 20,
            volume: 4.0,
            aabb: [
                1.1102230246251565e-16,
                0.0,
                -0.15811388300841944,
                0.5000000000000016,
                1.106797181058936,
                1.7392527130926139,
            ],
            boxsz: [0.4999999999999998, 0.7905694150420951, 1.5811388300841898],
        },
    );
}

#[test]
fn cube_mirrored_with_refpos_refquat() {
    let s = MeshSettings {
        scale: DVec3::new(-1.0, 2.0, 3.0),
        refpos: DVec3::new(0.25, 0.5, 0.125),
        refquat: quat(0.9, 0.1, 0.3, 0.2),
        ..Default::default()
    };
    let m = compile_mesh("cube", raw(&CUBE_V, &CUBE_F), &s).unwrap();
    check(
        "cube mirrored",
        &m,
        &Expect {
            pos: [0.01578947368421055, 0.07894736842105263, 1.3460526315789472],
            quat: [1.0, 0.0, 0.0, 0.0],
            vert: &[
                [0.3210526406764984, -0.8947368264198303, -2.005263090133667],
                [
                    -0.40526315569877625,
                    -1.5263158082962036,
                    -0.17368420958518982,
                ],
                [
                    -0.8473684191703796,
                    0.2631579041481018,
                    -0.36315789818763733,
                ],
                [-0.12105263024568558, 0.8947368264198303, -2.194736957550049],
            ],
            nvert: 8,
            nface: 12,
            volume: 5.999999999999999,
            aabb: [
                -5.551115123125783e-17,
                0.0,
                2.220446049250313e-16,
                0.8473684210526315,
                1.526315789473684,
                2.1947368421052635,
            ],
            boxsz: [0.5, 0.9999999999999998, 1.4999999999999998],
        },
    );
}

#[test]
fn point_cloud_without_faces() {
    let m = compile_mesh("cloud", raw(&CLOUD, &[]), &MeshSettings::default()).unwrap();
    check(
        "cloud",
        &m,
        &Expect {
            pos: [
                -0.28778316879936766,
                0.4402127162789852,
                -1.3130863726691837,
            ],
            quat: [
                0.98935429827949,
                0.12228108542849969,
                -0.06863984883436265,
                -0.03890989301349396,
            ],
            vert: &[
                [
                    -0.14633287489414215,
                    -2.8776891231536865,
                    1.3512800931930542,
                ],
                [0.7350346446037292, 2.220306873321533, 1.0412366390228271],
                [0.3764573037624359, -1.0793097019195557, 3.933382511138916],
                [1.5872803926467896, -0.37267717719078064, -2.597363233566284],
            ],
            nvert: 12,
            nface: 16,
            volume: 32.19062404831544,
            aabb: [
                -0.028508249548741538,
                0.1130625583331617,
                0.034847891290871846,
                1.6157886917333548,
                2.990751755244232,
                3.8985345866100434,
            ],
            boxsz: [0.9730831914968827, 1.8175580689284827, 2.3909724838996644],
        },
    );
}

#[test]
fn tetrahedron_exact() {
    let v = [
        [0.125, -0.5, 0.25],
        [2.0, 0.25, -0.375],
        [0.5, 1.75, 0.625],
        [0.375, 0.5, 1.5],
    ];
    let f = [[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]];
    let s = MeshSettings {
        inertia: MeshInertia::Exact,
        ..Default::default()
    };
    let m = compile_mesh("tet", raw(&v, &f), &s).unwrap();
    check(
        "tet exact",
        &m,
        &Expect {
            pos: [0.75, 0.5, 0.5],
            quat: [
                0.16013394051949842,
                0.8864499716945647,
                -0.19662100336865695,
                0.38717405622111406,
            ],
            vert: &[
                [-0.3520536422729492, 1.1338504552841187, 0.20872531831264496],
                [0.17902034521102905, -0.48807963728904724, 1.456143856048584],
                [
                    -0.3427816331386566,
                    -0.9546400308609009,
                    -0.7821689248085022,
                ],
                [0.5158149600028992, 0.3088691532611847, -0.8827002644538879],
            ],
            nvert: 4,
            nface: 4,
            volume: 0.734375,
            aabb: [
                0.08188063978480126,
                0.0896052439047259,
                0.28672179143275167,
                0.43393429127029687,
                1.0442452602374939,
                1.1694220853385477,
            ],
            boxsz: [0.28448752366234087, 0.6161058839315354, 0.7302262585427968],
        },
    );
}

#[test]
fn star_shell() {
    let s = MeshSettings {
        inertia: MeshInertia::Shell,
        ..Default::default()
    };
    let m = compile_mesh("star", raw(&STAR_V, &STAR_F), &s).unwrap();
    check(
        "star shell",
        &m,
        &Expect {
            pos: [
                0.02752203771140632,
                0.023143462974348855,
                0.017029790192645264,
            ],
            quat: [
                0.4023267335822949,
                0.37305533167224164,
                -0.5570989101053367,
                0.6233808814163007,
            ],
            vert: &[
                [0.6784449219703674, -0.2625451385974884, 0.0965452790260315],
                [
                    0.27695658802986145,
                    -1.1647565364837646,
                    0.11223652958869934,
                ],
                [0.372860312461853, -0.49149152636528015, -0.7460924386978149],
                [
                    0.43671783804893494,
                    0.07362210005521774,
                    -0.5245575904846191,
                ],
            ],
            nvert: 20,
            nface: 36,
            volume: 15.016756160404041,
            aabb: [
                0.003498367498501742,
                0.013965868184207197,
                0.06873483507793521,
                0.9070308190597228,
                1.178722355678983,
                1.772889773585311,
            ],
            boxsz: [0.7184344521324099, 0.8887633029585212, 1.4613012001344765],
        },
    );
}

#[test]
fn star_legacy_non_convex() {
    let m = compile_mesh("star", raw(&STAR_V, &STAR_F), &MeshSettings::default()).unwrap();
    check(
        "star legacy",
        &m,
        &Expect {
            pos: [
                0.005681312996322659,
                0.03350974892643914,
                0.0051485706421684554,
            ],
            quat: [
                0.3712945031067253,
                0.3357434922756688,
                -0.5738926820413004,
                0.6481233592895049,
            ],
            vert: &[
                [
                    0.6412142515182495,
                    -0.36127278208732605,
                    0.11952019482851028,
                ],
                [0.1405544877052307, -1.2125674486160278, 0.1273699551820755],
                [0.3260744512081146, -0.5549811720848083, -0.7284188866615295],
                [
                    0.44936326146125793,
                    -0.0004839033354073763,
                    -0.50516676902771,
                ],
            ],
            nvert: 20,
            nface: 36,
            volume: 3.3821899017022137,
            aabb: [
                0.05702245498544328,
                -0.01000347413459357,
                0.07512493125311936,
                0.9077044762533839,
                1.2025639415605176,
                1.770064390076815,
            ],
            boxsz: [0.5545200443992852, 0.698801683884136, 1.1863896721097207],
        },
    );
}

#[test]
fn obj_file_with_quads_and_scale() {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/mesh/quad_box.obj"
    ))
    .unwrap();
    let s = MeshSettings {
        scale: DVec3::new(0.5, 1.0, 2.0),
        ..Default::default()
    };
    let m = compile_mesh("quad_box", decode_mesh("quad_box.obj", &bytes).unwrap(), &s).unwrap();
    check(
        "quad_box.obj",
        &m,
        &Expect {
            pos: [0.8179824561403508, 0.574561403508772, 1.0],
            quat: [0.7036327920428269, 0.0, 0.0, 0.7105637859911083],
            vert: &[
                [-0.566516101360321, 0.8235749006271362, -1.0],
                [-0.5812187790870667, -0.6763530373573303, -1.0],
                [0.4162827134132385, -0.9361428022384644, -1.0],
                [0.6821986436843872, 0.686328649520874, -1.0],
            ],
            nvert: 11,
            nface: 12,
            volume: 3.5625000000000004,
            aabb: [
                4.901363864744426,
                -1.975301942886329,
                9.000000000000018,
                5.482582658408838,
                2.7988768332581158,
                10.000000000000018,
            ],
            boxsz: [0.5689938779870278, 0.786227430836525, 1.0],
        },
    );
}

#[test]
fn binary_stl_file() {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/mesh/star.stl"
    ))
    .unwrap();
    let m = compile_mesh(
        "star",
        decode_mesh("star.stl", &bytes).unwrap(),
        &MeshSettings::default(),
    )
    .unwrap();
    check(
        "star.stl",
        &m,
        &Expect {
            pos: [
                0.005681312996322659,
                0.03350974892643914,
                0.0051485706421684554,
            ],
            quat: [
                0.3712945031067253,
                0.3357434922756688,
                -0.5738926820413004,
                0.6481233592895049,
            ],
            vert: &[
                [
                    0.6412142515182495,
                    -0.36127278208732605,
                    0.11952019482851028,
                ],
                [0.1405544877052307, -1.2125674486160278, 0.1273699551820755],
                [0.3260744512081146, -0.5549811720848083, -0.7284188866615295],
                [
                    0.44936326146125793,
                    -0.0004839033354073763,
                    -0.50516676902771,
                ],
            ],
            nvert: 20,
            nface: 36,
            volume: 3.3821899017022137,
            aabb: [
                0.05702245498544328,
                -0.01000347413459357,
                0.07512493125311936,
                0.9077044762533839,
                1.2025639415605176,
                1.770064390076815,
            ],
            boxsz: [0.5545200443992852, 0.698801683884136, 1.1863896721097207],
        },
    );
}

#[test]
fn msh_file_with_refquat() {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/mesh/star.msh"
    ))
    .unwrap();
    let s = MeshSettings {
        refquat: quat(0.0, 1.0, 0.0, 0.0),
        ..Default::default()
    };
    let m = compile_mesh("star", decode_mesh("star.msh", &bytes).unwrap(), &s).unwrap();
    check(
        "star.msh",
        &m,
        &Expect {
            pos: [
                0.005681312996322659,
                -0.03350974892643914,
                -0.0051485706421684554,
            ],
            quat: [
                0.6481233592895049,
                0.5738926820413004,
                -0.3357434922756688,
                0.3712945031067253,
            ],
            vert: &[
                [
                    -0.6412142515182495,
                    -0.36127278208732605,
                    -0.11952019482851028,
                ],
                [
                    -0.1405544877052307,
                    -1.2125674486160278,
                    -0.1273699551820755,
                ],
                [-0.3260744512081146, -0.5549811720848083, 0.7284188866615295],
                [
                    -0.44936326146125793,
                    -0.0004839033354073763,
                    0.50516676902771,
                ],
            ],
            nvert: 20,
            nface: 36,
            volume: 3.3821899017022137,
            aabb: [
                -0.05702245498544323,
                -0.01000347413459357,
                -0.07512493125311936,
                0.9077044762533839,
                1.2025639415605176,
                1.770064390076815,
            ],
            boxsz: [0.5545200443992852, 0.698801683884136, 1.1863896721097207],
        },
    );
}
