"""Inference backends: building, launching, verifying and attaching to servers."""
