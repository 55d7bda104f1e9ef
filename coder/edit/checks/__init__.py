"""Checks on a reply and its result before anything is written."""
