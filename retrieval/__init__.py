"""Knowledge sources, dense/BM25 indexes and evidence search."""
