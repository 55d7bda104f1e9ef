"""Model files: the embedded demo GGUF, GGUF metadata and HF checkpoint inspection."""
