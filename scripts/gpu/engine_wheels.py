"""Wheel metadata and a small resolver for carrying an inference engine to the GPU device.

Reads only METADATA: PyPI's JSON simple index (sizes, tags) and, as PyPI serves no ``.metadata``
files for these wheels, the wheel's zip directory through HTTP range requests (≈0.7 MB of a 336 MB
vLLM wheel). Nothing is installed. :func:`resolve` answers: which wheels must be carried so that a
requirement installs over the device's packages (``device_packages.txt``) without touching the
ABI-bound ones (torch and friends)? Newest satisfying wheels first, with a simple backtrack; every
pin it still cannot meet is reported, and that report is the answer when a version cannot run there.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from email.parser import HeaderParser
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.tags import Tag, compatible_tags, cpython_tags
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

if TYPE_CHECKING:
    from coder.backends.runtime.http import Client, Response

INDEX = "https://pypi.org/simple"
DEVICE_PYTHON = (3, 12, 3)  # the GPU machine image's python3 (device_packages.txt)
DEVICE_LIST = Path(__file__).with_name("device_packages.txt")
# Packages whose compiled dependants (an engine's _C, flashinfer, xformers...) are built against one
# exact version: a different pin cannot be met by carrying a wheel beside the device's torch.
ABI_BOUND = ("torch", "torchvision", "torchaudio", "triton")


def device_packages(path: Path = DEVICE_LIST) -> dict[str, str | None]:
    """Canonical name -> version (None: present, version unknown) for the device image, from ``path``."""
    out: dict[str, str | None] = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            out[canonicalize_name(name)] = version or None
    return out


def device_environment() -> dict[str, str]:
    """PEP 508 marker values of the device's interpreter (Linux x86_64, CPython 3.12.3)."""
    env = dict(default_environment())
    major, minor, micro = DEVICE_PYTHON
    env.update(python_version=f"{major}.{minor}", python_full_version=f"{major}.{minor}.{micro}",
               platform_machine="x86_64", sys_platform="linux", platform_system="Linux", os_name="posix",
               implementation_name="cpython", platform_python_implementation="CPython",
               implementation_version=f"{major}.{minor}.{micro}")
    return env


def device_tags() -> set[Tag]:
    """Wheel tags the device's pip accepts (manylinux up to glibc 2.39, Ubuntu 24.04's)."""
    plats = [f"manylinux_2_{n}_x86_64" for n in range(39, 4, -1)]
    plats += ["manylinux2014_x86_64", "manylinux2010_x86_64", "manylinux1_x86_64", "linux_x86_64"]
    py = DEVICE_PYTHON[:2]
    tags = set(cpython_tags(py, abis=["cp312", "abi3", "none"], platforms=plats))
    return tags | set(compatible_tags(py, interpreter="cp312", platforms=plats))


# --------------------------------------------------------------------------- metadata


@dataclass(frozen=True)
class Dist:
    """One release file's METADATA fields that resolution needs."""

    name: str
    version: str
    requires_python: str
    requires: tuple[str, ...]

    def requirements(self, extras: Iterable[str], env: dict[str, str]) -> list[Requirement]:
        """Requires-Dist entries whose markers hold on the device for the given extras."""
        out = []
        for line in self.requires:
            req = Requirement(line)
            if req.marker is None:
                out.append(req)
                continue
            for extra in ("", *extras):
                if req.marker.evaluate({**env, "extra": extra}):
                    out.append(req)
                    break
        return out

    def pin(self, name: str) -> str | None:
        """The specifier this release puts on ``name`` (no marker), e.g. ``==2.14.0``; None if absent."""
        for line in self.requires:
            req = Requirement(line)
            if canonicalize_name(req.name) == canonicalize_name(name) and req.marker is None:
                return str(req.specifier) or "(any)"
        return None


def parse_metadata(text: str) -> Dist:
    """A :class:`Dist` from a METADATA file's text."""
    msg = HeaderParser().parsestr(text)
    return Dist(name=msg["Name"], version=msg["Version"], requires_python=msg.get("Requires-Python") or "",
                requires=tuple(msg.get_all("Requires-Dist") or ()))


@dataclass(frozen=True)
class WheelFile:
    """One wheel on the index: filename, url, size and sha256."""

    filename: str
    url: str
    size: int
    sha256: str
    requires_python: str

    @property
    def version(self) -> Version:
        """The wheel's version."""
        return parse_wheel_filename(self.filename)[1]


def index_wheels(page: dict[str, object], tags: set[Tag]) -> list[WheelFile]:
    """Device-compatible, non-yanked wheels from one JSON simple-index page, newest version first."""
    out = []
    files = page.get("files")
    for f in files if isinstance(files, list) else []:
        name = str(f.get("filename", ""))
        if not name.endswith(".whl") or f.get("yanked"):
            continue
        try:
            _, _, _, wtags = parse_wheel_filename(name)
        except (ValueError, InvalidVersion):
            continue
        if wtags & tags:
            out.append(WheelFile(name, str(f["url"]), int(f.get("size") or 0),
                                 str((f.get("hashes") or {}).get("sha256", "")),
                                 str(f.get("requires-python") or "")))
    # among one version's several wheels prefer the newest build tag, then the lowest platform floor
    return sorted(out, key=lambda w: (w.version, w.filename), reverse=True)


class RangeReader:
    """A seekable, read-only file over HTTP range requests (64 KiB blocks), for ``zipfile``."""

    BLOCK = 1 << 16

    def __init__(self, get: Callable[[str, int, int], bytes], url: str, size: int) -> None:
        self._get, self.url, self.size, self.pos = get, url, size, 0
        self._blocks: dict[int, bytes] = {}
        self.fetched = 0

    def seekable(self) -> bool:
        """Always seekable."""
        return True

    def tell(self) -> int:
        """Current position."""
        return self.pos

    def seek(self, offset: int, whence: int = 0) -> int:
        """Move like ``io`` files do."""
        base = {0: 0, 1: self.pos, 2: self.size}[whence]
        self.pos = base + offset
        return self.pos

    def read(self, n: int = -1) -> bytes:
        """Read ``n`` bytes (all to the end when negative), fetching only missing blocks."""
        n = self.size - self.pos if n is None or n < 0 else min(n, self.size - self.pos)
        out = bytearray()
        while n > 0:
            index = self.pos // self.BLOCK
            if index not in self._blocks:
                start = index * self.BLOCK
                self._blocks[index] = self._get(self.url, start, min(self.size, start + self.BLOCK) - 1)
                self.fetched += len(self._blocks[index])
            offset = self.pos % self.BLOCK
            chunk = self._blocks[index][offset:offset + n]
            out += chunk
            self.pos += len(chunk)
            n -= len(chunk)
        return bytes(out)


def metadata_from_zip(fileobj: object) -> str:
    """The ``*.dist-info/METADATA`` text of a wheel (a path or a seekable file object)."""
    with zipfile.ZipFile(fileobj) as zf:  # type: ignore[arg-type]
        names = [n for n in zf.namelist() if n.count("/") == 1 and n.endswith(".dist-info/METADATA")]
        if not names:
            raise ValueError("no .dist-info/METADATA in the wheel")
        return zf.read(names[0]).decode("utf-8")


class Index:
    """PyPI's JSON simple index and wheel METADATA, cached as files under ``cache``."""

    def __init__(self, cache: Path, base: str = INDEX) -> None:
        self.cache, self.base = cache, base.rstrip("/")
        cache.mkdir(parents=True, exist_ok=True)
        self._clients: dict[str, Client] = {}  # one kept-alive client per origin (pypi.org, files.pythonhosted.org)
        self.tags = device_tags()

    def _get(self, url: str, headers: dict[str, str]) -> Response:
        """GET ``url``, following redirects (to another host too)."""
        from coder.backends.runtime.http import Client

        for _ in range(8):
            parts = urlsplit(url)
            origin = f"{parts.scheme}://{parts.netloc}"
            client = self._clients.get(origin) or self._clients.setdefault(origin, Client(origin, timeout=120))
            resp = client.get(url[len(origin):] or "/", headers=headers)
            if resp.status_code not in (301, 302, 303, 307, 308) or "location" not in resp.headers:
                return resp
            url = urljoin(url, resp.headers["location"])
        raise RuntimeError(f"{url}: too many redirects")

    def page(self, name: str) -> dict[str, object]:
        """The JSON simple-index page for ``name`` (cached)."""
        path = self.cache / f"index-{canonicalize_name(name)}.json"
        if not path.exists():
            resp = self._get(f"{self.base}/{canonicalize_name(name)}/",
                             headers={"Accept": "application/vnd.pypi.simple.v1+json"})
            if resp.status_code == 404:
                return {"files": []}
            resp.raise_for_status()
            path.write_text(resp.text)
        data = json.loads(path.read_text())
        return data if isinstance(data, dict) else {"files": []}

    def wheels(self, name: str) -> list[WheelFile]:
        """Device-compatible wheels of ``name``, newest first."""
        return index_wheels(self.page(name), self.tags)

    def _range(self, url: str, start: int, end: int) -> bytes:
        resp = self._get(url, headers={"Range": f"bytes={start}-{end}"})
        if resp.status_code != 206:
            raise RuntimeError(f"{url}: range request answered {resp.status_code}")
        return resp.content

    def metadata(self, wheel: WheelFile) -> Dist:
        """The wheel's METADATA, read through range requests (cached as ``<wheel>.METADATA``)."""
        path = self.cache / f"{wheel.filename}.METADATA"
        if not path.exists():
            path.write_text(metadata_from_zip(RangeReader(self._range, wheel.url, wheel.size)))
        return parse_metadata(path.read_text())


# --------------------------------------------------------------------------- resolution


@dataclass(frozen=True)
class _Want:
    spec: SpecifierSet
    parent: str  # "(root)", "name version" or "name[extra]"
    blame: tuple[str, str] | None  # (name, version) of a carried parent that could be another version


@dataclass
class Resolution:
    """What must be carried, what the device already satisfies, and every unmet pin."""

    root: str
    carry: dict[str, WheelFile] = field(default_factory=dict)
    replaces: dict[str, str] = field(default_factory=dict)  # carried name -> device version it shadows
    wanted_by: dict[str, list[str]] = field(default_factory=dict)  # name -> "parent wants spec" lines
    present: dict[str, str] = field(default_factory=dict)  # name -> device version (or "?")
    conflicts: list[str] = field(default_factory=list)
    no_wheel: list[str] = field(default_factory=list)
    banned: list[str] = field(default_factory=list)  # "name version" tried and dropped (backtracking)

    @property
    def feasible(self) -> bool:
        """True when nothing is pinned against the device and every need has a wheel."""
        return not self.conflicts and not self.no_wheel

    @property
    def carry_bytes(self) -> int:
        """Total size of the wheels to carry."""
        return sum(w.size for w in self.carry.values())


class _Retry(Exception):
    def __init__(self, ban: tuple[str, str]) -> None:
        self.ban = ban


def resolve(root: str, metadata: Callable[[WheelFile], Dist], wheels: Callable[[str], list[WheelFile]],
            device: dict[str, str | None] | None = None, abi_bound: Iterable[str] = ABI_BOUND,
            skip: Iterable[str] = (), max_tries: int = 60) -> Resolution:
    """Resolve ``root`` (a requirement string) against the device's packages; see the module doc.

    A constraint that no wheel (or no device version) can meet first drops the carried release that
    asked for it and tries again (newest-first picks backtrack this way); only what remains after that
    is reported. ``skip`` names packages left out on purpose (optional at run time), with their needs.
    """
    device = device_packages() if device is None else device
    bound, skipped = {canonicalize_name(n) for n in abi_bound}, {canonicalize_name(n) for n in skip}
    res = Resolution(root)
    # first keep every device version if older releases of the askers allow it; failing that, carry
    # replacements for the device's non-ABI-bound packages
    for keep_device in (True, False):
        bans: list[tuple[str, str]] = []
        for _ in range(max_tries):
            try:
                res = _resolve_once(root, metadata, wheels, device, bound, skipped, bans, keep_device)
            except _Retry as retry:
                bans.append(retry.ban)
                continue
            res.banned = [f"{n} {v}" for n, v in bans]
            break
        else:
            raise RuntimeError(f"{root}: no resolution after {max_tries} tries (dropped {bans})")
        if res.feasible:
            break
    return res


def _resolve_once(root: str, metadata: Callable[[WheelFile], Dist], wheels: Callable[[str], list[WheelFile]],
                  device: dict[str, str | None], bound: set[str], skipped: set[str],
                  bans: list[tuple[str, str]], keep_device: bool) -> Resolution:
    walk = _Walk(Resolution(root), metadata, wheels, bans)
    queue: list[tuple[Requirement, str, tuple[str, str] | None]] = [(Requirement(root), "(root)", None)]
    while queue:
        req, parent, blame = queue.pop(0)
        name = canonicalize_name(req.name)
        if name in skipped:
            continue
        walk.wants.setdefault(name, []).append(_Want(req.specifier, parent, blame))
        walk.res.wanted_by.setdefault(name, []).append(f"{parent} wants {req.specifier or '(any)'}")
        have = device.get(name, "absent") if name not in walk.res.carry else "absent"
        if have != "absent" and walk.device_settles(name, req, have, parent, blame, keep_device, name in bound):
            continue
        queue += walk.choose(name, req, have, parent)
    return walk.res


class _Walk:
    """The state of one resolution pass: what each name is asked for and what was chosen."""

    def __init__(self, res: Resolution, metadata: Callable[[WheelFile], Dist],
                 wheels: Callable[[str], list[WheelFile]], bans: list[tuple[str, str]]) -> None:
        self.res, self.metadata, self.wheels, self.bans = res, metadata, wheels, bans
        self.env = device_environment()
        self.wants: dict[str, list[_Want]] = {}
        for n, v in bans:
            self.wants.setdefault(n, []).append(_Want(SpecifierSet(f"!={v}"), "(dropped)", None))
        self.extras: dict[str, set[str]] = {}
        self.dists: dict[str, Dist] = {}

    def device_settles(self, name: str, req: Requirement, have: str | None, parent: str,
                       blame: tuple[str, str] | None, keep_device: bool, bound: bool) -> bool:
        """True when the device's copy answers ``req`` (or is reported as an unmet ABI-bound pin)."""
        if have is None or req.specifier.contains(have, prereleases=True):
            self.res.present[name] = have or "?"
            return True
        if keep_device and blame is not None and _bannable(blame, self.bans, self.wants):
            raise _Retry(blame)  # an older parent may accept the device's version
        if bound:
            self.res.conflicts.append(f"{parent} requires {name}{req.specifier}; the device has {name} {have} "
                                      "(ABI-bound: compiled extensions need that exact build)")
            return True
        return False

    def choose(self, name: str, req: Requirement, have: str | None,
               parent: str) -> list[tuple[Requirement, str, tuple[str, str] | None]]:
        """Pick (or keep) a wheel for ``name``; returns the requirements it adds to the queue."""
        wants, res = self.wants[name], self.res
        new_extras = set(req.extras) - self.extras.get(name, set())
        self.extras.setdefault(name, set()).update(req.extras)
        chosen = res.carry.get(name)
        if chosen is not None and all(w.spec.contains(chosen.version, prereleases=True) for w in wants):
            label, me = f"{name}[{','.join(sorted(new_extras))}]", (name, str(chosen.version))
            return [(r, label, me) for r in self.dists[name].requirements(new_extras, self.env)] if new_extras else []
        files = self.wheels(name)
        pick = _pick(wants, files)
        if pick is None:
            for w in reversed(wants):  # the newest ask that, dropped, leaves a wheel to pick
                if w.blame is not None and _bannable(w.blame, self.bans, self.wants) \
                        and _pick([o for o in wants if o is not w], files) is not None:
                    raise _Retry(w.blame)
            wanted = "; ".join(f"{w.parent} wants {w.spec or '(any)'}" for w in wants if w.parent != "(dropped)")
            (res.conflicts if files else res.no_wheel).append(f"{name}: no device-compatible wheel satisfies {wanted}")
            return []
        res.carry[name] = pick
        if have != "absent":
            res.replaces[name] = str(have)
        res.present.pop(name, None)
        self.dists[name] = self.metadata(pick)
        me = None if parent == "(root)" else (name, str(pick.version))  # the root release is fixed
        return [(r, f"{name} {pick.version}", me) for r in self.dists[name].requirements(self.extras[name], self.env)]


def _bannable(blame: tuple[str, str], bans: list[tuple[str, str]], wants: dict[str, list[_Want]]) -> bool:
    """A carried parent that may be dropped: not already dropped, not pinned exactly by the root."""
    if blame in bans:
        return False
    return not any(w.parent == "(root)" or (w.blame is None and str(w.spec).startswith("=="))
                   for w in wants.get(blame[0], []))


def _pick(wants: list[_Want], files: list[WheelFile]) -> WheelFile | None:
    python = ".".join(str(p) for p in DEVICE_PYTHON)
    explicit_pre = any(w.spec.prereleases for w in wants)
    for wheel in files:
        if wheel.requires_python and not SpecifierSet(wheel.requires_python).contains(python):
            continue
        if wheel.version.is_prerelease and not explicit_pre:
            continue
        if all(w.spec.contains(wheel.version, prereleases=True) for w in wants):
            return wheel
    return None
