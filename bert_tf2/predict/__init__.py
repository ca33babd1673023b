"""Python prediction's generic parts: texts in, answers out, for any task.

  text        `TextPredictor`: a task's raw-string Keras model, batched,
              with named answers and export (`bert_tf2.models.load_predictor`)
  base        `Predictor`: config, vocabulary, checkpoint, `from_output_dir`
              (model.json and its recorded, or the best, checkpoint)
  batching    `features_function`: a text model's preprocessor over
              texts; `run_batches`: token-id batches of similar lengths
  int8        the int8 ONNX Runtime path (optional extra `int8`)
  onnx_graph  the ONNX graph of the encoder

None of them imports a task. Each task's answers and export for
`TextPredictor` live in its `predictor` module; NER's predictor
(`bert_tf2.ner.predictor.EntityTagger`) and multiple choice's
(`bert_tf2.multiple_choice.predictor.MultipleChoicePredictor`) are
`TextPredictor`s, and `SentenceEncoder.encode` runs its text model. The
predictors on `base.Predictor` (precision and int8 of their own; the
classifier's and the feature encoder's features from their text model's
`BertPreprocessor`, SQuAD's windows still built in Python):

  bert_tf2.classifier.predictor.ClassifierPredictor      texts or pairs ->
      label, probabilities (long texts through sliding windows)
  bert_tf2.squad.predictor.SquadPredictor                (question, context)
      -> answer text, score, no-answer
  bert_tf2.feature_extraction.predictor.FeatureEncoder   texts -> vectors

Each `export(dir)` writes a SavedModel with raw-string signatures that
needs only `tensorflow` and `tensorflow_text` to serve. See
docs/prediction.md.
"""

# The task predictors' former home; importing them from here names the new
# one (importing them would make this generic package import the tasks).
_MOVED = {"ClassifierPredictor": "bert_tf2.classifier.predictor",
          "SquadPredictor": "bert_tf2.squad.predictor"}


def __getattr__(name):
  if name in _MOVED:
    raise ImportError("bert_tf2.predict.%s has moved to its task: from %s "
                      "import %s" % (name, _MOVED[name], name))
  raise AttributeError("module 'bert_tf2.predict' has no attribute %r"
                       % (name,))
