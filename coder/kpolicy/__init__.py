"""Choosing k (draft tokens per verification step) per request class.

* :mod:`coder.kpolicy.policy`: the per-class k, user overrides and validation (:class:`KPolicy`).
* :mod:`coder.kpolicy.controller`: learns acceptance per position and step time, picks the
  throughput-maximising k, persists what it learned.
* :mod:`coder.kpolicy.restart`: switches k by relaunching a managed server when no per-request
  cap exists, only when the predicted gain beats the measured restart cost.
* :mod:`coder.kpolicy.probe`: does this server honour ``speculative.n_max`` per request?
"""

from coder.kpolicy.policy import KChoice, KPolicy

__all__ = ["KChoice", "KPolicy"]
