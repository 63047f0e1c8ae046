#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Guest instructions per I/O from make bench's TCG plugin counts.

insn-report.py RESULTS_DIR [profile]

Reads RESULTS_DIR/insn.bin (tests/bench/insn_plugin.c), insn.txt and
insn-kallsyms-<setup>-<round>.txt (tests/bench-guest.sh), attributes every
counted block start to the kernel text symbol at or below it (or to user
space) and prints, per job and setup, instructions per I/O in:
  own        the target module (ib_srpt; nvmet_rdma)
  path       own + LIO (target_core_mod, target_core_iblock) or nvmet, and
             the rdma_rw_* functions of ib_core
  rxe        rdma_rxe (the soft-RoCE device, both sides)
  initiator  ib_srp + scsi_transport_srp; nvme_rdma + nvme_fabrics + nvme_core
  kernel     the rest of the kernel
  user       user space (fio)
and the target module's LOCK-prefixed (atomic) instructions per I/O,
then the ratio lines ours/distro and ours/nvmet (round medians), the
spread between rounds for the own-module count, and with "profile" the
target module's functions per I/O (with their LOCK-prefixed instructions)
and the LIO and rdma_rw functions of the path. Ends with "insn: N passed, N failed":
a job with counts for ours and distro passes.
"""
import bisect
import collections
import os
import statistics
import struct
import sys

MAGIC = 0x4B52414D54505253
USER_END = 0x0000800000000000
OWN = {"ours": {"ib_srpt"}, "distro": {"ib_srpt"}, "nvmet": {"nvmet_rdma"}}
PATH = {"ours": {"target_core_mod", "target_core_iblock"},
        "distro": {"target_core_mod", "target_core_iblock"},
        "nvmet": {"nvmet"}}
INITIATOR = {"ours": {"ib_srp", "scsi_transport_srp"},
             "distro": {"ib_srp", "scsi_transport_srp"},
             "nvmet": {"nvme_rdma", "nvme_fabrics", "nvme_core"}}
COLS = ("own", "path", "rxe", "initiator", "kernel", "user", "total")


def read_marks(path):
    """mark number -> list of (vaddr, instructions, locked) since the previous mark"""
    marks = {}
    data = open(path, "rb").read()
    i, cur = 0, None
    while i + 24 <= len(data):
        a, b, c = struct.unpack_from("<QQQ", data, i)
        i += 24
        if cur is None:
            if a != MAGIC:
                raise SystemExit(f"insn: {path}: bad record at {i - 24}")
            cur = marks.setdefault(b, [])
        elif a == 0:
            cur = None
        else:
            cur.append((a, b, c))
    return marks


class Symbols:
    def __init__(self, path):
        rows = []
        for line in open(path):
            f = line.split()
            if len(f) < 3:
                continue
            mod = f[3].strip("[]") if len(f) > 3 else "kernel"
            rows.append((int(f[0], 16), f[2], mod))
        rows.sort()
        self.addr = [r[0] for r in rows]
        self.rows = rows

    def lookup(self, va):
        i = bisect.bisect_right(self.addr, va) - 1
        if i < 0:
            return ("?", "kernel")
        return self.rows[i][1:]


def classify(setup, name, mod):
    if mod in OWN[setup]:
        return "own"
    if mod in PATH[setup] or (mod == "ib_core" and name.startswith("rdma_rw_")):
        return "path"
    if mod == "rdma_rxe":
        return "rxe"
    if mod in INITIATOR[setup]:
        return "initiator"
    return "kernel"


def main():
    out = sys.argv[1]
    profile = len(sys.argv) > 2 and sys.argv[2] == "profile"
    try:
        marks = read_marks(os.path.join(out, "insn.bin"))
        runs = [l.split() for l in open(os.path.join(out, "insn.txt")) if l.strip()]
    except OSError as e:
        print(f"insn: no instruction counts ({e})")
        print("insn: 0 passed, 1 failed")
        return 1
    syms = {}
    per = collections.defaultdict(list)     # (setup, job) -> [per-I/O dict]
    funcs = collections.defaultdict(collections.Counter)  # (setup, job) -> name -> insns/I/O (summed over rounds)
    funcs_locked = collections.defaultdict(collections.Counter)  # the same for LOCK-prefixed
    funcs_path = collections.defaultdict(collections.Counter)  # LIO and rdma_rw functions
    nrounds = collections.Counter()
    jobs = []
    for setup, rnd, job, mark, ios in runs:
        if job not in jobs:
            jobs.append(job)
        ios = int(ios)
        key = (setup, rnd)
        if key not in syms:
            syms[key] = Symbols(os.path.join(out, f"insn-kallsyms-{setup}-{rnd}.txt"))
        s = syms[key]
        c = collections.Counter()
        cache = {}
        for va, n, locked in marks.get(int(mark), []):
            if va < USER_END:
                c["user"] += n
                continue
            if va not in cache:
                name, mod = s.lookup(va)
                cache[va] = (classify(setup, name, mod), name)
            cls, name = cache[va]
            c[cls] += n
            if cls == "own":
                funcs[(setup, job)][name] += n / ios
                funcs_locked[(setup, job)][name] += locked / ios
                c["own-locked"] += locked
            elif cls == "path":
                funcs_path[(setup, job)][name] += n / ios
        c["path"] += c["own"]
        c["total"] = sum(c[k] for k in ("path", "rxe", "initiator", "kernel", "user"))
        per[(setup, job)].append({k: c[k] / ios for k in COLS + ("own-locked",)})
        nrounds[(setup, job)] += 1

    def med(setup, job, col):
        v = [d[col] for d in per.get((setup, job), [])]
        return statistics.median(v) if v else None

    setups = [m for m in ("ours", "distro", "nvmet") if any(k[0] == m for k in per)]
    print("Guest instructions per I/O (median of rounds; TCG plugin counts, not time)")
    print(f"{'job':<20} {'setup':<7} " + " ".join(f"{c:>10}" for c in COLS))
    for job in jobs:
        for m in setups:
            if (m, job) not in per:
                continue
            print(f"{job:<20} {m:<7} " +
                  " ".join(f"{med(m, job, c):>10.0f}" for c in COLS))
    print()
    print("LOCK-prefixed (atomic) instructions per I/O in the target module")
    for job in jobs:
        print(f"  {job:<20} " + "  ".join(
            f"{m} {med(m, job, 'own-locked'):.1f}" for m in setups if (m, job) in per))
    print()
    print("Repeatability: own-module instructions per I/O in each round")
    for job in jobs:
        for m in setups:
            v = [d["own"] for d in per.get((m, job), [])]
            if len(v) > 1 and min(v) > 0:
                print(f"  {job:<20} {m:<7} " + " ".join(f"{x:.0f}" for x in v) +
                      f"  spread {100 * (max(v) - min(v)) / min(v):.2f}%")
    print()
    passed = failed = 0
    for job in jobs:
        o, d = med("ours", job, "own"), med("distro", job, "own")
        if o is None or d is None or not d:
            print(f"ratio insn-{job}-own n/a")
            failed += 1
            continue
        passed += 1
        print(f"ratio insn-{job}-own {o / d:.3f}")
        print(f"ratio insn-{job}-path {med('ours', job, 'path') / med('distro', job, 'path'):.3f}")
        n = med("nvmet", job, "own")
        if n:
            print(f"ratio insn-{job}-own-vs-nvmet {o / n:.3f}")
            print(f"ratio insn-{job}-path-vs-nvmet "
                  f"{med('ours', job, 'path') / med('nvmet', job, 'path'):.3f}")
    if profile:
        for (m, job), fc in sorted(funcs.items()):
            print(f"\nprofile {m} {job}: target-module functions, instructions "
                  "(LOCK-prefixed) per I/O")
            r = nrounds[(m, job)]
            for name, v in fc.most_common(15):
                lk = funcs_locked[(m, job)][name] / r
                print(f"  {v / r:10.1f}  {name}" + (f"  ({lk:.1f})" if lk else ""))
            print(f"profile {m} {job}: LIO and rdma_rw functions, instructions per I/O")
            for name, v in funcs_path[(m, job)].most_common(12):
                print(f"  {v / r:10.1f}  {name}")
    print(f"insn: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
