"""Prompt-cache warm-up, one home: prefill the next edit's prompt prefix while the user types.

* :mod:`coder.edit.run.warmup.cache` — what to warm and when: the prefix (built by the edit's own
  prompt builder), the :class:`~coder.edit.run.warmup.cache.CacheWarmer` rules, and the model of
  what the server's prompt cache probably holds;
* how a prefix reaches each engine's prompt cache is the engine adapter's (``warm_sender``,
  :mod:`coder.backends.engines.warm`);
* :mod:`coder.edit.run.warmup.context` — the session's policy: warm the files in the context and
  the region a typed instruction names, following the backend.
"""
