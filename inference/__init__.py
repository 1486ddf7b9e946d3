"""Generation backends, the editor pipeline and servers (issue 6, not implemented yet)."""
