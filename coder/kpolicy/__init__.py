"""Choosing k (draft tokens per verification step) per request class.

* :mod:`coder.kpolicy.policy`: the per-class k, user overrides and validation (:class:`KPolicy`);
  ``choose`` is pure and returns a :class:`coder.kchoice.KChoice` saying how to apply it.
* :mod:`coder.kpolicy.controller`: learns acceptance per position and step time, picks the
  throughput-maximising k, persists what it learned.
* :mod:`coder.kpolicy.restart`: whether relaunching a managed server (no per-request cap) at a
  new k pays, from the measured restart cost. The relaunch is ``BackendHandle.apply``.

Importing the package loads nothing: the TUI builds its policy only once a server is up
(:func:`policy_factory`).

The per-request draft-cap probe is engine-specific and lives in ``coder.backends.engines.llamacpp``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from coder.backends.runtime.handle import KChooser, PolicyFactory
    from coder.backends.runtime.server import ServerInfo
    from coder.config import Profile


def policy_factory(persist: bool = True) -> PolicyFactory:
    """How a :class:`~coder.backends.runtime.handle.BackendHandle` builds its k policy.

    ``persist``: keep what the adaptive controller and the restart cost learned on disk.
    """

    def make(profile: Profile, server: ServerInfo) -> KChooser:
        from coder.kpolicy.policy import KPolicy

        return KPolicy(profile, server, persist=persist)

    return make
