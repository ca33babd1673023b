"""Python prediction's generic parts: texts in, answers out, for any task.

  text        `TextPredictor`: a task's raw-string Keras model, batched,
              with named answers and export (`bert_tf2.models.load_predictor`);
              `checkpoint_model`: a text model from a run's files
  int8_task   int8 as a runtime of the text model: its task model run by
              ONNX Runtime (`Int8Task`, `int8_text_model`)
  int8        the ONNX export and int8 quantization (optional extra `int8`)
  onnx_graph  the ONNX graph's fusions

None of them imports a task: each task's answers, export and predictor of
a run's files (a `TextPredictor` too) live in its `predictor` module. See
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
