"""SquadPreprocessor: the windows and training positions of the original's
convert_examples_to_features, in graph (fixture: accents, CJK, U+202F,
an unrecoverable answer, a context of many windows)."""

import pytest
import tensorflow as tf

import tokenization
from bert_tf2.common import InputError
from bert_tf2.squad import examples as examples_lib
from bert_tf2.squad import features as features_lib
from bert_tf2.squad.preprocessor import SquadPreprocessor
from tests.squad import fixture_data

SEQ, STRIDE, QUERY = 64, 16, 12


def _columns(data, version_2):
  """questions, contexts, answer_starts (-1: none), answer_texts, ids."""
  questions, contexts, starts, texts, ids = [], [], [], [], []
  for article in data["data"]:
    for paragraph in article["paragraphs"]:
      for qa in paragraph["qas"]:
        ids.append(qa["id"])
        questions.append(qa["question"])
        contexts.append(paragraph["context"])
        if version_2 and qa["is_impossible"]:
          starts.append(-1)
          texts.append("")
        else:
          starts.append(qa["answers"][0]["answer_start"])
          texts.append(qa["answers"][0]["text"])
  return questions, contexts, starts, texts, ids


def _original(data, version_2, lower, is_training):
  examples = examples_lib.examples_from_json(data["data"], is_training,
                                             version_2)
  tokenizer = tokenization.FullTokenizer(fixture_data.real_vocab_file(),
                                         do_lower_case=lower)
  features = []
  features_lib.convert_examples_to_features(
      examples, tokenizer, SEQ, STRIDE, QUERY, is_training, features.append)
  return examples, features


@pytest.mark.parametrize("version_2,lower", [(False, True), (True, True),
                                             (False, False)])
def test_training_windows_equal_the_originals(version_2, lower):
  data = fixture_data.build(version_2)
  examples, want = _original(data, version_2, lower, is_training=True)
  *columns, ids = _columns(data, version_2)
  layer = SquadPreprocessor(fixture_data.real_vocab_file(),
                            do_lower_case=lower, max_seq_length=SEQ,
                            doc_stride=STRIDE, max_query_length=QUERY)
  got = layer(tuple(tf.constant(c) for c in columns))
  got = {k: v.numpy().tolist() for k, v in got.items()}
  assert len(got["input_ids"]) == len(want)
  # Unrecoverable answers ("synthesis XX", "Dr.<U+00A0>Smith") are skipped,
  # as the original does.
  kept = [ids.index(example.qas_id) for example in examples]
  assert len(kept) == len(ids) - 2
  for i, feature in enumerate(want):
    assert got["input_ids"][i] == feature.input_ids, feature.tokens
    assert got["input_mask"][i] == feature.input_mask
    assert got["segment_ids"][i] == feature.segment_ids
    assert got["start_positions"][i] == feature.start_position, feature.tokens
    assert got["end_positions"][i] == feature.end_position
    assert got["example_index"][i] == kept[feature.example_index]
  # Windows hold answers (and [CLS] elsewhere): the positions are exercised.
  assert sum(p > 0 for p in got["start_positions"]) >= 10
  assert max(got["example_index"]) > 0 and len(want) > len(kept) + 20


def test_prediction_windows_equal_the_originals():
  data = fixture_data.build(False)
  _, want = _original(data, False, True, is_training=False)
  questions, contexts = _columns(data, False)[:2]
  layer = SquadPreprocessor(fixture_data.real_vocab_file(),
                            max_seq_length=SEQ, doc_stride=STRIDE,
                            max_query_length=QUERY)
  got = layer((tf.constant(questions), tf.constant(contexts)))
  assert got["input_ids"].numpy().tolist() == [f.input_ids for f in want]
  assert got["segment_ids"].numpy().tolist() == [f.segment_ids for f in want]
  assert got["example_index"].numpy().tolist() == [f.example_index
                                                   for f in want]
  assert "start_positions" not in got


def test_empty_context_has_no_training_window():
  layer = SquadPreprocessor(fixture_data.real_vocab_file(), max_seq_length=16,
                            doc_stride=4, max_query_length=4)
  got = layer((tf.constant(["who?", "who?"]), tf.constant([" ", "ann ran"]),
               tf.constant([-1, 0]), tf.constant(["", "ann"])))
  assert got["example_index"].numpy().tolist() == [1]


def test_config_round_trip_and_bad_lengths():
  layer = SquadPreprocessor(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a"],
                            max_seq_length=32, doc_stride=7,
                            max_query_length=5, do_lower_case=False)
  again = SquadPreprocessor.from_config(layer.get_config())
  assert (again.vocabulary, again.max_seq_length, again.doc_stride,
          again.max_query_length, again.do_lower_case) == (
              layer.vocabulary, 32, 7, 5, False)
  with pytest.raises(InputError, match="no room for context windows"):
    SquadPreprocessor(layer.vocabulary, max_seq_length=8, max_query_length=5)


def test_serving_graph_tokenizes_each_text_once(monkeypatch):
  """The answer text is cut from the preprocessor's own analysis of the
  contexts (CONTEXT_KEYS), not from a second one: tracing the SavedModel's
  signature tokenizes the questions and the context words, twice in all
  (three times when squad_outputs analysed the contexts again)."""
  import modeling  # pylint: disable=g-import-not-at-top
  from bert_tf2.squad import serving  # pylint: disable=g-import-not-at-top
  from bert_tf2.squad.model import SquadModel  # pylint: disable=g-import-not-at-top
  layer = SquadPreprocessor(fixture_data.real_vocab_file(), max_seq_length=SEQ,
                            doc_stride=STRIDE, max_query_length=QUERY)
  config = modeling.BertConfig(vocab_size=len(layer.vocabulary),
                               hidden_size=8, num_hidden_layers=1,
                               num_attention_heads=2, intermediate_size=8,
                               max_position_embeddings=SEQ)
  server = serving.squad_server(SquadModel(config), layer)
  calls = []
  tokenize = type(layer.tokenizer).tokenize
  monkeypatch.setattr(type(layer.tokenizer), "tokenize",
                      lambda self, text: calls.append(1) or tokenize(self, text))
  serve = server.text_signature(serving.TEXT_INPUTS)
  out = serve(tf.constant(["who ran?"]), tf.constant(["ann ran home"]))
  assert len(calls) == 2
  assert out["answer"].shape == [1]
