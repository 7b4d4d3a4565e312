//! Batched distance queries and collision checks over `(nbatch, nq)` configurations, on all
//! cores of the current rayon pool.
//!
//! Each call splits the batch into contiguous chunks (a few per thread); every chunk has its
//! own scratch (poses, narrow-phase buffers) and writes only its own rows of the caller's
//! buffers, so the results do not depend on the thread count or the schedule.

use glam::{DQuat, DVec3};
use rayon::prelude::*;

use crate::kinematics::{forward_kinematics, Poses};
use crate::model::Model;

use super::{check_distmax, check_geom, CollisionChecker, DistanceError, GeomDistance};

/// Rows per chunk: a few chunks per thread, for load balance, and at least one row.
fn chunk_rows(nbatch: usize) -> usize {
    nbatch.div_ceil(4 * rayon::current_num_threads()).max(1)
}

/// Checks that `qpos` holds whole rows of `nq` values; returns the row count.
fn rows(model: &Model, qpos: &[f64]) -> Result<usize, DistanceError> {
    let nq = model.nq();
    if nq == 0 {
        return Ok(0);
    }
    if !qpos.len().is_multiple_of(nq) {
        return Err(DistanceError::BufferLength {
            what: "qpos",
            got: qpos.len(),
            expected: qpos.len().div_ceil(nq) * nq,
        });
    }
    Ok(qpos.len() / nq)
}

/// Checks that a caller buffer has `expected` entries.
fn check_len(what: &'static str, got: usize, expected: usize) -> Result<(), DistanceError> {
    if got == expected {
        Ok(())
    } else {
        Err(DistanceError::BufferLength {
            what,
            got,
            expected,
        })
    }
}

/// Distances of `pairs` (geom id pairs) at every configuration of `qpos` (`nbatch * nq`
/// values, row after row), capped at `distmax` ([`GeomDistance::distance`]'s semantics).
/// Writes `dist` (`nbatch * npair`, row `s` holds state `s`'s pairs in order) and `fromto`
/// (`nbatch * npair * 6`). Errors on bad ids, a non-finite `distmax`, buffers of the wrong
/// length, or a rejected configuration (the lowest bad state is named).
pub fn distance_batch(
    model: &Model,
    qpos: &[f64],
    pairs: &[[usize; 2]],
    distmax: f64,
    dist: &mut [f64],
    fromto: &mut [f64],
) -> Result<(), DistanceError> {
    let nbatch = rows(model, qpos)?;
    for p in pairs {
        check_geom(model, p[0])?;
        check_geom(model, p[1])?;
    }
    check_distmax(distmax)?;
    let np = pairs.len();
    check_len("dist", dist.len(), nbatch * np)?;
    check_len("fromto", fromto.len(), nbatch * np * 6)?;
    if nbatch == 0 || np == 0 {
        return Ok(());
    }
    let nq = model.nq();
    let rows = chunk_rows(nbatch);
    let results: Vec<Result<(), DistanceError>> =
        qpos.par_chunks(rows * nq)
            .zip(dist.par_chunks_mut(rows * np))
            .zip(fromto.par_chunks_mut(rows * np * 6))
            .enumerate()
            .map(|(c, ((q, d), f))| {
                let mut poses = Poses::new(model);
                let mut query = GeomDistance::new(model);
                for (k, ((q, d), f)) in q
                    .chunks(nq)
                    .zip(d.chunks_mut(np))
                    .zip(f.chunks_mut(np * 6))
                    .enumerate()
                {
                    forward_kinematics(model, q, None::<(&[DVec3], &[DQuat])>, &mut poses)
                        .map_err(|source| DistanceError::Kinematics {
                            state: c * rows + k,
                            source,
                        })?;
                    let view = poses.view();
                    for (i, p) in pairs.iter().enumerate() {
                        let r = query.distance_unchecked(&view, p[0], p[1], distmax);
                        d[i] = r.dist;
                        f[6 * i..6 * i + 6].copy_from_slice(&r.fromto);
                    }
                }
                Ok(())
            })
            .collect();
    results.into_iter().collect()
}

/// Collision check of every configuration of `qpos` (`nbatch * nq` values, row after row;
/// [`CollisionChecker::in_collision`]'s semantics), writing one flag per state into
/// `out` (`nbatch` long). Errors on buffers of the wrong length or a rejected configuration
/// (the lowest bad state is named).
pub fn in_collision_batch(
    model: &Model,
    qpos: &[f64],
    out: &mut [bool],
) -> Result<(), DistanceError> {
    let nbatch = rows(model, qpos)?;
    check_len("out", out.len(), nbatch)?;
    if nbatch == 0 {
        return Ok(());
    }
    let nq = model.nq();
    let rows = chunk_rows(nbatch);
    let template = CollisionChecker::new(model);
    let results: Vec<Result<(), DistanceError>> = qpos
        .par_chunks(rows * nq)
        .zip(out.par_chunks_mut(rows))
        .enumerate()
        .map(|(c, (q, o))| {
            let mut checker = template.clone();
            for (k, (q, o)) in q.chunks(nq).zip(o.iter_mut()).enumerate() {
                *o = checker.in_collision(q).map_err(|e| match e {
                    DistanceError::Kinematics { source, .. } => DistanceError::Kinematics {
                        state: c * rows + k,
                        source,
                    },
                    e => e,
                })?;
            }
            Ok(())
        })
        .collect();
    results.into_iter().collect()
}
