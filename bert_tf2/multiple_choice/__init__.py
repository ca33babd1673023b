"""Multiple choice (SWAG-style): one [CLS] score per (context, choice) pair,
softmax over the choices, as in the BERT paper. See docs/multiple_choice.md."""
