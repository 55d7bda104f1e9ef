"""``coder bench``: speed and acceptance measurement on the user's own prompts (headless).

Modules: ``workloads`` (what is sent), ``runner`` (one server: single-stream,
concurrency, prefill), ``sweep`` (k / concurrency / profile / baseline plans),
``stats`` (pure statistics), ``report`` (JSON, derived figures, tables),
``plots`` (PNG) and ``compare`` (two results side by side).
"""
