"""Reading the instruction: one change spec, its names resolved against the code."""
