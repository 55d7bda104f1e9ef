"""The speculation panel."""
