"""The quick start's stage runner (`stages`), of bert_tf2.scripts.quickstart."""
