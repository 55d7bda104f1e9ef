"""coder: a terminal coding assistant built around local speculative decoding."""

__version__ = "0.1.0"
