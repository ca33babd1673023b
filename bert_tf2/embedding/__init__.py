"""Sentence embeddings: pooling, `encode`, similarity search, the
multiple-negatives ranking loss and retrieval metrics. See docs/embedding.md."""
