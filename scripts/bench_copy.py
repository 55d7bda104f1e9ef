#!/usr/bin/env python3
"""Copy drafting past the block: prediction vs n-gram vs model drafters on full and region rewrites.

One llama-server per speculation config (coder's own build: ``draft-cap-v1`` + ``prediction-v1``),
the demo model, greedy decoding, ``-np 1``. Every k is reached with the per-request cap, so one
launch serves all caps. Prompts are coder's own edit prompts (coder.edit.run.prompt) for real source
files with small edits spread through them (rename a function used throughout, add a parameter,
add docstrings), a region rewrite, a prediction that matches nothing (the worst case) and fresh
prose. Configurations:

Kind ``oracle`` is a region prompt whose prediction is plain greedy's own reply: what the prediction
drafter does when the reply copies its prediction (the demo model rarely copies the original).

* ``none``: no speculation (also the lossless reference and the noise-floor runs);
* ``draft-simple``: the demo model drafting for itself, at its block (``--block``, default 7);
* ``ceiling``: the block-8 ceiling, the best copy drafter (ngram-mod or prediction) capped at 7;
* ``ngram-mod``, ``ngram-mod+draft``, ``prediction``, ``prediction+draft`` and
  ``prediction+ngram-mod`` (a profile that opts into the prediction drafter): at every cap.

Per run: decode tok/s (server timings), acceptance length and per-position acceptance (``/metrics``
deltas), the share of verification steps each speculator drafted (``timings.draft_by_type``) and
the lossless check against plain greedy output (coder.bench.lossless: first differing token, its
candidates under several batch shapes, verdict within floor / real). The noise floor itself:
plain greedy with a cold vs a warm prompt cache, explained the same way.

Examples::

    .venv/bin/python scripts/bench_copy.py --quick --json /tmp/bench_copy_cpu.json
    .venv/bin/python scripts/bench_copy.py --ngl 99 --caps 8,16,32,64 --max-tokens 1200 --json gpu.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from copy_report import print_table, summarize  # noqa: E402
from copy_variants import (  # noqa: E402
    PARTS,
    print_agreement,
    print_steps,
    step_summary,
    variant,
    variant_agreement,
)

from coder.backends.runtime.server import ServerAPI  # noqa: E402
from coder.bench import lossless  # noqa: E402
from coder.telemetry.metrics import parse_metrics  # noqa: E402

if TYPE_CHECKING:
    from coder.edit.source.regions import Region

DEFAULT_MODEL = Path.home() / ".local/share/coder/models/SmolLM2-135M-Instruct.Q4_1.gguf"
STDLIB = Path(os.__file__).parent
DEFAULT_FILES = [STDLIB / "shlex.py", STDLIB / "graphlib.py"]
DRAFT = ["-md", "{model}", "--spec-draft-n-max", "{block}"]
NGRAM = ["--spec-ngram-mod-n-max", "{deep}", "--spec-ngram-mod-n-min", "4"]
# name -> llama-server speculation flags ({model}, {block}, {deep} filled in)
CONFIGS: dict[str, list[str]] = {
    "none": [],
    "draft-simple": ["--spec-type", "draft-simple", *DRAFT],
    "ngram-mod": ["--spec-type", "ngram-mod", "--spec-draft-n-max", "{deep}", *NGRAM],
    "ngram-mod+draft": ["--spec-type", "ngram-mod,draft-simple", *DRAFT, *NGRAM],
    "prediction": ["--spec-type", "prediction", "--spec-draft-n-max", "{block}"],
    "prediction+draft": ["--spec-type", "prediction,draft-simple", *DRAFT],
    # a prediction chained before n-gram lookup (opt-in per profile; the demo profile launches ngram-mod)
    "prediction+ngram-mod": ["--spec-type", "prediction,ngram-mod", "--spec-draft-n-max", "{deep}", *NGRAM],
}
PREDICTS = ("prediction", "prediction+draft", "prediction+ngram-mod")
COPY = ("ngram-mod", "prediction")  # copy drafters that can stand for the block-8 ceiling
CEILING_CAP = 7
# run-time variants to A/B in one binary (``--variants``, scripts/copy_variants.py). A config run
# under a variant other than the first is reported as ``<config>@<variant>``; the lossless check
# compares it with plain greedy under the first variant.
CONTEXT_LINES = 3  # lines shown around a region, as coder.edit.run.engine does (not imported: no openai/git needed)


@dataclass(frozen=True)
class Workload:
    """One prompt: its class, chat messages and the prediction an edit would send."""

    name: str
    cls: str  # full | region | fresh | mismatch
    messages: list[dict[str, str]]
    prediction: str | None


def _most_used_function(text: str) -> str:
    names: list[str] = re.findall(r"^\s*def ([A-Za-z_]\w*)", text, flags=re.M)
    return max(names, key=lambda n: (len(re.findall(rf"\b{n}\b", text)), len(n)))


def _largest_function(text: str) -> tuple[str, Region]:
    from coder.edit.source.regions import python_symbols

    funcs = [(n, r) for n, r in python_symbols(text) if r.kind == "function"]
    small = [f for f in funcs if f[1].n_lines < len(text.splitlines()) // 3] or funcs
    return max(small, key=lambda f: f[1].n_lines)


def workloads(files: list[Path], kinds: list[str], n_edit_files: int) -> list[Workload]:
    """Prompts in coder's edit shape for the first ``n_edit_files`` files, a mismatch, fresh prose."""
    # coder.edit pulls in the edit engine (openai, git): imported here, so a run from a dumped
    # workload file (``--workloads``) needs neither
    from coder.edit.run.prompt import build_messages, predicted_reply
    from coder.edit.source.regions import context_lines, split

    out: list[Workload] = []
    for path in files[:n_edit_files]:
        text, rel = path.read_text(encoding="utf-8"), path.name
        fn = _most_used_function(text)
        asks = {
            "rename": f"Rename the function `{fn}` to `{fn}_v2` everywhere in the file, calls included.",
            "param": f"Add a keyword parameter `trace: bool = False` to `{fn}` and pass `trace=trace` at "
                     "every call of it.",
            "docstrings": "Add a one-line docstring to every function and method that lacks one.",
            "comment": "Add a comment at the top of the file.",  # almost a pure copy
        }
        for kind in (k for k in kinds if k in asks):
            p = build_messages(rel, text, asks[kind], mode="full")
            out.append(Workload(f"{rel}:full-{kind}", "full", p.messages, predicted_reply(p)))
        if "region" in kinds:
            name, region = _largest_function(text)
            parts = split(text, region)
            p = build_messages(rel, parts.target, f"Add a docstring to `{name}` and type hints to its "
                               "parameters.", mode="region",
                               before=context_lines(parts.before, CONTEXT_LINES, tail=True),
                               after=context_lines(parts.after, CONTEXT_LINES, tail=False),
                               region_label=region.label)
            out.append(Workload(f"{rel}:region-{name}", "region", p.messages, predicted_reply(p)))
            if "oracle" in kinds:  # the same prompt, predicted by plain greedy's own reply: a reply that copies
                out.append(Workload(f"{rel}:oracle-{name}", "oracle", p.messages, None))
    if "mismatch" in kinds and len(files) > 1:
        p = build_messages(files[0].name, files[0].read_text(encoding="utf-8"),
                           "Add a comment at the top of the file.", mode="full")
        wrong = files[1].read_text(encoding="utf-8")  # a prediction unrelated to the reply
        out.append(Workload(f"{files[0].name}:mismatch", "mismatch", p.messages, wrong))
    if "fresh" in kinds:
        p = build_messages("notes.md", "", "Write a short essay on why the Unix shell pipeline "
                           "changed how people write programs.", mode="full")
        out.append(Workload("notes.md:fresh-prose", "fresh", p.messages, None))
    return out


class Server:
    """One llama-server on 127.0.0.1 with a random key (written to a 0600 file, never printed)."""

    def __init__(self, binary: str, model: str, flags: list[str], args: argparse.Namespace,
                 env: dict[str, str] | None = None) -> None:
        import secrets
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        key = secrets.token_hex(16)
        fd, self.key_path = tempfile.mkstemp(prefix="bench-copy-key-")  # created 0600
        with os.fdopen(fd, "w") as fh:
            fh.write(key)
        slots = str(getattr(args, "parallel", 1))  # scripts/bench_parallel.py runs several
        self.argv = [binary, "-m", model, *flags, "-c", str(args.ctx), "-np", slots, "--metrics",
                     "-ngl", str(args.ngl), "--host", "127.0.0.1", "--port", str(port),
                     "--api-key-file", self.key_path]
        fd, self.log_path = tempfile.mkstemp(prefix="bench-copy-", suffix=".log")
        with os.fdopen(fd, "wb") as log:
            self.proc = subprocess.Popen(self.argv, stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, start_new_session=True,
                                         env={**os.environ, **(env or {})})
        self.api = ServerAPI(f"http://127.0.0.1:{port}", key, timeout=900)
        deadline = time.monotonic() + 300
        while self.api.health_status() != 200:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                tail = Path(self.log_path).read_text(errors="replace")[-800:]
                self.close()
                raise SystemExit(f"llama-server did not start: {tail}")
            time.sleep(0.3)

    def close(self) -> None:
        """Stop the server and remove its key file."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.api.close()
        Path(self.key_path).unlink(missing_ok=True)


def generate(api: ServerAPI, tokens: list[int], max_tokens: int, *, cap: int | None = None,
             prediction: str | None = None, cache_prompt: bool = True,
             extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """One greedy completion with its timings, token ids and ``/metrics`` deltas (``extra``: a
    variant's request fields)."""
    body: dict[str, Any] = {"prompt": tokens, "n_predict": max_tokens, "temperature": 0, "top_k": 1,
                            "cache_prompt": cache_prompt, "return_tokens": True, "timings_per_token": False}
    if cap is not None:
        body["speculative.n_max"] = cap
    if prediction:
        body["prediction"] = {"type": "content", "content": prediction}
    body |= extra or {}
    before = parse_metrics(api.metrics_text())
    t0 = time.monotonic()
    resp = api.post("/completion", body)
    wall = time.monotonic() - t0
    resp.raise_for_status()
    data = resp.json()
    delta = parse_metrics(api.metrics_text()) - before
    timings = data.get("timings", {})
    n = int(timings.get("predicted_n", 0))
    by_type = timings.get("draft_by_type") or {}
    passes = max(n - int(delta.accepted), 1)  # each target pass yields one token plus its accepted drafts
    return {
        "tokens": [int(t) for t in data.get("tokens", [])], "text": data.get("content", ""),
        "n": n, "tps": timings.get("predicted_per_second"), "wall": round(wall, 3),
        "prompt_ms": timings.get("prompt_ms"), "drafts": delta.drafts, "draft_tokens": delta.draft_tokens,
        "accepted": delta.accepted, "al": delta.acceptance_length,
        "per_pos": [round(a / delta.drafts, 4) for a in delta.accepted_per_pos] if delta.drafts else [],
        "by_type": by_type,
        "step_share": {t: round(v.get("steps", 0) / passes, 4) for t, v in by_type.items()},
    }


def run_config(name: str, args: argparse.Namespace, loads: list[Workload], toks: dict[str, list[int]],
               refs: dict[str, str]) -> list[dict[str, Any]]:
    """Every (workload, cap) run on one freshly launched server for ``name``."""
    base, _, vname = name.partition("@")
    var = variant(vname or args.variants[0])
    flags = [f.format(model=args.model, block=args.block, deep=max(args.caps)) for f in CONFIGS[base]]
    server = Server(args.binary, args.model, [*flags, *var.flags], args, var.env)
    caps: list[int | None]
    caps = [None] if base in ("none", "draft-simple") else list(args.caps)
    if base in COPY and not args.no_ceiling:
        caps = [CEILING_CAP, *caps]
    rows = []
    try:
        for w in loads:
            if w.cls == "mismatch" and base not in (*PREDICTS, "none"):
                continue
            tokens = toks.get(w.name) or lossless.prompt_tokens(server.api, w.messages)
            toks[w.name] = tokens
            generate(server.api, tokens, 1, extra=var.body)  # prefill once: every measured run starts warm
            pred = (refs.get(w.name) if w.cls == "oracle" else w.prediction) if base in PREDICTS else None
            for cap in caps:
                for rep in range(args.reps):
                    at = Path(server.log_path).stat().st_size
                    r = generate(server.api, tokens, args.max_tokens, cap=cap, prediction=pred, extra=var.body)
                    with open(server.log_path, "rb") as fh:
                        fh.seek(at)
                        r["steps"] = step_summary(fh.read().decode(errors="replace"))
                    r.update(config=name, cap=cap, workload=w.name, cls=w.cls, rep=rep)
                    rows.append(r)
                    print(f"  {name:24s} cap={cap!s:4s} {w.name:28s} {r['tps'] or 0:7.1f} tok/s  "
                          f"AL {r['al'] or 1:5.2f}  n={r['n']}", file=sys.stderr)
            if name == "none":  # the noise floor: the same prompt with a cold prompt cache
                refs[w.name] = rows[-1]["text"]
                r = generate(server.api, tokens, args.max_tokens, cache_prompt=False)
                r.update(config="none-cold", cap=None, workload=w.name, cls=w.cls, rep=0)
                rows.append(r)
    finally:
        server.close()
    return rows


def explain_all(rows: list[dict[str, Any]], args: argparse.Namespace, toks: dict[str, list[int]]) -> None:
    """Attach the lossless verdict to every run, judged on a fresh server without speculation."""
    ref = {r["workload"]: r for r in rows if r["config"] == "none" and r["rep"] == 0}
    server = Server(args.binary, args.model, [], args)
    try:
        for r in rows:
            base = ref.get(r["workload"])
            if base is None or r is base:
                continue
            d = lossless.explain(server.api, toks[r["workload"]], base["tokens"], r["tokens"],
                                 widths=args.widths, cold=not args.no_cold_shape)
            r["lossless"] = d.to_json()
    finally:
        server.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.environ.get("CODER_LLAMA_SERVER"))
    ap.add_argument("--model", default=str(DEFAULT_MODEL))
    ap.add_argument("--files", type=Path, nargs="*", default=DEFAULT_FILES)
    ap.add_argument("--kinds", default="rename,param,docstrings,region,mismatch,fresh")
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--variants", default="fast",
                    help=f"run-time variants, parts joined by + ({', '.join(PARTS)}), each config "
                         "run under each; the first is the reference")
    ap.add_argument("--variants-for", default="",
                    help="configs run under the variants after the first (default: every config)")
    ap.add_argument("--no-ceiling", action="store_true", help="skip the block-8 ceiling runs (cap 7)")
    ap.add_argument("--caps", default="8,16,32,64")
    ap.add_argument("--block", type=int, default=7, help="the model drafter's depth (a block-8 drafter)")
    ap.add_argument("--max-tokens", type=int, default=1100)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--ctx", type=int, default=8192)
    ap.add_argument("--ngl", type=int, default=0)
    ap.add_argument("--widths", default=",".join(map(str, lossless.DEFAULT_WIDTHS)))
    ap.add_argument("--no-cold-shape", action="store_true",
                    help="lossless check without the whole-context evaluation (a full prefill per divergence)")
    ap.add_argument("--quick", action="store_true",
                    help="CPU settings: one file's edits, caps 8,32, 192 tokens")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--dump-workloads", type=Path, help="write the prompts as JSON and stop")
    ap.add_argument("--workloads", type=Path, help="read the prompts from a --dump-workloads file")
    args = ap.parse_args()
    # a timeout's SIGTERM unwinds like an exception, so every launched server is stopped
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.quick:
        args.caps, args.max_tokens = "8,32", min(args.max_tokens, 192)
    args.caps = [int(c) for c in str(args.caps).split(",")]
    args.widths = [int(w) for w in str(args.widths).split(",")]
    if args.workloads:
        loads = [Workload(**w) for w in json.loads(args.workloads.read_text())]
    else:
        loads = workloads(args.files, args.kinds.split(","), 1 if args.quick else len(args.files))
    if args.dump_workloads:
        args.dump_workloads.write_text(json.dumps([w.__dict__ for w in loads], indent=1))
        return 0
    if not args.binary:
        raise SystemExit("pass --binary (coder's llama-server build) or set CODER_LLAMA_SERVER")
    toks: dict[str, list[int]] = {}
    refs: dict[str, str] = {}  # plain greedy replies: the predictions of the oracle workloads
    rows: list[dict[str, Any]] = []
    started = time.time()
    args.variants = args.variants.split(",")
    for v in args.variants:
        variant(v)  # an unknown part stops here, before any server starts
    # side by side: each config under every variant before the next config
    varied = set(filter(None, args.variants_for.split(","))) or set(args.configs.split(","))
    names = [n if i == 0 else f"{n}@{v}" for n in args.configs.split(",") for i, v in enumerate(args.variants)
             if i == 0 or n in varied]
    for name in names:
        print(f"config {name}", file=sys.stderr)
        rows += run_config(name, args, loads, toks, refs)
        if args.json:  # a partial record survives a run cut short
            args.json.with_suffix(".partial.json").write_text(json.dumps(
                [{k: v for k, v in r.items() if k != "tokens"} for r in rows], indent=1))
    pairs = variant_agreement(rows)
    explain_all(rows, args, toks)
    summary = summarize(rows)
    print_table(rows, summary)
    print_agreement(pairs)
    print_steps(rows)
    if args.json:
        env = {"binary": args.binary, "model": args.model, "argv": sys.argv, "platform": platform.platform(),
               "cpu_count": os.cpu_count(), "ngl": args.ngl, "ctx": args.ctx, "block": args.block,
               "caps": args.caps, "max_tokens": args.max_tokens, "seconds": round(time.time() - started, 1),
               "files": [str(f) for f in args.files]}
        for r in rows:
            r.pop("tokens", None)
        env["variants"] = {v: variant(v).to_json() for v in args.variants}
        args.json.write_text(json.dumps({"env": env, "summary": summary, "variants": pairs, "runs": rows}, indent=1))
        print(f"wrote {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
