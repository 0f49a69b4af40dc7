#!/usr/bin/env python3
"""Every example in README and doc/*.md, run as written.

What counts as an example, in a document:
- a ```sh block: commands, one a line (a trailing `\\` continues it);
- a ```ini block whose first line is `# NAME`: the file NAME, written
  before the document's commands run (a reader writes it before typing
  the commands that use it);
- a ```text block: a listing or a picture, not run;
- any other ``` block fails the test (an example nobody runs);
- in README, and in indented blocks of a document, a line that starts with
  a command a user types (tracesim, mpirun, sbatch, ts-tracegen).
A `#` that starts a word ends the command, as in the shell.

The examples of one document run in order in one directory of their own,
so that `tracesim report out/` finds the `out/` an earlier example wrote.
What the documents call app/traces.otf2 (or TRACE) is a small generated
trace with the regions they name; what else they take for granted (a
platform, traces at other rank counts) is made first, as PREP declares;
stand-ins (`./app`, `mpirun -np`, `sbatch`) are replaced as SUBSTITUTIONS
declares, each with its reason. An example that cannot run here is in
NOT_RUN with the reason; an entry there that matches nothing fails the
test, so the list cannot go stale.

Usage: doc-examples.py SRCDIR BUILDDIR [--doc DOC]... [--skip DOC]...
                       [--keep DIR] [--list]
  --doc     only these documents (default: README and every doc/*.md)
  --skip    not these (a document whose own test runs it)
  --keep    run in DIR (made empty first) and leave it for the caller's
            checks (one document only)
  --list    print each command as it would run, run nothing
Exit status: 0 when every example exited 0, 1 otherwise (each failure
named: document, line, command, its output).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

COMMANDS = ("tracesim", "mpirun", "sbatch", "ts-tracegen")

# (pattern, replacement, why), applied in order to every command.
SUBSTITUTIONS = [
    (r"\bTRACE\b", "app/traces.otf2", "TRACE: the trace the user has"),
    (r"\bOUT/", "out/", "OUT/: the output directory the user names"),
    (r"\./app( args)?(?=\s|$)", "{builddir}/tests/mpi-halo",
     "./app: a real MPI program, the suite's halo exchange (tests/mpi/halo.c)"),
    (r"\btracesim-record\b", "{builddir}/recorder/tracesim-record", "the build tree's recorder"),
    (r"^mpirun -np (\d+)", r"{mpiexec} -n \1", "the MPI launcher configure found"),
    (r"^tracesim extrapolate \.\.\. ",
     "tracesim extrapolate app.np4/traces.otf2 app.np9/traces.otf2 app.np16/traces.otf2 "
     "--ranks 1024 -o app.np1024/ ", "'...': the inputs of the example above it"),
    (r"^(tracesim sweep ranks\.sweep .*)$", r"\1 --dry-run",
     "a sweep to 1,024 ranks: its points listed, not run"),
    (r"^sbatch ", "{bin}/sbatch ", "sbatch: the array's tasks run here one after the other"),
    (r"--from 290ms --to 420ms", "--from 10ms --to 20ms",
     "a time window: the documents' is the demo trace's, inside the 40 ms of app/traces.otf2"),
]

# (document, regular expression on the command as written, why not run).
NOT_RUN = [
    ("README", r"^sh setup\.sh", "the README's set-up commands are what CI runs around this test"),
    # A 30-minute fuzzing campaign in the build tree; tests/test-fuzz.sh
    # builds the same targets and runs each on its corpus.
    ("doc/fuzzing.md", r"^make fuzz$", "builds the fuzz targets in the build tree"),
    ("doc/fuzzing.md", r"^cd tests/work ", "the campaign's seeds, in the build tree"),
    ("doc/fuzzing.md", r"^ASAN_OPTIONS=", "the campaign itself: 1800 s"),
]

# What the examples take for granted, per document, each with its reason.
# Every document starts from PREP[None]; {doc:NAME} is a file block of any
# document.
PREP = {
    None: ["ts-tracegen script app.script -o app"],
    "README": [
        "tracesim platform --nodes 9 --cores 4 -o cluster.xml",   # a platform the user has, 36 cores
        "cp {doc:faster-solver.hyp} faster.hyp",                   # any hypothesis file
        # doc/sweeps.md's sweep, on a 4-rank trace (its clusters have 4 slots and up)
        "cp {doc:solver.sweep} {doc:solver.hyp.in} {doc:cluster.ini.in} .",
        "ts-tracegen stencil -o app4 --ranks 4 --iterations 10 && sed -i s,app/,app4/, solver.sweep",
        # the same program traced at three rank counts
        "for p in 4 9 16; do ts-tracegen grid -o np$p --ranks $p --iterations 4; done",
    ],
    "doc/hypotheses.md": [
        # a.hyp and b.hyp: two hypothesis files, applied one after the other
        "cp {doc:faster-solver.hyp} a.hyp && printf '[hosts]\\nspeed = 1.25\\n' > b.hyp",
    ],
    "doc/extrapolation.md": [
        "for p in 4 9 16; do ts-tracegen grid -o app.np$p --ranks $p --iterations 4; done",
        "tracesim platform --nodes 128 --cores 8 -o big.xml",     # room for 1,024 ranks
    ],
    "doc/recorder.md": [
        # CPU-time recordings at 4, 8 and 16 ranks, to extrapolate from
        "for p in 4 8 16; do {mpiexec} -n $p {builddir}/recorder/tracesim-record --cpu-time"
        " -o t$p {builddir}/tests/mpi-halo; done",
    ],
    "doc/report.md": [
        "cp {doc:faster-solver.hyp} faster.hyp",
        "tracesim advise app/traces.otf2 --top 2 -o advice/",      # an advise run made before
        "cp {doc:solver.sweep} {doc:solver.hyp.in} {doc:cluster.ini.in} .",
        "ts-tracegen stencil -o app4 --ranks 4 --iterations 10 && sed -i s,app/,app4/, solver.sweep",
        "tracesim sweep solver.sweep -o results/ -j 2",             # a sweep made before
    ],
    "doc/sweeps.md": [
        "rm -rf app && ts-tracegen stencil -o app --ranks 4 --iterations 10",
        "for p in 4 8 16; do ts-tracegen stencil -o app.np$p --ranks $p --iterations 10; done",
    ],
}

# `sbatch SCRIPT`: the array's tasks, one after the other, as Slurm runs
# them (SLURM_ARRAY_TASK_ID from its #SBATCH --array=0-N).
SBATCH = r"""#!/bin/sh
last=$(sed -n 's/^#SBATCH --array=0-\([0-9]*\).*/\1/p' "$1")
[ -n "$last" ] || { echo "sbatch: no #SBATCH --array=0-N in $1" >&2; exit 1; }
k=0
while [ "$k" -le "$last" ]; do
  SLURM_ARRAY_TASK_ID=$k sh "$1" || exit 1
  k=$((k + 1))
done
echo "Submitted batch job 1 ($((last + 1)) tasks, run here)"
"""


def app_script(ranks=36, iterations=4):
    """app/traces.otf2: a ring halo exchange of 36 ranks (the documents'
    rank lists reach rank 32). Per iteration (10 ms): solve { compute_kernel
    (rank r: 2 + (r % 3) / 2 ms), physics_step (1 ms, in which two C++
    functions by their mangled names: 0.3 and 0.1 ms) }, MPI_Irecv from the
    left and MPI_Isend of 8 KiB to the right at 4 ms, MPI_Waitall until
    5 ms (after every rank's send), and every second iteration an
    MPI_Allreduce of 8 bytes from 5 to 6 ms."""
    out = [f"ranks {ranks}"]
    for r in range(ranks):
        def ev(t, e):
            out.append(f"{r} {t:.6f} {e}")
        ev(0, "enter main")
        for i in range(iterations):
            t0, kernel = i * 0.010, 0.002 + (r % 3) * 0.0005
            ev(t0, "enter solve")
            ev(t0, "enter compute_kernel")
            ev(t0 + kernel, "leave compute_kernel")
            ev(t0 + kernel, "enter physics_step")
            # C++ functions as Score-P names them (doc/hypotheses.md)
            ev(t0 + kernel, "enter _Z28CalcHourglassControlForElemsR6DomainPdd")
            ev(t0 + kernel + 0.0003, "leave")
            ev(t0 + kernel + 0.0003, "enter _ZNSt6vectorIiSaIiEEixEm")
            ev(t0 + kernel + 0.0004, "leave")
            ev(t0 + kernel + 0.001, "leave physics_step")
            ev(t0 + kernel + 0.001, "leave solve")
            ev(t0 + 0.004, "enter MPI_Irecv")
            ev(t0 + 0.004, "irecv_request req=1")
            ev(t0 + 0.004001, "leave")
            ev(t0 + 0.004001, "enter MPI_Isend")
            ev(t0 + 0.004001, f"isend {(r + 1) % ranks} bytes=8192 req=2")
            ev(t0 + 0.004002, "leave")
            ev(t0 + 0.004002, "enter MPI_Waitall")
            ev(t0 + 0.005, f"irecv {(r - 1) % ranks} bytes=8192 req=1")
            ev(t0 + 0.005, "isend_complete req=2")
            ev(t0 + 0.005, "leave")
            if i % 2 == 1:
                ev(t0 + 0.005, "enter MPI_Allreduce")
                ev(t0 + 0.005, "coll_begin")
                ev(t0 + 0.006, "coll_end allreduce sent=8 recv=8")
                ev(t0 + 0.006, "leave")
        ev(iterations * 0.010, "leave main")
    return "\n".join(out) + "\n"


def strip_comment(line):
    """The shell's comment rule: `#` at a word's start, outside quotes."""
    quote = None
    for j, c in enumerate(line):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (j == 0 or line[j - 1] in " \t"):
            return line[:j].rstrip()
    return line.rstrip()


def commands(lines, first, only_known):
    """(line number, command) of each command of @lines."""
    k = 0
    while k < len(lines):
        line, n = lines[k].strip(), first + k
        k += 1
        if not line or line.startswith("#") or (only_known and not line.startswith(COMMANDS)
                                                and not line.startswith("sh setup")):
            continue
        cmd = strip_comment(line)
        while cmd.endswith("\\") and k < len(lines):
            cmd = cmd[:-1].rstrip() + " " + strip_comment(lines[k].strip())
            k += 1
        yield n, cmd


def examples(path, doc):
    """('file', name, text), ('cmd', line, command) and ('bad', line, kind)
    of @path, in order."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    readme = not doc.endswith(".md")
    i = 0
    while i < len(lines):
        if lines[i].startswith("```"):
            kind, start = lines[i][3:].strip(), i + 2
            i += 1
            body = []
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            i += 1
            m = re.match(r"#\s*(\S+)\s*$", body[0]) if body else None
            if kind == "ini" and m:
                yield "file", m.group(1), "\n".join(body) + "\n"
            elif kind == "sh":
                for n, cmd in commands(body, start, False):
                    yield "cmd", n, cmd
            elif kind != "text":
                yield "bad", start - 1, kind or "untagged"
        elif lines[i].startswith("    ") and (i == 0 or not lines[i - 1].strip() or readme):
            start, body = i + 1, []
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                body.append(lines[i][4:])
                i += 1
            for n, cmd in commands(body, start, True):
                yield "cmd", n, cmd
        else:
            i += 1


def expand(text, env):
    text = re.sub(r"\{doc:([^}]+)\}", lambda m: os.path.join(env["files"], m.group(1)), text)
    for key in ("builddir", "mpiexec", "bin"):
        text = text.replace("{" + key + "}", env[key])
    return text


def substitute(cmd, env):
    for pattern, repl, _ in SUBSTITUTIONS:
        cmd = re.sub(pattern, repl, cmd)
    return expand(cmd, env)


def run(cmd, cwd, env):
    path = env["builddir"] + os.pathsep + os.environ["PATH"]
    return subprocess.run(cmd, shell=True, cwd=cwd, env=dict(os.environ, PATH=path),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=900)


def run_doc(doc, items, d, env, listing, used, failures):
    """Run @doc's examples in @d; returns how many ran."""
    with open(os.path.join(d, "app.script"), "w", encoding="utf-8") as f:
        f.write(app_script())
    for prep in PREP[None] + PREP.get(doc, []):
        prep = expand(prep, env)
        r = run(prep, d, env)
        if r.returncode != 0:
            failures.append(f"{doc}: preparing `{prep}` failed:\n{r.stdout.decode(errors='replace')}")
            return 0
    for kind, where, text in items:
        if kind == "file":
            shutil.copy(os.path.join(env["files"], where), d)
    ran = 0
    for kind, where, text in items:
        if kind == "bad":
            failures.append(f"{doc}:{where}: a ``` block of kind '{text}', which this test does "
                            "not run: tag it sh (commands), ini (a file, first line # NAME) or text")
        if kind != "cmd":
            continue
        skip = [i for i, (nd, rx, _) in enumerate(NOT_RUN) if nd == doc and re.search(rx, text)]
        if skip:
            used.update(skip)
            continue
        cmd = substitute(text, env)
        if listing:
            print(f"{doc}:{where}: {cmd}")
            continue
        r = run(cmd, d, env)
        ran += 1
        with open(os.path.join(d, "examples.log"), "ab") as log:
            log.write(r.stdout)
        if r.returncode != 0:
            failures.append(f"{doc}:{where}: `{text}` (as `{cmd}`) exited {r.returncode}:\n"
                            + r.stdout.decode(errors="replace")[-2000:])
    return ran


def main():
    args = sys.argv[1:]
    srcdir, builddir = os.path.abspath(args[0]), os.path.abspath(args[1])
    opts = {"--doc": [], "--skip": [], "--keep": []}
    i = 2
    while i < len(args):
        if args[i] in opts and i + 1 < len(args):
            opts[args[i]].append(args[i + 1])
            i += 2
        elif args[i] == "--list":
            i += 1
        else:
            print(f"doc-examples.py: unknown argument {args[i]}", file=sys.stderr)
            return 2
    listing = "--list" in args
    docs = opts["--doc"] or ["README"] + sorted(
        "doc/" + f for f in os.listdir(os.path.join(srcdir, "doc")) if f.endswith(".md"))
    docs = [d for d in docs if d not in opts["--skip"]]
    items = {doc: list(examples(os.path.join(srcdir, doc), doc))
             for doc in set(docs) | {"README"} | {"doc/" + f for f in os.listdir(
                 os.path.join(srcdir, "doc")) if f.endswith(".md")}}
    work = tempfile.mkdtemp(prefix="ts-doc-examples.")
    env = {"builddir": builddir, "mpiexec": os.environ.get("MPIEXEC", ""),
           "files": os.path.join(work, "files"), "bin": os.path.join(work, "bin")}
    used, failures, ran, skipped = set(), [], 0, set()
    try:
        os.makedirs(env["files"])
        os.makedirs(env["bin"])
        with open(os.path.join(env["bin"], "sbatch"), "w") as f:
            f.write(SBATCH)
        os.chmod(os.path.join(env["bin"], "sbatch"), 0o755)
        for doc in items:
            for kind, name, text in items[doc]:
                if kind == "file":
                    with open(os.path.join(env["files"], name), "w", encoding="utf-8") as f:
                        f.write(text)
        for doc in docs:
            if not any(kind in ("cmd", "bad") for kind, _, _ in items[doc]):
                continue
            needs_mpi = any("mpirun" in t for k, _, t in items[doc] if k == "cmd")
            if needs_mpi and not env["mpiexec"]:
                print(f"{doc}: not run, no MPI launcher (configure found no MPI)")
                skipped.add(doc)
                continue
            if opts["--keep"]:
                d = opts["--keep"][0]
                shutil.rmtree(d, ignore_errors=True)
            else:
                d = os.path.join(work, doc.replace("/", "_"))
            os.makedirs(d)
            ran += run_doc(doc, items[doc], d, env, listing, used, failures)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for i, (doc, rx, why) in enumerate(NOT_RUN):
        if doc in docs and doc not in skipped and i not in used:
            failures.append(f"NOT_RUN entry ({doc}, {rx}) matches no example: remove it")
    for f in failures:
        print("FAIL:", f)
    if not listing:
        print(f"{ran} examples of {len(docs)} documents run, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
