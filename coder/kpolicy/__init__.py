"""Choosing k (draft tokens per verification step) per request class.

* :mod:`coder.kpolicy.policy`: the per-class k, user overrides and validation (:class:`KPolicy`);
  ``choose`` is pure and returns a :class:`KChoice` saying how to apply it.
* :mod:`coder.kpolicy.controller`: learns acceptance per position and step time, picks the
  throughput-maximising k, persists what it learned.
* :mod:`coder.kpolicy.restart`: whether relaunching a managed server (no per-request cap) at a
  new k pays, from the measured restart cost. The relaunch is ``BackendHandle.apply``.

The per-request draft-cap probe is engine-specific and lives in ``coder.backends.engines.llamacpp``.
"""

from coder.kpolicy.policy import KChoice, KPolicy

__all__ = ["KChoice", "KPolicy"]
