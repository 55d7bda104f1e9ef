"""The token counter asks the server once per text: auto mode's candidates count the same texts again."""

from __future__ import annotations

from coder.errors import CoderError
from coder.tokens import EXACT_KEPT, TokenCounter


class Server:
    """A tokenizer that counts characters and remembers what it was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.down = False

    def tokenize(self, text: str) -> int:
        if self.down:
            raise CoderError("gone")
        self.asked.append(text)
        return len(text)


def test_a_text_is_sent_once() -> None:
    server = Server()
    counter = TokenCounter(server)
    messages = [{"content": "system prompt"}, {"content": "the file"}]
    first = counter.count_messages(messages)
    assert counter.count_messages(messages) == first
    assert server.asked == ["system prompt", "the file"]


def test_the_memory_is_bounded() -> None:
    server = Server()
    counter = TokenCounter(server)
    for i in range(EXACT_KEPT + 5):
        counter.count(f"text {i}")
    assert len(counter.exact) == EXACT_KEPT
    counter.count("text 0")  # the oldest went: asked again
    assert server.asked.count("text 0") == 2


def test_a_gone_server_still_falls_back() -> None:
    server = Server()
    counter = TokenCounter(server)
    server.down = True
    assert counter.count("hello world") > 0 and counter.server is None
