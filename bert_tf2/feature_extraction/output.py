"""JSON Lines output of extract_features.py.

pooling="none": the original's format, one line per input line, real
tokens only, values rounded to 6 decimals, layers in --layers order;
"cls" / "mean": one sentence vector per layer and line (the [CLS] token's,
or the mean over the real tokens). Both formats: docs/squad.md.

Example:
  >>> import numpy as np
  >>> class F: unique_id, tokens = 0, ["[CLS]", "hi", "[SEP]"]
  >>> line = format_line(F, {-1: np.ones([4, 2], np.float32)}, "mean")
  >>> line
  '{"linex_index": 0, "pooling": "mean", "layers": [{"index": -1, "values": [1.0, 1.0]}]}'
"""

import json

import numpy as np

POOLING_MODES = ("none", "cls", "mean")


def _layer(index, vector):
  return {"index": index, "values": [round(x, 6) for x in vector.tolist()]}


def format_line(feature, layer_outputs, pooling="none"):
  """One output line (no newline).

  Args:
    feature: InputFeatures (unique_id, tokens).
    layer_outputs: {layer index: float array [seq_length, hidden]}, in
      --layers order.
    pooling: "none", "cls" or "mean".
  """
  out = {"linex_index": feature.unique_id}
  num_tokens = len(feature.tokens)
  if pooling == "none":
    out["features"] = [
        {"token": token,
         "layers": [_layer(index, output[i])
                    for index, output in layer_outputs.items()]}
        for i, token in enumerate(feature.tokens)]
  elif pooling in ("cls", "mean"):
    out["pooling"] = pooling
    layers = []
    for index, output in layer_outputs.items():
      if pooling == "cls":
        vector = output[0]
      else:
        vector = np.mean(output[:num_tokens].astype(np.float64), axis=0)
        vector = vector.astype(np.float32)
      layers.append(_layer(index, vector))
    out["layers"] = layers
  else:
    raise ValueError("pooling must be one of %s, got %r" % (POOLING_MODES,
                                                           pooling))
  return json.dumps(out)
