"""Python prediction and serving: texts in, labels / answers / vectors out.

  ClassifierPredictor  texts or (text_a, text_b) pairs -> label, probabilities
                       (long texts through sliding windows)
  SquadPredictor       (question, context) -> answer text, score, no-answer

  (FeatureEncoder, texts -> token or sentence vectors, is feature
  extraction's predictor: `bert_tf2.feature_extraction.predictor`)

Each is built from a training output_dir (`from_output_dir`, reading the
predictor.json the scripts write there and the latest, or best, checkpoint)
or from explicit files, and `export(dir)` writes a SavedModel with raw-string
signatures that needs only `tensorflow` and `tensorflow_text` to serve.

The generic parts live here too: `base.Predictor` (config, vocabulary,
checkpoint), `serving` (SavedModel checks and writes), `int8` and
`onnx_graph` (the int8 ONNX Runtime path); they import no task.
`int8=True` (ClassifierPredictor, FeatureEncoder) predicts through an int8
ONNX Runtime export (`bert_tf2.predict.int8`, optional extra `int8`).
See docs/prediction.md.
"""

from bert_tf2.predict.classifier import ClassifierPredictor
from bert_tf2.predict.squad import SquadPredictor

__all__ = ["ClassifierPredictor", "SquadPredictor"]
