"""Knowledge sources, dense/BM25 indexes and evidence search (issue 3, not implemented yet)."""
