"""The headless edit session: what the TUI drives, with no Textual import (tests run it without a UI).

* :mod:`coder.session.edit_session` — :class:`EditSession`: queue, state machine, mentions, commands;
* :mod:`coder.session.events` — what the session reports to its front end;
* :mod:`coder.session.feed` — coalescing a token stream into a few UI batches per second;
* :mod:`coder.session.context`, :mod:`coder.session.commands` — @-mentions and slash-command parsing;
"""
