"""A GGUF's metadata and tensor names, read from its header without loading anything else.

gguf-py's ``GGUFReader`` builds every array as it parses (a 151,936-token vocabulary plus its merges)
and took 16 s on the 2-core box for Qwen2.5-Coder-1.5B; this reader keeps scalars, strings and short
arrays, only counts long ones, and reads the tensor names (about 0.3 s for the same file). The
layout follows the GGUF v2/v3 spec (ggml ``docs/gguf.md``): magic, version, tensor count, key/value
count, the key/value pairs, then one info record per tensor.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from coder.errors import CoderError

# value type -> struct format (gguf-py GGUFValueType); 8 = string, 9 = array
_SCALAR = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
SHORT_ARRAY = 4096  # arrays up to this many elements keep their values (target layer lists, not vocabularies)

Value = int | float | bool | str | list["Value"] | None


@dataclass
class GgufHeader:
    """Metadata values (long arrays as None), every array's length, and the tensor names."""

    fields: dict[str, Value] = field(default_factory=dict)
    array_lens: dict[str, int] = field(default_factory=dict)
    tensors: set[str] = field(default_factory=set)


class _Reader:
    """Sequential reads over the header region, fetched from the file in 1 MiB steps."""

    def __init__(self, fh: BinaryIO, size: int) -> None:
        self.fh, self.size, self.data, self.pos = fh, size, bytearray(), 0

    def take(self, n: int) -> bytes:
        if self.pos + n > self.size:  # a corrupt length: fail before trying to read it
            raise EOFError("the header runs past the end of the file")
        while self.pos + n > len(self.data):
            more = self.fh.read(max(n, 1 << 20))
            if not more:
                raise EOFError("the header runs past the end of the file")
            self.data += more
        out = bytes(self.data[self.pos:self.pos + n])
        self.pos += n
        return out

    def unpack(self, fmt: str) -> int | float | bool:
        value: int | float | bool = struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]
        return value

    def count(self) -> int:
        return int(self.unpack("<Q"))

    def string(self) -> str:
        return self.take(self.count()).decode("utf-8", errors="replace")

    def value(self, vtype: int, keep: bool = True) -> Value:
        if vtype in _SCALAR:
            return self.unpack(_SCALAR[vtype])
        if vtype == _STRING:
            text = self.string()
            return text if keep else None
        if vtype == _ARRAY:
            etype, n = int(self.unpack("<I")), self.count()
            if etype in _SCALAR and not (keep and n <= SHORT_ARRAY):
                self.take(struct.calcsize(_SCALAR[etype]) * n)  # skipped whole: no per-element work
                return None
            items = [self.value(etype, keep and n <= SHORT_ARRAY) for _ in range(n)]
            return items if keep and n <= SHORT_ARRAY else None
        raise ValueError(f"unknown value type {vtype}")


def read_header(path: Path) -> GgufHeader:
    """Parse ``path``'s header; one-line CoderError for a file that is not a readable GGUF v2/v3."""
    try:
        with path.open("rb") as fh:
            r = _Reader(fh, path.stat().st_size)
            if r.take(4) != b"GGUF":
                raise CoderError(f"{path}: not a GGUF file (bad magic)")
            if (version := int(r.unpack("<I"))) not in (2, 3):
                raise ValueError(f"GGUF version {version} is not supported")
            n_tensors, n_kv = r.count(), r.count()
            header = GgufHeader()
            for _ in range(n_kv):
                key, vtype = r.string(), int(r.unpack("<I"))
                if vtype == _ARRAY:
                    start = r.pos
                    r.take(4)
                    header.array_lens[key] = r.count()
                    r.pos = start
                header.fields[key] = r.value(vtype)
            for _ in range(n_tensors):
                header.tensors.add(r.string())
                r.take(8 * int(r.unpack("<I")) + 4 + 8)  # dims, type, offset
    except OSError as exc:
        raise CoderError(f"{path}: cannot read: {exc.strerror}") from None
    except (ValueError, EOFError, struct.error, OverflowError, MemoryError) as exc:
        raise CoderError(f"{path}: corrupt GGUF: {exc}") from None
    return header
