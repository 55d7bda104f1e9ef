"""The diff view of the review screen."""
