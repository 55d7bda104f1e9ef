"""Making and proving a llama-server binary: the pinned source, coder's anchored source patches, the CPU
configuration chain, the build cache and the smoke test."""
