//! Text summary of a scene's contacts, one line per geom pair and state.

use crate::scene::Scene;
use crate::ViewError;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Contacts of one geom pair in one state.
#[derive(Clone, Debug, PartialEq)]
pub struct PairSummary {
    /// The pair's model geom indices, as in [`collide::Contact::geom`].
    pub geom: [usize; 2],
    /// Number of contacts.
    pub count: usize,
    /// Index (in the state's contact list) of the deepest contact (smallest `dist`).
    pub deepest: usize,
}

/// The pairs in contact in state `k`, ordered by geom indices.
pub fn pairs(scene: &Scene, k: usize) -> Result<Vec<PairSummary>, ViewError> {
    let st = scene.state(k)?;
    let mut map: BTreeMap<[usize; 2], PairSummary> = BTreeMap::new();
    for (i, c) in st.contacts.iter().enumerate() {
        let e = map.entry(c.geom).or_insert(PairSummary {
            geom: c.geom,
            count: 0,
            deepest: i,
        });
        e.count += 1;
        if c.dist < st.contacts[e.deepest].dist {
            e.deepest = i;
        }
    }
    Ok(map.into_values().collect())
}

/// A table of state `k`'s contacts: a heading with the count, then per pair the geom names
/// and types, the number of contacts, and the deepest one's `dist`, point and normal.
pub fn pair_table(scene: &Scene, k: usize) -> Result<String, ViewError> {
    let st = scene.state(k)?;
    let label = |g: usize| {
        scene
            .geoms
            .iter()
            .find(|x| x.id == g)
            .map_or(format!("geom#{g}"), |x| {
                format!("{} ({})", x.name, x.kind.name())
            })
    };
    let mut s = String::new();
    let list = pairs(scene, k)?;
    let _ = writeln!(
        s,
        "state {k}: {} contacts in {} pairs",
        st.contacts.len(),
        list.len()
    );
    for p in &list {
        let c = &st.contacts[p.deepest];
        let n = c.frame[0];
        let _ = writeln!(
            s,
            "  {} - {}: {} contact{}, deepest dist {:.5} at ({:.4}, {:.4}, {:.4}) normal ({:.3}, {:.3}, {:.3})",
            label(p.geom[0]),
            label(p.geom[1]),
            p.count,
            if p.count == 1 { "" } else { "s" },
            c.dist,
            c.pos.x,
            c.pos.y,
            c.pos.z,
            n.x,
            n.y,
            n.z
        );
    }
    Ok(s)
}

/// Mean wall time of one [`collide::Collider::detect`] call in microseconds, cycling through
/// `poses` for at least `min_secs` (after one warm-up pass that sizes the buffers). For the
/// demo's printout; benchmarks live in `bench/`.
pub fn detection_time_us(
    model: &collide::Model,
    poses: &[collide::Poses],
    min_secs: f64,
) -> Result<f64, ViewError> {
    if poses.is_empty() {
        return Err(ViewError::NoStates);
    }
    let mut collider = collide::Collider::new(model)?;
    let mut buf = Vec::new();
    for p in poses {
        collider.detect(p, &mut buf);
    }
    let t = std::time::Instant::now();
    let mut n = 0usize;
    while n == 0 || t.elapsed().as_secs_f64() < min_secs {
        for p in poses {
            std::hint::black_box(collider.detect(std::hint::black_box(p), &mut buf));
        }
        n += poses.len();
    }
    Ok(t.elapsed().as_secs_f64() * 1e6 / n as f64)
}
