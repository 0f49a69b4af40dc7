#!/usr/bin/env python3
"""report-demo.py: the trace of doc/report.md's screenshots, as a
ts-tracegen script on standard output: 27 ranks, 22 regions (main, 12 of
the program's own, 9 MPI calls), a LULESH-like run whose MPI_Init takes a
third of it, then 6 steps of 12 kernels, a ring halo exchange
(MPI_Irecv/MPI_Isend/MPI_Wait) and an MPI_Allreduce, with an MPI_Bcast,
an MPI_Reduce and an MPI_Barrier now and then. Rank 13 spends 2.5x longer
in CalcForce: the others wait for it at every MPI_Allreduce.
Run: python3 tools/report-demo.py > demo.script
     ts-tracegen script demo.script -o demo"""
P = 27
KERNELS = [("CalcForce", 9.0), ("EvalEOS", 6.0), ("CalcHourglassControlForElems", 4.6),
           ("IntegrateStressForElems", 3.9), ("CalcKinematicsForElems", 3.1),
           ("CalcQForElems", 2.5), ("ApplyMaterialPropertiesForElems", 2.0),
           ("CalcEnergyForElems", 1.6), ("CalcPressureForElems", 1.25),
           ("CalcSoundSpeedForElems", 1.0), ("UpdateVolumesForElems", 0.8),
           ("CalcTimeConstraintsForElems", 0.6)]
MS = 1e-3
lines = ["ranks %d" % P]
clock = [0.0] * P
ev = [[] for _ in range(P)]


def at(r, t, what):
    clock[r] = max(clock[r], t)
    ev[r].append("%d %.9f %s" % (r, clock[r], what))


def collective(name, op, extra, cost):
    for r in range(P):
        at(r, clock[r], "enter " + name)
        at(r, clock[r], "coll_begin")
    end = max(clock) + cost
    for r in range(P):
        at(r, end, "coll_end %s %s" % (op, extra))
        at(r, end, "leave " + name)


for r in range(P):
    at(r, 0.0, "enter main")
    at(r, 0.0, "enter MPI_Init")
    at(r, 0.30 + r * 0.0004, "leave MPI_Init")
req = 0
for step in range(6):
    for r in range(P):
        for name, ms in KERNELS:
            k = 2.5 if (name == "CalcForce" and r == 13) else 1.0
            at(r, clock[r], "enter " + name)
            at(r, clock[r] + ms * MS * k * (1 + 0.03 * ((r * 7 + step) % 5)), "leave " + name)
    # Ring halo: receive from the left, send to the right, wait for both.
    sent = [0.0] * P
    for r in range(P):
        req += 2
        at(r, clock[r], "enter MPI_Irecv")
        at(r, clock[r] + 2e-6, "irecv_request req=%d" % req)
        at(r, clock[r], "leave MPI_Irecv")
        at(r, clock[r], "enter MPI_Isend")
        at(r, clock[r] + 3e-6, "isend %d tag=%d bytes=65536 req=%d" % ((r + 1) % P, step, req + 1))
        sent[r] = clock[r]
        at(r, clock[r], "leave MPI_Isend")
        at(r, clock[r], "enter MPI_Wait")
    for r in range(P):
        left = (r - 1) % P
        done = max(clock[r], sent[left] + 0.0004)
        at(r, done, "irecv %d tag=%d bytes=65536 req=%d" % (left, step, req - 2 * P + 2 * r + 2))
        at(r, done, "isend_complete req=%d" % (req - 2 * P + 2 * r + 3))
        at(r, done, "leave MPI_Wait")
    collective("MPI_Allreduce", "allreduce", "comm=world root=none sent=8 recv=8", 60e-6)
    if step % 2 == 0:
        collective("MPI_Bcast", "bcast", "comm=world root=0 sent=4096 recv=4096", 150e-6)
    if step % 3 == 2:
        collective("MPI_Reduce", "reduce", "comm=world root=0 sent=800 recv=800", 120e-6)
collective("MPI_Barrier", "barrier", "comm=world root=none", 40e-6)
for r in range(P):
    at(r, clock[r], "enter MPI_Finalize")
    at(r, clock[r] + 0.004, "leave MPI_Finalize")
    at(r, clock[r], "leave main")
print("\n".join(lines + [e for r in range(P) for e in ev[r]]))
