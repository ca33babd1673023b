"""Feature extraction (extract_features.py): BERT activations as JSON Lines.

  examples:  read_examples (lines "A" or "A ||| B"), InputExample,
             InputFeatures, convert_examples_to_features
  extractor: FeatureExtractor (checkpoint -> chosen encoder layers),
             parse_layers
  output:    format_line (the original's JSONL format, or pooled vectors)
  pipeline:  extract_to_file (the whole script), run (its parsed flags)
  text_model: FeatureTextModel / EncoderLayers (raw texts -> vectors)
  predictor: FeatureEncoder (its `TextPredictor`), serving: its SavedModel

See docs/squad.md ("Feature extraction").
"""

from bert_tf2.feature_extraction.examples import convert_examples_to_features
from bert_tf2.feature_extraction.examples import InputExample
from bert_tf2.feature_extraction.examples import InputFeatures
from bert_tf2.feature_extraction.examples import read_examples
from bert_tf2.feature_extraction.extractor import FeatureExtractor
from bert_tf2.feature_extraction.extractor import parse_layers
from bert_tf2.feature_extraction.output import format_line
from bert_tf2.feature_extraction.output import POOLING_MODES
from bert_tf2.feature_extraction.pipeline import extract_to_file
