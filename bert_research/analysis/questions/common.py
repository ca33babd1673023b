"""What several questions share: the embedding variable names, loading a
checkpoint, the model in one graph function (`graph_forward`), the
tokenizer, BBC sentences and the topic probe.
"""

import numpy as np


WORD = "bert/embeddings/word_embeddings"
POSITION = "bert/embeddings/position_embeddings"
SEGMENT = "bert/embeddings/token_type_embeddings"


def probe_predictions(train_x, train_y, test_x):
  """A logistic regression (standardised features) fit on the train
  vectors; its labels for the test vectors (numpy [N_test])."""
  from sklearn.linear_model import LogisticRegression  # pylint: disable=g-import-not-at-top
  from sklearn.pipeline import make_pipeline  # pylint: disable=g-import-not-at-top
  from sklearn.preprocessing import StandardScaler  # pylint: disable=g-import-not-at-top
  probe = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
  return probe.fit(train_x, train_y).predict(test_x)


def load_model(bert_config_file, init_checkpoint):
  """(BertModel with the checkpoint's weights, BertConfig)."""
  import modeling  # pylint: disable=g-import-not-at-top
  config = modeling.BertConfig.from_json_file(bert_config_file)
  model = modeling.BertModel(config)
  model({"input_ids": np.zeros([1, 2], np.int32)})
  if init_checkpoint:
    modeling.init_from_checkpoint(model, init_checkpoint)
  return model, config


def graph_forward(model, **call_kwargs):
  """`model(inputs, **call_kwargs)` as one graph function.

  The commands run the model once per sentence, article or batch; called
  eagerly a MiniLM forward pass took 68-74 ms at 128 tokens against 15 ms
  in a graph function (2 cores). Traced once, for int32 inputs of any
  batch size and length (`common.any_shape`).
  (`nonlinearity` makes one per patched forward pass, inside the patch's
  context; its calibration pass stays eager: it reads values in NumPy.)

  Args:
    model: a BertModel; call_kwargs: its call's keyword arguments.

  Returns:
    fn(inputs: dict of int arrays [batch, length]) -> the model's outputs
    (its tf.function: fn.tf_function).
  """
  from bert_tf2.common import any_shape  # pylint: disable=g-import-not-at-top
  forward = any_shape.any_shape_function(
      lambda inputs: model(inputs, **call_kwargs))

  def call(inputs):
    return forward({k: np.asarray(v, np.int32) for k, v in inputs.items()})
  call.tf_function = forward.tf_function
  return call


def full_tokenizer(vocab_file):
  from tokenization import FullTokenizer  # pylint: disable=g-import-not-at-top
  return FullTokenizer(vocab_file=vocab_file, do_lower_case=True)


def encode(tokenizer, text, max_len):
  from bert_research.analysis import attention  # pylint: disable=g-import-not-at-top
  _, ids, types = attention.encode_text(tokenizer, text,
                                        max_seq_length=max_len)
  return ids[None], types[None]


def bbc_sentences(count, min_words=12):
  """The first `count` sentences of >= min_words words of 40 BBC articles."""
  from bert_research.analysis import positions_why  # pylint: disable=g-import-not-at-top
  return [s for a in positions_why.bbc_articles(40) for s in a
          if len(s.split()) >= min_words][:count]
