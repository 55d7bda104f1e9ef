"""Sending an edit: the engine, prompts, the token budget, streaming with its guard, plan steps."""
