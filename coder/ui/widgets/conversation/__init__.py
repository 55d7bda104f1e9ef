"""Transcript, prompt and syntax highlighting."""
