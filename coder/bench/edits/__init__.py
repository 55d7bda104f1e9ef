"""``coder bench --edits``: does the edit land correctly? Real files, real requests, mechanical checks."""
