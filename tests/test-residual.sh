#!/bin/sh
# --residual: what the replay does with the time MPI calls spent beyond
# their cost, waiting and transfer (doc/architecture.md, "Three kinds of
# time").
#
# The trace (generated below, derived by hand): rank 0 makes 4000 eager
# 8-byte MPI_Isend to rank 1, each followed by an MPI_Wait of no duration
# and 1e-4 s in region "work". An MPI_Isend takes 1e-6 s, except every
# tenth (k = 9, 19, ...), which takes 1.001e-3 s: 400 detours of
# 1.001e-3 - 1e-6 = 1e-3 s beyond the fastest MPI_Isend (1e-6, its work,
# charged before every call). Rank 1 receives each message as it comes.
# - Rank 0's work: 4000 x 1e-6 + 4000 x 1e-4 = 0.404 s; its residual
#   400 x 1e-3 = 0.4 s; nothing simulated (it never waits). It ends at
#   0.804 s, the runtime (pinned, the default).
# - none: the residual is gone: 0.404 s, 0.4 s earlier.
# - noise: every MPI_Isend draws a detour at the rank's detour rate so far
#   (1 in 10 once warm) with their mean length (1e-3 s): expected
#   sum_j floor(j/10)/j x 1e-3 over j = 1..4000 = 0.3965 s, standard
#   deviation about 0.03 s (16 seeds: mean 0.394, sd 0.033): within 0.1 s.
#   The detours no longer fall on every tenth call. The same seed gives
#   the same prediction; another seed another.
# - A hypothesis file's [residual] mode does the same, unless --residual
#   says otherwise.
# - The default in a changed run. This trace does not say whether its ranks
#   had cores of their own: a what-if ("work" 2x faster) keeps the residual
#   pinned. The same trace saying so (a node of one core per rank) scales
#   it with the work in the what-if: rank 0 owes its residual times its
#   work charged over recorded, 0.4 x (4000 x 1e-6 + 4000 x 0.5e-4) / 0.404
#   = 0.4 x 0.204 / 0.404 = 0.201980 s, paid over the work as it goes
#   (every call at most the rate so far, 0.4 / 0.404 at the end, times the
#   0.51e-4 s of work since the last: no call pays 0.1 ms) and the rest at
#   the end: it ends at 0.204 + 0.201980 = 0.405980 s, the runtime (rank
#   1's last receive is earlier). Pinned it would end at 0.204 + 0.4. Its
#   identity replay stays pinned.
. "${top_srcdir:-.}/tests/lib.sh"
fresh_work residual

python3 - "$work/trace.script" <<'PY'
import sys
r0, r1 = ["0 0.0 enter main"], ["1 0.0 enter main"]
t = t1 = 0.0
for k in range(4000):
    d = 1.001e-3 if k % 10 == 9 else 1e-6
    r0 += ["0 %.9f enter MPI_Isend" % t, "0 %.9f isend 1 bytes=8 req=%d" % (t, k + 1)]
    sent, t = t, t + d
    r0 += ["0 %.9f leave MPI_Isend" % t, "0 %.9f enter MPI_Wait" % t,
           "0 %.9f isend_complete req=%d" % (t, k + 1), "0 %.9f leave MPI_Wait" % t,
           "0 %.9f enter work" % t]
    t += 1e-4
    r0.append("0 %.9f leave work" % t)
    arrived = max(t1, sent + 2e-6)
    r1 += ["1 %.9f enter MPI_Recv" % t1, "1 %.9f recv 0 bytes=8" % arrived,
           "1 %.9f leave MPI_Recv" % arrived]
    t1 = arrived
r0.append("0 %.9f leave main" % t)
r1.append("1 %.9f leave main" % t1)
open(sys.argv[1], "w").write("ranks 2\n" + "\n".join(r0 + r1) + "\n")
PY
"$builddir/ts-tracegen" script "$work/trace.script" -o "$work/t" > /dev/null || fail "ts-tracegen"
sed '1a node a 0 cores=1\nnode b 1 cores=1' "$work/trace.script" > "$work/own.script"
"$builddir/ts-tracegen" script "$work/own.script" -o "$work/own" > /dev/null || fail "ts-tracegen own"
trace=$work/t/traces.otf2
for m in pinned none noise; do
  "$tracesim" run "$trace" -o "$work/$m" -q --no-wait-states --residual $m || fail "run --residual $m"
done
"$tracesim" run "$trace" -o "$work/noise-again" -q --no-wait-states --residual noise \
  || fail "run --residual noise again"
"$tracesim" run "$trace" -o "$work/noise-seed" -q --no-wait-states --residual noise --seed 7 \
  || fail "run --residual noise --seed 7"

# Every rank's three kinds add up to its end, in every mode.
for m in pinned none noise noise-seed; do
  python3 - "$work/$m/summary.json" <<'PY' || fail "$m: the kinds do not add up"
import json, sys
p = json.load(open(sys.argv[1]))["predicted"]
for r, end in enumerate(p["rank_end_s"]):
    total = p["work_s"][r] + p["simulated_s"][r] + p["residual_s"][r]
    if abs(total - end) > 1e-9:
        sys.exit("rank %d: %r + %r + %r != %r" % (r, p["work_s"][r], p["simulated_s"][r],
                                                  p["residual_s"][r], end))
PY
done

s=$work/pinned/summary.json
near "$(value "$s" 's["predicted"]["work_s"][0]')" 0.404 1e-6 || fail "pinned: rank 0's work is not 0.404 s"
near "$(value "$s" 's["predicted"]["residual_s"][0]')" 0.4 1e-6 || fail "pinned: rank 0's residual is not 0.4 s"
near "$(value "$s" 's["predicted"]["runtime_s"]')" 0.804 1e-6 || fail "pinned: runtime is not 0.804 s"
near "$(value "$s" '[r["residual_s"] for r in s["regions"] if r["name"] == "MPI_Isend"][0]')" 0.4 1e-6 \
  || fail "pinned: MPI_Isend does not carry the residual"
[ "$(value "$s" 's["inputs"]["options"]["residual"]')" = "'pinned'" ] || fail "summary does not say pinned"

s=$work/none/summary.json
near "$(value "$s" 's["predicted"]["residual_s"][0]')" 0 1e-9 || fail "none: a residual is left"
near "$(value "$s" 's["predicted"]["runtime_s"]')" 0.404 1e-6 || fail "none: runtime is not 0.404 s"

s=$work/noise/summary.json
near "$(value "$s" 's["predicted"]["residual_s"][0]')" 0.3965 0.1 \
  || fail "noise: rank 0's residual $(value "$s" 's["predicted"]["residual_s"][0]') is not near 0.3965 s"
python3 - "$work/noise/summary.json" "$work/noise-again/summary.json" "$work/noise-seed/summary.json" <<'PY' \
  || fail "noise: not reproducible, or the seed changes nothing"
import json, sys
a, b, c = (json.load(open(f))["predicted"] for f in sys.argv[1:])
sys.exit(a != b or a["residual_s"] == c["residual_s"])
PY
# Where the detours fell: MPI_Isend calls of rank 0 that took over 0.1 ms in
# the predicted timeline, by their number. Pinned, exactly the tenth ones.
detours() {
  otf2-print "$1/predicted/traces.otf2" | awk '
    $2 == 0 && $1 == "ENTER" && /"MPI_Isend"/ { t = $3 }
    $2 == 0 && $1 == "LEAVE" && /"MPI_Isend"/ { if ($3 - t > 100000) print k; k++ }'
}
[ "$(detours "$work/pinned" | awk '$1 % 10 != 9' | wc -l)" -eq 0 ] || fail "pinned: a detour moved"
[ "$(detours "$work/pinned" | wc -l)" -eq 400 ] || fail "pinned: not 400 detours"
moved=$(detours "$work/noise" | awk '$1 % 10 != 9' | wc -l)
[ "$moved" -gt 100 ] || fail "noise: only $moved detours away from the calls that had them"
# The same as a what-if: a hypothesis file's [residual] mode, which
# --residual overrides; a mode it does not know is refused at its line.
printf '# what if the noise were gone\n[residual]\nmode = none\n' > "$work/quiet.hyp"
printf '[residual]\nmode = noise\n' > "$work/noisy.hyp"
printf '[residual]\nmode = silent\n' > "$work/bad.hyp"
"$tracesim" run "$trace" -H "$work/quiet.hyp" -o "$work/hyp-none" -q --no-wait-states \
  || fail "run -H quiet.hyp"
near "$(value "$work/hyp-none/summary.json" 's["predicted"]["runtime_s"]')" 0.404 1e-6 \
  || fail "[residual] mode = none: runtime is not 0.404 s"
[ "$(value "$work/hyp-none/summary.json" 's["inputs"]["options"]["residual"]')" = "'none'" ] \
  || fail "summary does not say none for [residual] mode = none"
"$tracesim" run "$trace" -H "$work/quiet.hyp" --residual pinned -o "$work/hyp-pinned" -q \
  --no-wait-states || fail "run -H quiet.hyp --residual pinned"
near "$(value "$work/hyp-pinned/summary.json" 's["predicted"]["runtime_s"]')" 0.804 1e-6 \
  || fail "--residual pinned does not override [residual] mode = none"
"$tracesim" run "$trace" -H "$work/noisy.hyp" -o "$work/hyp-noise" -q --no-wait-states \
  || fail "run -H noisy.hyp"
[ "$(value "$work/hyp-noise/summary.json" 's["predicted"]["residual_s"]')" \
  = "$(value "$work/noise/summary.json" 's["predicted"]["residual_s"]')" ] \
  || fail "[residual] mode = noise differs from --residual noise"
if "$tracesim" run "$trace" -H "$work/bad.hyp" -o "$work/hyp-bad" -q 2> "$work/bad.err"; then
  fail "mode = silent accepted"
fi
grep -q "bad.hyp:2: \[residual\] mode takes pinned, noise, none or scaled, not 'silent'" "$work/bad.err" \
  || fail "mode = silent: $(cat "$work/bad.err")"
[ ! -e "$work/hyp-bad" ] || fail "a refused run wrote its output directory"

# The default in a changed run: pinned where the trace does not say whether
# its ranks had cores of their own, scaled where it says they had.
printf '[region:work]\nscale = 0.5\n' > "$work/faster.hyp"
"$tracesim" run "$trace" -H "$work/faster.hyp" -o "$work/unknown-faster" -q --no-wait-states \
  || fail "run -H faster.hyp"
s=$work/unknown-faster/summary.json
[ "$(value "$s" 's["inputs"]["options"]["residual"]')" = "'pinned'" ] \
  || fail "a what-if of a trace without cores is not pinned"
near "$(value "$s" 's["predicted"]["runtime_s"]')" 0.604 1e-6 || fail "unknown cores, faster: not 0.604 s"
own=$work/own/traces.otf2
"$tracesim" run "$own" -o "$work/own-identity" -q --no-wait-states || fail "run own"
[ "$(value "$work/own-identity/summary.json" 's["inputs"]["options"]["residual"]')" = "'pinned'" ] \
  || fail "an identity replay is not pinned"
"$tracesim" run "$own" -H "$work/faster.hyp" -o "$work/own-faster" -q || fail "run own -H faster.hyp"
s=$work/own-faster/summary.json
[ "$(value "$s" 's["inputs"]["options"]["residual"]')" = "'scaled'" ] \
  || fail "a what-if of a trace with a core per rank is not scaled"
near "$(value "$s" 's["predicted"]["residual_s"][0]')" 0.201980 1e-6 \
  || fail "scaled: rank 0's residual $(value "$s" 's["predicted"]["residual_s"][0]') is not 0.201980 s"
near "$(value "$s" 's["predicted"]["runtime_s"]')" 0.405980 1e-6 \
  || fail "scaled: runtime $(value "$s" 's["predicted"]["runtime_s"]') is not 0.405980 s"
[ "$(detours "$work/own-faster" | wc -l)" -eq 0 ] || fail "scaled: a call still pays a detour"
"$tracesim" info "$own" > "$work/own.info" || fail "info own"
grep -q "a what-if scales it with each rank's work (--residual scaled)" "$work/own.info" \
  || fail "info does not say a what-if scales the residual: $(cat "$work/own.info")"
"$tracesim" info "$trace" > "$work/unknown.info" || fail "info"
grep -q "a what-if keeps it where the trace had it: the trace does not say" "$work/unknown.info" \
  || fail "info does not say why a what-if keeps the residual"
echo "residual: pinned, none, noise and scaled as derived ($moved noise detours on other calls)"
