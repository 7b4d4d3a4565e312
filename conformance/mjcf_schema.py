"""Writes MuJoCo 4.0.0's MJCF schema, as `mujoco.mj_printSchema` prints it (plain text: one
element per line, indented three spaces per level, its multiplicity in parentheses — `!` once,
`?` at most once, `*` any number, `R` any number and recursive — then its attributes, continued
on lines of their own), to crates/collide-mjcf/src/mjcf_schema.txt, which the MJCF loader
checks documents against.

Usage: conformance/.venv/bin/python conformance/mjcf_schema.py
"""
from pathlib import Path

import mujoco

OUT = Path(__file__).resolve().parents[1] / "crates" / "collide-mjcf" / "src" / "mjcf_schema.txt"


def main() -> None:
    assert mujoco.__version__ == "4.0.0", mujoco.__version__
    text = mujoco.mj_printSchema(False, False)
    OUT.write_text("".join(line.rstrip() + "\n" for line in text.splitlines()))
    print(f"wrote {OUT} ({len(text)} characters)")


if __name__ == "__main__":
    main()
