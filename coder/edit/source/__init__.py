"""The file an edit works on: its symbols and regions, its units, and exact text operations."""
