"""The key bar: Textual's Footer without the watcher it leaks on every recompose.

Textual's Footer rebuilds its FooterKey widgets whenever the screen's bindings change
(every review pushed and popped, every focus move), and each new key ``data_bind``s
the Footer's ``compact`` reactive. That adds a watcher to the Footer which Textual
drops only when ``compact`` changes, which it never does here: every removed key,
with its styles and render cache, stayed reachable (about 40 KB per review screen in
the TUI soak). This Footer prunes the watchers of keys that are gone after each
recompose.
"""

from __future__ import annotations

from textual.widgets import Footer


class KeyFooter(Footer):
    """A Footer that does not keep its removed keys alive (see the module docstring)."""

    async def recompose(self) -> None:
        """Rebuild the keys, then forget the watchers of the keys just removed."""
        await super().recompose()
        watchers: dict[str, list[tuple[object, object]]] = getattr(self, "__watchers", {})
        for attached in watchers.values():
            attached[:] = [(node, callback) for node, callback in attached
                           if not (getattr(node, "_closing", False) or getattr(node, "_closed", False))]
