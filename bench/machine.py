"""Prints the machine description of a benchmark run as one JSON line: CPU (`lscpu`), memory,
rustc and MuJoCo versions, git commit, load average. With `--end`: only the time and the load
average at the end of the run."""
import json
import os
import subprocess
import sys
import time


def sh(*cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def main():
    now = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load = os.getloadavg()
    if "--end" in sys.argv:
        print(json.dumps({"end": now, "load_end": load}))
        return
    cpu = {}
    for line in sh("lscpu").splitlines():
        k, _, v = line.partition(":")
        cpu[k.strip()] = v.strip()
    mem = ""
    for line in open("/proc/meminfo") if os.path.exists("/proc/meminfo") else []:
        if line.startswith("MemTotal:"):
            mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    try:
        import mujoco
        mj = mujoco.__version__
    except ImportError:
        mj = "not installed"
    print(json.dumps({
        "start": now,
        "cpu": cpu.get("Model name", "?"),
        "cpus": cpu.get("CPU(s)", "?"),
        "threads_per_core": cpu.get("Thread(s) per core", "?"),
        "mhz": cpu.get("CPU max MHz", cpu.get("CPU MHz", "?")),
        "l2": cpu.get("L2 cache", "?"),
        "l3": cpu.get("L3 cache", "?"),
        "memory": mem,
        "os": sh("uname", "-sr"),
        "rustc": sh("rustc", "-V"),
        "mujoco": mj,
        "commit": sh("git", "rev-parse", "--short", "HEAD") + (" (dirty)" if sh("git", "status", "--porcelain", "--untracked-files=no") else ""),
        "load_start": load,
    }))


if __name__ == "__main__":
    main()
