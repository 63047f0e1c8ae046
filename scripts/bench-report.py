#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Report of `make bench` (scripts/bench.sh) from the guest's result files.

usage: bench-report.py OUT_DIR "SETUPS" VM_RC KVER MAIN SCALE PROFILE

OUT_DIR holds bench.txt, and scale.txt / profile.txt when those parts ran
(formats: tests/bench-guest.sh). Prints the tables, the ratio lines and
"N passed, N failed"; exits 1 on any failure.
"""
import os
import statistics as st
import sys

out, modules, vmrc, kver = sys.argv[1], sys.argv[2].split(), int(sys.argv[3]), sys.argv[4]
main, scale, profile = (a == "1" for a in sys.argv[5:8])
rows, wire = {}, {}
order, failed, notes = [], [], []


def read(name):
    try:
        with open(os.path.join(out, name)) as f:
            return f.read().split("\n")
    except OSError:
        return []


for ln in read("bench.txt"):
    f = ln.split()
    if len(f) != 7:
        continue
    m, r, j = f[0], int(f[1]), f[2]
    iops, mbs, lat, cpu = map(float, f[3:])
    if m == "wire":
        wire.setdefault(j, {})[r] = mbs or lat
        continue
    if j == "skipped":
        notes.append(f"{m} skipped in round {r}: ib_srpt stuck in the kernel")
        continue
    if j == "setup-failed":
        if m == "ours":
            notes.append(f"our module did not load/serve in round {r}: no ratios from that round")
        else:
            failed.append(f"{m} round {r}: setup failed")
        continue
    if iops == 0:
        failed.append(f"{m} round {r} {j}: fio failed")
        continue
    if j not in order:
        order.append(j)
    rows.setdefault((m, j), {})[r] = (iops, mbs, lat, cpu)


def kind(j):
    return "lat" if j.endswith("-qd1") else ("mbs" if "-1m-" in j else "iops")


def med(vals):
    return st.median(vals) if vals else float("nan")


def spread(rs):
    return f"{med(rs):.2f} ({min(rs):.2f}..{max(rs):.2f})"


def ratios(j, a, b, idx):
    da, db = rows.get((a, j), {}), rows.get((b, j), {})
    return [da[r][idx] / db[r][idx] for r in da if r in db and db[r][idx] > 0]


def wire_ref(j):
    """perftest result that bounds job j, and its conversion."""
    if kind(j) == "lat":
        return "ib_send_lat", lambda v: 2 * v      # one-way -> round trip
    if j.startswith("read-1m"):
        return "ib_write_bw", lambda v: v          # data-in: target RDMA WRITEs
    if j.startswith("write-1m"):
        return "ib_read_bw", lambda v: v           # data-out: target RDMA READs
    return None, None


passed = 0
ratio_lines = []
if main:
    print(f"bench results (KVER={kver}; median over rounds; ratios: median (min..max) over rounds)")
    hdr = f"{'job':<19} {'setup':<7} {'IOPS':>8} {'MB/s':>8} {'lat us':>9} {'cpu us/IO':>10}"
    print(hdr)
    print("-" * len(hdr))
    for j in order:
        idx = {"iops": 0, "mbs": 1, "lat": 2}[kind(j)]
        what = {"iops": "IOPS", "mbs": "MB/s", "lat": "latency"}[kind(j)]
        for m in modules:
            d = rows.get((m, j), {})
            if not d:
                print(f"{j:<19} {m:<7} {'-':>8} {'-':>8} {'-':>9} {'-':>10}")
                continue
            passed += 1
            v = list(zip(*d.values()))
            print(f"{j:<19} {m:<7} {med(v[0]):8.0f} {med(v[1]):8.2f} {med(v[2]):9.1f} {med(v[3]):10.1f}")
        if not rows.get(("ours", j)):
            ratio_lines.append(f"ratio {j} n/a")
            continue
        seen_distro = False
        for b, label in (("distro", "ours/distro"), ("nvmet", "ours/nvmet"),
                         ("bare", "ours/bare null_blk")):
            rs = ratios(j, "ours", b, idx)
            if not rs:
                continue
            line = f"    {label:<19} {what} {spread(rs)}"
            cr = ratios(j, "ours", b, 3)
            if cr and b != "bare":
                line += f", cpu/IO {spread(cr)}"
            print(line)
            if b == "distro":
                seen_distro = True
                ratio_lines.append(f"ratio {j} {med(rs):.3f}")
            elif b == "nvmet":
                ratio_lines.append(f"ratio {j}-vs-nvmet {med(rs):.3f}")
        if not seen_distro:
            ratio_lines.insert(0, f"ratio {j} n/a")
        tool, conv = wire_ref(j)
        if tool in wire:
            d = rows["ours", j]
            rs = [d[r][idx] / conv(wire[tool][r]) for r in d
                  if r in wire[tool] and wire[tool][r] > 0]
            if rs:
                unit = "vs 2 x one-way latency" if kind(j) == "lat" else "vs MB/s"
                print(f"    {'ours/' + tool:<19} {what} {spread(rs)}  ({unit})")
    if wire:
        print("perftest over the same rxe device (RDMA/CM, loopback), median over rounds:")
        for t, d in sorted(wire.items()):
            unit = "us one-way, 64 B" if t.endswith("_lat") else "MB/s, 1 MiB"
            vals = list(d.values())
            print(f"    {t:<12} {med(vals):9.2f} {unit}  ({min(vals):.2f}..{max(vals):.2f})")
    for n in notes:
        print(f"note: {n}")
    if not order:
        failed.append("no measurement")

if scale:
    srows = [ln.split() for ln in read("scale.txt") if len(ln.split()) == 7]
    print()
    print("scaling: 4k random read, total QD32 (2 fio jobs x QD16 over all disks); memory")
    print("from MemFree and /proc/slabinfo before/after the logins (initiator + target)")
    hdr = (f"{'module':<7} {'ch':>3} {'luns':>4} {'IOPS':>7} {'mem KiB':>8} {'slab KiB':>8}"
           f" {'slots':>6} {'KiB/ch':>7} {'B/slot':>7}")
    print(hdr)
    print("-" * len(hdr))
    for m, ch, lun, iops, mem, slab, slots in srows:
        ch, lun, iops, mem, slab, slots = map(int, (ch, lun, iops, mem, slab, slots))
        if iops == 0:
            failed.append(f"scale {m} ch={ch} luns={lun}")
            print(f"{m:<7} {ch:>3} {lun:>4} {'failed':>7}")
            continue
        passed += 1
        per_slot = mem * 1024 / slots if slots else 0
        print(f"{m:<7} {ch:>3} {lun:>4} {iops:>7} {mem:>8} {slab:>8} {slots:>6}"
              f" {mem / ch:>7.0f} {per_slot:>7.0f}")
    if not srows:
        failed.append("scale: no measurement")

if profile:
    prof, ios = {}, {}
    for ln in read("profile.txt"):
        f = ln.split()
        if len(f) == 5 and f[0] == "#":
            ios[f[1], f[2]] = f[4]
        elif len(f) == 4:
            prof.setdefault((f[0], f[1]), {})[f[2]] = f[3]
    print()
    print("profile: events per I/O in the whole guest (initiator + target; cpu-clock: ms per I/O)")
    mods = [m for m in ("ours", "distro") if any(k[0] == m for k in prof)]
    for j in sorted({k[1] for k in prof}):
        evs = []
        for m in mods:
            for e in prof.get((m, j), {}):
                if e not in evs:
                    evs.append(e)
        print(f"  {j}: " + ", ".join(f"{m} {ios.get((m, j), '?')} I/Os" for m in mods))
        print(f"    {'event':<36}" + "".join(f" {m:>10}" for m in mods))
        for e in evs:
            print(f"    {e:<36}" + "".join(f" {prof.get((m, j), {}).get(e, '-'):>10}" for m in mods))
    if not prof:
        failed.append("profile: no measurement")
    else:
        passed += 1

for f in failed:
    print(f"failed: {f}")
if vmrc != 0:
    failed.append(f"guest: vm.sh exited {vmrc}")
    print(f"failed: guest run (vm.sh exited {vmrc}; see console.log)")
print()
for ln in ratio_lines:
    print(ln)
print(f"{passed} passed, {len(failed)} failed")
sys.exit(1 if failed else 0)
