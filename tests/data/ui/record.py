#!/usr/bin/env python3
"""Record the TUI tests' replies from the real llama-server and demo model.

    .venv/bin/python tests/data/ui/record.py            # all scenarios of tests/ui_support.py
    .venv/bin/python tests/data/ui/record.py edit_greet # one

Starts coder's own llama-server build with the embedded demo model (each scenario's built-in
profile, ``demo`` unless it names another such as ``demo-hybrid``, with the test fixtures'
overrides: ctx 4096, 2 threads), puts :class:`coder.testing.replay.RecordingProxy`
in front of it, and runs each scenario through the headless :class:`coder.session.EditSession`
exactly as the TUI does (same repository as ``tests/ui_support.make_repo``). Every exchange
(chat SSE with timing, /metrics before and after, /tokenize, /props) is saved to
``tests/data/ui/<scenario>.json`` with a ``meta`` block saying how it was made.
"""

from __future__ import annotations

import dataclasses
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))
sys.path.insert(0, str(HERE.parents[1]))

from ui_support import SCENARIOS, Scenario, make_repo  # noqa: E402

from coder import conversations  # noqa: E402
from coder.backends.runtime import manager  # noqa: E402
from coder.backends.runtime.handle import BackendHandle  # noqa: E402
from coder.backends.runtime.server import ServerInfo  # noqa: E402
from coder.config import Profile, builtin_profiles  # noqa: E402
from coder.kpolicy import policy_factory  # noqa: E402
from coder.session import events as ev  # noqa: E402
from coder.session.edit_session import EditSession  # noqa: E402
from coder.testing.record import RecordingProxy  # noqa: E402

PUBLIC_FIELDS = ("engine", "model", "drafter", "spec_type", "k", "k_max", "draft_cap", "verified", "verdict",
                 "build")


def record(scenario: Scenario, info: ServerInfo, profile: Profile, out: Path) -> list[ev.Event]:
    """Run one scenario through a recording proxy; returns the session's events."""
    server = {f: getattr(info, f) for f in PUBLIC_FIELDS}
    meta = {
        "how": "recorded from the real llama-server (coder's build) with the embedded demo model by "
               "tests/data/ui/record.py through coder.testing.replay.RecordingProxy; the headless "
               "EditSession ran the scenario exactly as the TUI does",
        "scenario": dataclasses.asdict(scenario),
        "server": server,
        "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "host": platform.machine(),
    }
    if scenario.max_tokens is not None:
        meta["note"] = (f"the proxy forced max_tokens={scenario.max_tokens} on the chat request, so the "
                        "server's real reply is cut off (finish_reason=length)")
    proxy = RecordingProxy(info.url, info.api_key, meta, force_max_tokens=scenario.max_tokens)
    seen: list[ev.Event] = []
    with proxy, tempfile.TemporaryDirectory(prefix="coder-record-") as tmp:
        root = make_repo(Path(tmp), *scenario.files)
        proxied = dataclasses.replace(info, url=proxy.url, api_key=None, managed=False, pid=None, log_path=None)
        backend = BackendHandle(proxied, profile, policy_factory=policy_factory(False))
        edit = EditSession(root, conversations.new_conversation(root), backend, seen.append, persist=False,
                           chat_max_tokens=160)
        edit.load_files()
        if scenario.file is not None:
            edit.submit(f"@{scenario.file}")
        edit.submit(scenario.instruction)
        if edit.state == "reviewing":
            edit.decide(False)  # the tests decide; the recording stops at the proposal
        proxy.wait_idle()
        proxy.recording.save(out)
    return seen


def main(argv: list[str]) -> int:
    """Record the named scenarios (default: all)."""
    names = argv or list(SCENARIOS)
    for base in dict.fromkeys(SCENARIOS[n].profile for n in names):  # one server per profile, in order
        profile = builtin_profiles()[base].with_overrides(name=f"ui-record-{base}", ctx=4096, threads=2)
        info = manager.start(profile)
        try:
            for name in (n for n in names if SCENARIOS[n].profile == base):
                seen = record(SCENARIOS[name], info, profile, HERE / f"{name}.json")
                summary = [type(e).__name__ + (f": {e.text[:100]}" if isinstance(e, ev.Note) else "")
                           for e in seen if not isinstance(e, ev.StreamBatch)]
                print(f"{name}: " + json.dumps(summary, ensure_ascii=False, indent=1))
        finally:
            manager.stop(profile.name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
