//! The collision hull (`mesh_hull`) against MuJoCo 4.0.0's `mesh_graph`, `mesh_poly*` and
//! `mesh_extrema`, recorded by `conformance/mesh_hull_oracle.py` into `tests/data/hull/`.
//!
//! Each case is compiled by MuJoCo; the test builds our hull from MuJoCo's compiled vertices
//! (`mesh_vert`, `mesh_pos`, `mesh_quat`) and the file vertices (decoded from the corpus file or
//! the inline list), then compares:
//! - the hull vertex set (as mesh vertex ids) and qhull's vertex order;
//! - each vertex's neighbour set and MuJoCo's neighbour order;
//! - the triangles (as oriented triangles, any rotation) and their order;
//! - the polygons (vertex sets), their paths as oriented cycles (always required) and their exact
//!   paths and order; normals within 1e-6;
//! - the 27 extrema (same vertex, and same support value).
//!
//! Run with `-- --nocapture` to see the per-case table.

use collide::glam::DVec3;
use collide::math::{normalize_quat, quat_wxyz};
use collide::{ConvexHull, Mesh};
use collide_mjcf::mesh_compile::MeshSettings;
use collide_mjcf::mesh_file::decode_mesh;
use collide_mjcf::mesh_hull::{build_hull_from_source, last_build_was_exact};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

struct Expect {
    /// hull vertex -> mesh vertex, in qhull order
    global: Vec<usize>,
    /// neighbours (hull-local), per hull vertex
    edges: Vec<Vec<usize>>,
    /// triangles, mesh ids
    faces: Vec<[usize; 3]>,
    /// polygons, mesh ids
    polys: Vec<Vec<usize>>,
    normals: Vec<DVec3>,
    extrema: Vec<usize>,
}

struct Case {
    name: String,
    class: String,
    note: String,
    source: Vec<DVec3>,
    settings: MeshSettings,
    mesh: Mesh,
    expect: Result<Expect, String>,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn f64s(v: &Value) -> Vec<f64> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default()
}

fn usizes(v: &Value) -> Vec<i64> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_i64).collect())
        .unwrap_or_default()
}

fn load_cases() -> Vec<Case> {
    // HULL_DATA_DIR: run the comparison on another oracle directory (same format)
    let dir = std::env::var("HULL_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/hull"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/data/hull exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files.iter().map(|p| load_case(p)).collect()
}

fn load_case(path: &Path) -> Case {
    let text = std::fs::read_to_string(path).unwrap();
    let j: Value = serde_json::from_str(&text).unwrap();
    let name = j["name"].as_str().unwrap().to_string();
    let src = &j["source"];
    let source: Vec<DVec3> = if let Some(file) = src["file"].as_str() {
        let bytes = std::fs::read(root().join(file)).unwrap();
        decode_mesh(file, &bytes).unwrap().vert
    } else {
        f64s(&src["vertex"])
            .chunks_exact(3)
            .map(|c| DVec3::new(c[0], c[1], c[2]))
            .collect()
    };
    let s = &j["settings"];
    let sc = f64s(&s["scale"]);
    let rp = f64s(&s["refpos"]);
    let rq = f64s(&s["refquat"]);
    let mhv = s["maxhullvert"].as_i64().unwrap();
    let settings = MeshSettings {
        scale: DVec3::new(sc[0], sc[1], sc[2]),
        refpos: DVec3::new(rp[0], rp[1], rp[2]),
        refquat: normalize_quat(quat_wxyz(rq[0], rq[1], rq[2], rq[3])),
        maxhullvert: usize::try_from(mhv).ok(),
        ..Default::default()
    };
    let (mesh, expect) = if let Some(err) = j["error"].as_str() {
        (
            Mesh {
                name: "m".into(),
                vert: source.iter().map(|v| v.as_vec3().as_dvec3()).collect(),
                ..Default::default()
            },
            Err(err.to_string()),
        )
    } else {
        let vert: Vec<DVec3> = f64s(&j["vert"])
            .chunks_exact(3)
            .map(|c| DVec3::new(c[0] as f32 as f64, c[1] as f32 as f64, c[2] as f32 as f64))
            .collect();
        let pos = f64s(&j["mesh_pos"]);
        let q = f64s(&j["mesh_quat"]);
        let mesh = Mesh {
            name: "m".into(),
            vert,
            pos: DVec3::new(pos[0], pos[1], pos[2]),
            quat: quat_wxyz(q[0], q[1], q[2], q[3]),
            ..Default::default()
        };
        let g = usizes(&j["graph"]);
        let (nv, nf) = (g[0] as usize, g[1] as usize);
        let edgeadr: Vec<usize> = g[2..2 + nv].iter().map(|&x| x as usize).collect();
        let global: Vec<usize> = g[2 + nv..2 + 2 * nv].iter().map(|&x| x as usize).collect();
        let edge = &g[2 + 2 * nv..2 + 3 * nv + 3 * nf];
        let edges: Vec<Vec<usize>> = edgeadr
            .iter()
            .map(|&a| {
                edge[a..]
                    .iter()
                    .take_while(|&&x| x >= 0)
                    .map(|&x| x as usize)
                    .collect()
            })
            .collect();
        let faces: Vec<[usize; 3]> = g[2 + 3 * nv + 3 * nf..]
            .chunks_exact(3)
            .map(|c| [c[0] as usize, c[1] as usize, c[2] as usize])
            .collect();
        let polys: Vec<Vec<usize>> = j["polyvert"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| usizes(p).into_iter().map(|x| x as usize).collect())
            .collect();
        let normals: Vec<DVec3> = f64s(&j["polynormal"])
            .chunks_exact(3)
            .map(|c| DVec3::new(c[0], c[1], c[2]))
            .collect();
        let extrema = usizes(&j["extrema"])
            .into_iter()
            .map(|x| x as usize)
            .collect();
        (
            mesh,
            Ok(Expect {
                global,
                edges,
                faces,
                polys,
                normals,
                extrema,
            }),
        )
    };
    Case {
        name,
        class: j["class"].as_str().unwrap_or("").to_string(),
        note: j["note"].as_str().unwrap_or("").to_string(),
        source,
        settings,
        mesh,
        expect,
    }
}

#[derive(Default, Debug, Clone)]
struct Report {
    exact_path: bool,
    vset: bool,
    vorder: bool,
    adjset: bool,
    adjorder: bool,
    faceset: bool,
    faceorder: bool,
    polyset: bool,
    /// every polygon path is a rotation of MuJoCo's path with the same vertex set
    polycycle: bool,
    polyorder: bool,
    normals: bool,
    max_normal_err: f64,
    extrema_id: usize,
    extrema_val: usize,
}

fn rot3(t: [usize; 3]) -> [usize; 3] {
    let m = (0..3).min_by_key(|&k| t[k]).unwrap();
    [t[m], t[(m + 1) % 3], t[(m + 2) % 3]]
}

/// Whether `a` is a rotation of `b` (same cyclic sequence, same direction).
fn same_cycle(a: &[usize], b: &[usize]) -> bool {
    a.len() == b.len()
        && (a.is_empty()
            || (0..b.len()).any(|s| (0..a.len()).all(|k| a[k] == b[(s + k) % b.len()])))
}

fn compare(h: &ConvexHull, e: &Expect, stored: &[DVec3]) -> Report {
    let mut r = Report::default();
    let ours: Vec<usize> = h.mesh_index.iter().map(|&x| x as usize).collect();
    r.vorder = ours == e.global;
    let so: BTreeSet<usize> = ours.iter().copied().collect();
    let se: BTreeSet<usize> = e.global.iter().copied().collect();
    r.vset = so == se;
    // adjacency, as mesh ids
    let nbr_ours: HashMap<usize, Vec<usize>> = (0..ours.len())
        .map(|i| {
            let a = h.graph.neighbours(i);
            (ours[i], a.iter().map(|&k| ours[k as usize]).collect())
        })
        .collect();
    let nbr_exp: HashMap<usize, Vec<usize>> = e
        .global
        .iter()
        .enumerate()
        .map(|(i, &g)| (g, e.edges[i].iter().map(|&k| e.global[k]).collect()))
        .collect();
    r.adjorder = nbr_ours == nbr_exp;
    r.adjset = nbr_ours.len() == nbr_exp.len()
        && nbr_ours.iter().all(|(k, v)| {
            nbr_exp.get(k).is_some_and(|w| {
                v.iter().collect::<BTreeSet<_>>() == w.iter().collect::<BTreeSet<_>>()
            })
        });
    let faces_ours: Vec<[usize; 3]> = h
        .face
        .iter()
        .map(|f| {
            [
                ours[f[0] as usize],
                ours[f[1] as usize],
                ours[f[2] as usize],
            ]
        })
        .collect();
    r.faceorder = faces_ours == e.faces;
    let fo: BTreeSet<[usize; 3]> = faces_ours.iter().map(|&f| rot3(f)).collect();
    let fe: BTreeSet<[usize; 3]> = e.faces.iter().map(|&f| rot3(f)).collect();
    r.faceset = fo == fe && faces_ours.len() == e.faces.len();
    // polygons
    let np = h.poly_start.len() - 1;
    let polys_ours: Vec<Vec<usize>> = (0..np)
        .map(|p| {
            h.poly_vert[h.poly_start[p] as usize..h.poly_start[p + 1] as usize]
                .iter()
                .map(|&k| ours[k as usize])
                .collect()
        })
        .collect();
    r.polyorder = polys_ours == e.polys;
    let key = |p: &Vec<usize>| p.iter().copied().collect::<BTreeSet<usize>>();
    let mut po: Vec<BTreeSet<usize>> = polys_ours.iter().map(key).collect();
    let mut pe: Vec<BTreeSet<usize>> = e.polys.iter().map(key).collect();
    po.sort();
    pe.sort();
    r.polyset = po == pe;
    r.polycycle = r.polyset
        && polys_ours.iter().all(|p| {
            e.polys
                .iter()
                .find(|q| key(q) == key(p))
                .is_some_and(|q| same_cycle(p, q))
        });
    // normals of polygons matched by vertex set
    r.normals = true;
    let mut used = vec![false; e.polys.len()];
    for (i, p) in polys_ours.iter().enumerate() {
        let k = key(p);
        let j = (0..e.polys.len()).find(|&j| !used[j] && key(&e.polys[j]) == k);
        match j {
            Some(j) => {
                used[j] = true;
                let err = (h.poly_normal[i] - e.normals[j]).abs().max_element();
                r.max_normal_err = r.max_normal_err.max(err);
                if err > 1e-6 {
                    r.normals = false;
                }
            }
            None => r.normals = false,
        }
    }
    // extrema
    let dirs = (0..27).map(|k| {
        DVec3::new(
            (k / 9) as f64 - 1.0,
            ((k / 3) % 3) as f64 - 1.0,
            (k % 3) as f64 - 1.0,
        )
    });
    for (k, d) in dirs.enumerate() {
        let ours_v = ours.get(h.extrema[k] as usize).copied();
        let exp_v = e.global.get(e.extrema[k]).copied();
        if ours_v.is_some() && ours_v == exp_v {
            r.extrema_id += 1;
        }
        if let (Some(a), Some(b)) = (ours_v, exp_v) {
            let f = |v: DVec3| {
                let v = v.as_vec3();
                let d = d.as_vec3();
                v.x * d.x + v.y * d.y + v.z * d.z
            };
            if f(stored[a]) == f(stored[b]) {
                r.extrema_val += 1;
            }
        }
    }
    r
}

fn yn(b: bool) -> &'static str {
    if b {
        "y"
    } else {
        "."
    }
}

#[test]
fn oracle_match() {
    let cases = load_cases();
    assert!(
        cases.len() >= 30 || std::env::var("HULL_DATA_DIR").is_ok(),
        "{} cases",
        cases.len()
    );
    println!(
        "{:34} {:11} {:>4} ex | vset vord | aset aord | fset ford | pset pcyc pord nrm | extr val",
        "case", "class", "nv"
    );
    let mut failures = Vec::new();
    let custom_dir = std::env::var("HULL_DATA_DIR").is_ok();
    let mut by_class: HashMap<String, (usize, usize, usize)> = HashMap::new();
    for c in &cases {
        let got = build_hull_from_source(&c.mesh, &c.source, &c.settings);
        match (&c.expect, got) {
            (Err(msg), Err(ours)) => {
                let first = msg
                    .lines()
                    .next()
                    .unwrap_or("")
                    .trim_start_matches("Error: ")
                    .to_string();
                let ok = ours.contains(&first);
                println!(
                    "{:34} {:11} error: ours {ours:?} vs {first:?} {}",
                    c.name,
                    c.class,
                    yn(ok)
                );
                if !ok {
                    failures.push(format!("{}: error text {ours:?} vs {first:?}", c.name));
                }
            }
            (Err(msg), Ok(_)) => {
                failures.push(format!("{}: MuJoCo fails ({msg}) but we build", c.name))
            }
            (Ok(_), Err(e)) => failures.push(format!("{}: we fail: {e}", c.name)),
            (Ok(e), Ok(h)) => {
                let exact = last_build_was_exact();
                let mut r = compare(&h, e, &c.mesh.vert);
                r.exact_path = exact;
                println!(
                    "{:34} {:11} {:>4} {:2} |  {}    {}   |  {}    {}   |  {}    {}   |  {}    {}    {}    {}  | {:>2}  {:>2}  {:.1e} {}",
                    c.name,
                    c.class,
                    e.global.len(),
                    yn(exact),
                    yn(r.vset),
                    yn(r.vorder),
                    yn(r.adjset),
                    yn(r.adjorder),
                    yn(r.faceset),
                    yn(r.faceorder),
                    yn(r.polyset),
                    yn(r.polycycle),
                    yn(r.polyorder),
                    yn(r.normals),
                    r.extrema_id,
                    r.extrema_val,
                    r.max_normal_err,
                    c.note
                );
                let entry = by_class.entry(c.class.clone()).or_default();
                entry.0 += 1;
                if r.vset && r.adjset && r.faceset && r.polyset && r.normals && r.extrema_val == 27
                {
                    entry.1 += 1;
                }
                if r.vorder
                    && r.adjorder
                    && r.faceorder
                    && r.polyorder
                    && r.normals
                    && r.extrema_id == 27
                {
                    entry.2 += 1;
                }
                // everything MuJoCo-identical on the exact path, which every recorded case takes
                // (facet merges included)
                if !exact && !custom_dir {
                    failures.push(format!("{}: not built on the exact path", c.name));
                }
                if exact
                    && !(r.vorder
                        && r.adjorder
                        && r.faceorder
                        && r.polyorder
                        && r.normals
                        && r.extrema_id == 27)
                {
                    failures.push(format!("{}: exact path differs: {r:?}", c.name));
                }
                // the hull itself (vertex set, polygons as oriented cycles, normals, support
                // values) always; only where a merged polygon's path starts may differ
                if !(r.vset && r.polyset && r.polycycle && r.normals && r.extrema_val == 27) {
                    failures.push(format!("{}: hull differs: {r:?}", c.name));
                }
            }
        }
    }
    let mut classes: Vec<_> = by_class.into_iter().collect();
    classes.sort();
    for (k, (n, sets, exact)) in classes {
        println!("class {k:12}: {n:2} cases, {sets:2} identical as sets, {exact:2} identical incl. order");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
