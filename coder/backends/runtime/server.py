"""A running inference server coder can talk to, managed or attached, and its HTTP API."""

from __future__ import annotations

import json
import time
import types
import typing
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from coder.errors import CoderError
from coder.jsontypes import JSONObject, JSONValue, as_object
from coder.telemetry.metrics import SpecStats, parse_metrics

if TYPE_CHECKING:
    from coder.backends.runtime.http import Response


class Slot(TypedDict, total=False):
    """The ``/slots`` fields coder reads (llama.cpp sends many more)."""

    n_ctx: int
    speculative: bool
    speculative_types: str  # the spec-type chain, comma-separated (coder's build)
    is_processing: bool


@dataclass
class ServerInfo:
    """What coder knows about one server; persisted as JSON for managed ones.

    Plain data: a chat client for it comes from :func:`coder.backends.runtime.handle.chat_client`
    (which asks the engine registry for the request extras), so this module imports no adapter.
    ``profile`` is the name the server was launched under (its state files go by it); which
    :class:`~coder.config.Profile` that is, is the backend handle's to say (``BackendHandle.adopt``).
    """

    url: str
    engine: str = "llama.cpp"
    api_key: str | None = None
    profile: str | None = None
    managed: bool = False
    pid: int | None = None
    pid_start: int | None = None  # kernel start time of ``pid``: who the server is (runtime/proc.py)
    argv: list[str] = field(default_factory=list)
    log_path: str | None = None
    model: str | None = None
    drafter: str | None = None
    spec_type: str | None = None
    k: int | None = None  # launch draft depth
    served_model: str | None = None  # the model id requests must name (``/v1/models``; vLLM/SGLang check it)
    k_max: int | None = None  # largest useful k for the drafter (block size bound)
    draft_cap: bool = False  # per-request ``speculative.n_max`` honoured (probed, not assumed)
    prediction: bool = False  # request field ``prediction`` drafted from (probed, not assumed)
    verified: bool | None = None  # speculator proven live; None = not checked yet
    # the one answer to "does this server compute on a GPU" (the adapter's, at launch): deep copy
    # drafts pay there, not on a CPU; an attached server coder cannot see into counts as a CPU one
    on_gpu: bool = False
    verdict: str = "not verified yet"
    # what the start-up probe request cost (llama.cpp timings): auto mode's first prediction uses them
    prefill_s_per_token: float | None = None
    decode_tps: float | None = None
    build: JSONObject = field(default_factory=dict)

    def to_json(self) -> str:
        """The persisted form (``state_dir()/servers/NAME.json``)."""
        return json.dumps(asdict(self), indent=2)

    @classmethod
    def from_json(cls, text: str) -> ServerInfo:
        """Read a persisted record, ignoring fields this version does not know.

        A record of the wrong shape (``[]``, ``{"url": 5}``) is a ValueError naming the
        field, never an object whose first use raises somewhere else.
        """
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError(f"expected a JSON object, found {type(data).__name__}")
        hints = typing.get_type_hints(cls)
        fields = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        if "url" not in fields:
            raise ValueError("no url")
        for key, value in fields.items():
            if not _fits(value, hints[key]):
                raise ValueError(f"{key} = {value!r:.40}: expected {hints[key]}")
        return cls(**fields)

    def api(self, timeout: float = 10.0) -> ServerAPI:
        """A client for the non-OpenAI endpoints (close it, or use it as a context manager)."""
        return ServerAPI(self.url, self.api_key, self.engine, timeout)

    def log_tail(self, lines: int = 20) -> list[str]:
        """The last ``lines`` lines of a managed server's log, as shown (empty when there is none)."""
        if not self.log_path or not Path(self.log_path).exists():
            return []
        return self.shown_log_lines(Path(self.log_path).read_text(errors="replace").splitlines()[-lines:])

    def shown_log_lines(self, lines: list[str]) -> list[str]:
        """Lines of this server's log made fit to display: its API key redacted (vLLM logs its arguments,
        ``'api_key': ['…']``) and terminal control made visible (the log quotes prompts and replies: data)."""
        from coder.redact import redact_text
        from coder.textsafe import visible

        return [visible(redact_text(line, [self.api_key])) for line in lines]


JSONShape = type[list[object]] | type[dict[str, object]]
# The largest non-streaming answer read (/props, /slots, /metrics, /tokenize, /v1/models): real ones
# are kilobytes (/tokenize of a whole 16k-token prompt ~120 KB); the body is streamed and cut here
MAX_ANSWER_BYTES = 4 * 2**20


def _body(where: str, resp: Response, json_body: bool) -> str:
    """The text of a 200 answer of the expected kind, else one CoderError line saying what came back."""
    from coder.textsafe import one_line

    if resp.status_code != 200:
        raise CoderError(f"{where} answered HTTP {resp.status_code}: {one_line(resp.text, 120)}")
    ctype = resp.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype and (("json" in ctype) != json_body or "html" in ctype):
        want = "JSON" if json_body else "text"
        raise CoderError(f"{where} answered {ctype} instead of {want}: {one_line(resp.text, 80)}")
    return resp.text


def answer_text(where: str, resp: Response) -> str:
    """The body of a 200 plain-text answer (``/metrics``); a proxy's HTML page is one CoderError line."""
    return _body(where, resp, json_body=False)


def answer_json(where: str, resp: Response, shape: JSONShape) -> JSONValue:
    """The JSON body of a 200 answer whose top level is ``shape`` (list or dict); else one CoderError line.

    Every non-streaming server answer coder reads goes through here (``where`` names
    the endpoint): an HTML error page, ``[]`` where an object belongs or a 502 from a
    proxy says what came back instead of raising deep inside the caller.
    """
    from coder.textsafe import one_line

    text = _body(where, resp, json_body=True)
    try:
        data: JSONValue = json.loads(text)
    except ValueError:
        raise CoderError(f"{where} answered something that is not JSON: {one_line(text, 80)}") from None
    if not (isinstance(data, list) if shape is list else isinstance(data, dict)):
        raise CoderError(f"{where} answered a JSON {type(data).__name__} where coder expects "
                         f"{'a list' if shape is list else 'an object'}: {one_line(text, 80)}")
    return data


def _fits(value: object, hint: object) -> bool:
    """``value`` matches the (simple) annotation ``hint``: scalars, ``X | None``, lists, dicts."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, arg) for arg in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if origin is list:
        return isinstance(value, list) and all(_fits(v, typing.get_args(hint)[0]) for v in value)
    if origin is dict:
        return isinstance(value, dict)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(hint, type) and isinstance(value, hint)


# server url -> ``generated`` before a cut stream whose after-snapshot did not wait for the server to notice
# the closed connection: llama.cpp adds a cancelled slot's counters when it releases it, all at once, so
# the next request's before-snapshot waits until they have landed (see ServerAPI.snapshot)
_UNSETTLED: dict[str, float] = {}


class ServerAPI:
    """Thin HTTP wrapper for the non-OpenAI endpoints (health, slots, metrics, tokenize)."""

    def __init__(self, url: str, api_key: str | None, engine: str = "llama.cpp", timeout: float = 10.0):
        self.url = url.rstrip("/")
        self.engine = engine
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        from coder.backends.runtime.http import make_client

        self._http = make_client(self.url, headers=headers, timeout=timeout)

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()

    def __enter__(self) -> ServerAPI:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get(self, path: str) -> Response:
        """GET ``path``, its body read up to :data:`MAX_ANSWER_BYTES`; problems are one CoderError line."""
        return self._capped("GET", path, None)

    def post(self, path: str, body: Mapping[str, object]) -> Response:
        """POST JSON ``body`` to ``path``, the answer read like :meth:`get`'s."""
        return self._capped("POST", path, body)

    def _capped(self, method: str, path: str, body: Mapping[str, object] | None) -> Response:
        """The answer with its body read, streamed and stopped at :data:`MAX_ANSWER_BYTES` (never held whole)."""
        from coder.backends.runtime.http import HTTPError, Response

        try:
            with self._http.stream(method, path, json=body) as resp:
                declared = resp.headers.get("content-length", "")
                too_big = declared.isdigit() and int(declared) > MAX_ANSWER_BYTES
                data = bytearray()
                for chunk in () if too_big else resp.iter_bytes():
                    data += chunk
                    if len(data) > MAX_ANSWER_BYTES:
                        too_big = True
                        break
                if too_big:
                    raise CoderError(f"{self.url}{path} answered more than {MAX_ANSWER_BYTES // 2**20} MiB; "
                                     "no answer of that endpoint is that large (not read further)")
                return Response(resp.status_code, headers=resp.headers, content=bytes(data))
        except HTTPError as exc:
            raise CoderError(f"backend at {self.url} unreachable: {exc}") from None

    def health_status(self) -> int | None:
        """HTTP status of ``/health``; None when nothing answers."""
        from coder.backends.runtime.http import HTTPError

        try:
            with self._http.stream("GET", "/health") as resp:  # the status is the answer: no body is read
                return resp.status_code
        except HTTPError:
            return None

    def get_json(self, path: str, shape: JSONShape) -> JSONValue:
        """GET ``path`` and validate its answer (:func:`answer_json`)."""
        return answer_json(f"{self.url}{path}", self.get(path), shape)

    def metrics_text(self) -> str:
        """The raw ``/metrics`` exposition text."""
        return answer_text(f"{self.url}/metrics", self.get("/metrics"))

    def metrics(self) -> SpecStats:
        """The parsed ``/metrics`` counters; text that is no Prometheus exposition is one CoderError line."""
        text = self.metrics_text()
        try:
            return parse_metrics(text)
        except ValueError as exc:  # prometheus_client's parser: a bad name, label or value
            from coder.textsafe import one_line

            raise CoderError(f"{self.url}/metrics is not Prometheus text: {one_line(str(exc), 100)}") from None

    def props(self) -> JSONObject:
        """llama.cpp's ``/props`` object."""
        return as_object(self.get_json("/props", dict))

    def snapshot(self, wait_for: SpecStats | None = None, final_seen: bool = True,
                 patient: bool = True) -> SpecStats | None:
        """A ``/metrics`` snapshot for a before/after delta, or None when there is none to take
        (no ``--metrics``, not a Prometheus page coder understands, or the server is gone).

        llama.cpp moves its counters when a request finishes; after a cancelled stream the
        slot may still be releasing, so with ``wait_for`` wait briefly for ``generated`` to move.
        Not ``patient`` (a cut stream whose own chunks counted its drafts): one look; counters
        that have not moved yet give None, and the next before-snapshot of this server waits for
        them instead (:data:`_UNSETTLED`), so no later delta takes in this request's tokens.
        """
        if wait_for is None:
            # a before-snapshot: a cut request's counters still to land would be counted as this one's
            unsettled = _UNSETTLED.pop(self.url, None)
            return self._scrape_until(unsettled, 0.0 if unsettled is None else 1.5)
        snap = self._scrape_until(wait_for.generated, (0.2 if final_seen else 1.5) if patient else 0.0)
        if patient or snap is None or snap.generated > wait_for.generated:
            return snap
        _UNSETTLED[self.url] = wait_for.generated
        return None  # no delta: the figures stay the stream's own (acceptance_source "stream")

    def _scrape_until(self, generated: float | None, seconds: float) -> SpecStats | None:
        """Scrape ``/metrics`` until ``generated`` is passed (None: once) or ``seconds`` are up; the last scrape."""
        deadline = time.monotonic() + seconds
        pause = 0.005  # the counters usually move within milliseconds: look again soon, then less often
        while True:
            try:
                snap = self.metrics()
            except CoderError:
                return None
            if snap.engine is None:
                return None
            if generated is None or snap.generated > generated or time.monotonic() >= deadline:
                return snap
            time.sleep(pause)
            pause = min(0.05, pause * 2)

    def slots(self) -> list[Slot]:
        """The ``/slots`` list (llama.cpp); every entry must be an object."""
        data = self.get_json("/slots", list)
        assert isinstance(data, list)  # checked by get_json
        if not all(isinstance(slot, dict) for slot in data):
            raise CoderError(f"{self.url}/slots answered a list whose entries are not all objects")
        return [typing.cast(Slot, slot) for slot in data]

    def tokenize(self, text: str) -> int:
        """Exact token count of ``text`` by the server's own tokenizer."""
        resp = self.post("/tokenize", {"content": text, "add_special": False})
        data = answer_json(f"{self.url}/tokenize", resp, dict)
        tokens = data.get("tokens") if isinstance(data, dict) else None
        if not isinstance(tokens, list):
            raise CoderError(f"{self.url}/tokenize answered an object without a \"tokens\" list")
        return len(tokens)

    def models(self) -> list[str]:
        """Model ids from ``/v1/models`` (empty when the endpoint does not exist)."""
        resp = self.get("/v1/models")
        if resp.status_code == 404:
            return []
        data = answer_json(f"{self.url}/v1/models", resp, dict)
        entries = data.get("data") if isinstance(data, dict) else None
        if not isinstance(entries, list):
            raise CoderError(f"{self.url}/v1/models answered an object without a \"data\" list")
        return [str(m.get("id", "")) for m in entries if isinstance(m, dict)]
