"""Writing the result: the diff, the atomic write, git, and a plan's one review and one commit."""
