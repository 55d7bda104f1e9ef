"""Command-line entry points; each command group lives in its own module."""
