"""Detection metrics, FActScore and its successors (issue 7, not implemented yet)."""
