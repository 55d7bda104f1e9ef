"""A GGUF file's metadata keys and tensor names, read in one pass without materialising arrays.

gguf-py's ``GGUFReader`` builds a numpy view for every element of every array, so a
49k-token vocabulary took seconds (``coder doctor`` spent 5 of its 6 s there). Coder
needs scalars, short numeric lists, array lengths and tensor names: this reader
keeps those and seeks past the rest. Every count and length is checked against the
file's size before it is used, so a crafted or truncated file is one CoderError line,
never a huge allocation (format: ggml ``docs/gguf.md``, versions 2 and 3).
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass, field
from pathlib import Path

from coder.errors import CoderError

# value type -> struct format of one element (8: string, 9: array are handled apart)
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
MAX_STRING = 1 << 20  # a key, a name or one vocabulary entry is far shorter
KEEP_LIST = 4096  # numeric arrays up to this long are kept (target layer lists); longer ones only counted

Value = int | float | bool | str | list[int | float | bool]


@dataclass
class GgufMeta:
    """Metadata values (scalars, strings, short numeric lists), array lengths and tensor names."""

    values: dict[str, Value] = field(default_factory=dict)
    array_lengths: dict[str, int] = field(default_factory=dict)
    tensors: set[str] = field(default_factory=set)


class _Reader:
    """Parses from a memory map by offset: no system call per field (a vocabulary is 100k fields)."""

    def __init__(self, data: mmap.mmap, path: Path) -> None:
        self.data, self.size, self.path, self.pos = data, len(data), path, 0

    def bad(self, what: str) -> CoderError:
        return CoderError(f"{self.path}: corrupt GGUF: {what} at byte {self.pos}")

    def skip(self, n: int) -> None:
        if n < 0 or self.pos + n > self.size:
            raise self.bad(f"{n} bytes run past the end of the file")
        self.pos += n

    def take(self, n: int) -> bytes:
        start = self.pos
        self.skip(n)
        return self.data[start:self.pos]

    def scalar(self, fmt: str) -> int | float | bool:
        start = self.pos
        self.skip(struct.calcsize(fmt))
        value: int | float | bool = struct.unpack_from(fmt, self.data, start)[0]
        return value

    def count(self, each: int) -> int:
        n = int(self.scalar("<Q"))
        if n * each > self.size - self.pos:  # every element takes at least ``each`` bytes
            raise self.bad(f"a count of {n} cannot fit in the file")
        return n

    def string(self, keep: bool = True) -> str:
        n = self.count(1)
        if n > MAX_STRING:
            raise self.bad(f"a string of {n} bytes")
        if not keep:
            self.pos += n  # count() checked it fits
            return ""
        return self.take(n).decode("utf-8", errors="replace")

    def skip_strings(self, n: int) -> None:
        data, pos, size = self.data, self.pos, self.size
        for _ in range(n):  # the hot loop of a vocabulary: kept to plain arithmetic
            if pos + 8 > size:
                self.pos = pos
                raise self.bad("a string runs past the end of the file")
            pos += 8 + int.from_bytes(data[pos:pos + 8], "little")
        if pos > size:
            raise self.bad("a string runs past the end of the file")
        self.pos = pos

    def value(self, kind: int, meta: GgufMeta, key: str) -> None:
        if kind in _SCALARS:
            meta.values[key] = self.scalar(_SCALARS[kind])
        elif kind == _STRING:
            meta.values[key] = self.string()
        elif kind == _ARRAY:
            inner = int(self.scalar("<I"))
            if inner == _STRING:
                n = self.count(8)
                self.skip_strings(n)
            elif inner in _SCALARS:
                each = struct.calcsize(_SCALARS[inner])
                n = self.count(each)
                if n <= KEEP_LIST:
                    meta.values[key] = list(struct.unpack(f"<{n}{_SCALARS[inner][1]}", self.take(n * each)))
                else:
                    self.skip(n * each)
            else:
                raise self.bad(f"array of value type {inner} in {key}")
            meta.array_lengths[key] = n
        else:
            raise self.bad(f"value type {kind} in {key}")


def read_meta(path: Path) -> GgufMeta:
    """Metadata and tensor names of the GGUF at ``path``; one CoderError line for any malformed file."""
    try:
        with path.open("rb") as fh:
            if path.stat().st_size < 24:  # magic, version and the two counts
                raise CoderError(f"{path}: not a GGUF file (too short)")
            with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
                return _parse(_Reader(data, path))
    except OSError as exc:
        raise CoderError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _parse(r: _Reader) -> GgufMeta:
    if r.take(4) != b"GGUF":
        raise CoderError(f"{r.path}: not a GGUF file (bad magic)")
    version = int(r.scalar("<I"))
    if version not in (2, 3):
        raise CoderError(f"{r.path}: GGUF version {version} is not supported (2 or 3)")
    n_tensors, n_kv = r.count(8), r.count(8)
    meta = GgufMeta()
    for _ in range(n_kv):
        key = r.string()
        r.value(int(r.scalar("<I")), meta, key)
    for _ in range(n_tensors):
        meta.tensors.add(r.string())
        n_dims = int(r.scalar("<I"))
        if n_dims > 8:  # ggml tensors have at most 4
            raise r.bad(f"a tensor of {n_dims} dimensions")
        r.skip(8 * n_dims + 4 + 8)  # the dimensions, the type, the data offset
    return meta
