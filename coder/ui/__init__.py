"""coder's Textual TUI: the only package that imports Textual (the headless core never does)."""
