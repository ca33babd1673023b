"""The in-graph tokenizer: equal to the reference where documented, and the
documented differences pinned; tf.data and SavedModel use."""

import unicodedata

from hypothesis import given, settings, strategies as st
import pytest
import tensorflow as tf
import tensorflow_text

import tokenization
from bert_tf2.common import InputError
from tests.tokenization import adversarial
from tests.tokenization.conftest import minilm_vocab_path
from tests.tokenization.conftest import write_vocab
from tokenization import tf_text


@pytest.fixture(scope="module")
def differences():
  return set(tf_text.unicode_version_differences())


_GRAPH = {}


def _tokenizers(lower):
  if lower not in _GRAPH:
    path = minilm_vocab_path()
    graph = tf_text.InGraphTokenizer(path, do_lower_case=lower)
    fn = tf.function(graph.tokenize_to_pieces,
                     input_signature=[tf.TensorSpec([None], tf.string)])
    _GRAPH[lower] = (fn, tokenization.FullTokenizer(
        path, do_lower_case=lower, cache=False))
  return _GRAPH[lower]


def _in_graph(lower, texts):
  fn, _ = _tokenizers(lower)
  data = [t.encode("utf-8", "surrogatepass") if isinstance(t, str) else t
          for t in texts]
  out = fn(tf.constant(data, dtype=tf.string)).to_list()
  return [[p.decode("utf-8") for p in row] for row in out]


def _reference(lower, texts):
  # Same bytes as the graph gets (a lone surrogate is not valid UTF-8).
  return [_tokenizers(lower)[1].tokenize(
      t.encode("utf-8", "surrogatepass") if isinstance(t, str) else t)
          for t in texts]


def test_difference_set_is_small_and_due_to_unicode_versions(differences):
  assert 0 < len(differences) < 200
  for cp in differences:
    char = chr(cp)
    icu_lower = tf.strings.lower(char, encoding="utf-8").numpy().decode()
    icu_nfd = tensorflow_text.normalize_utf8(icu_lower, "NFD").numpy().decode()
    python = unicodedata.normalize("NFD", char.lower())
    assert icu_lower != char.lower() or icu_nfd != python, hex(cp)
    # Cased tokenization does not lower-case or normalize: no difference.
    assert _in_graph(False, [char]) == _reference(False, [char])
  # Lower-cased, the basic tokens differ for every one of them.
  sample = [chr(cp) for cp in sorted(differences)]
  graph = tf_text.InGraphTokenizer(minilm_vocab_path(), do_lower_case=True)
  words = graph.split_words(tf.constant([c.encode() for c in sample]))
  basic = tokenization.BasicTokenizer(do_lower_case=True)
  for char, got in zip(sample, words.to_list()):
    assert [w.decode() for w in got] != basic.tokenize(char), hex(ord(char))


@pytest.mark.parametrize("lower", [True, False])
def test_hand_picked_and_random_texts_match(lower, differences):
  texts = list(adversarial.HAND_PICKED) + adversarial.random_texts(
      400, seed=5)
  texts = [t for t in texts if not (lower and any(
      ord(c) in differences for c in t))]
  assert _in_graph(lower, texts) == _reference(lower, texts)


@pytest.mark.parametrize("lower", [True, False])
def test_random_bytes_match(lower):
  data = adversarial.random_bytes(200, seed=7)
  assert _in_graph(lower, data) == _reference(lower, data)


def test_final_sigma_cases():
  texts = [u"\u039f\u0394\u039f\u03a3", u"\u0391\u03a3.", u"\u03a3",
           u"\u0391\u03a3'\u0391", u"(\u0391\u03a3)", u"\u0391\u03a3\u0391",
           u"\u0391\u03a3 \u03a3\u0391"]
  assert _in_graph(True, texts) == _reference(True, texts)


@settings(max_examples=60, deadline=None)
@given(texts=st.lists(st.text(alphabet=st.characters(
    blacklist_categories=("Cs",)), max_size=40), min_size=1, max_size=8),
       lower=st.booleans())
def test_property_in_graph_equals_reference(texts, lower, differences):
  if lower:
    texts = [t for t in texts if not any(ord(c) in differences for c in t)]
  assert _in_graph(lower, texts) == _reference(lower, texts)


def test_in_tf_data_and_savedmodel(tmp_path):
  path = minilm_vocab_path()
  tok = tf_text.InGraphTokenizer(path, do_lower_case=True)
  texts = [u"Hello, world!", u"Caf\u00e9 \u4e2d\u6587", u""]
  reference = tokenization.FullTokenizer(path)
  expected = [reference.tokenize_to_ids(t) for t in texts]
  ds = tf.data.Dataset.from_tensor_slices(texts).batch(2).map(tok.tokenize)
  got = [row for batch in ds for row in batch.to_list()]
  assert got == expected

  module = tf.Module()
  module.tokenizer = tok
  module.serve = tf.function(
      lambda t: tok.tokenize(t).to_tensor(default_value=-1),
      input_signature=[tf.TensorSpec([None], tf.string)])
  tf.saved_model.save(module, str(tmp_path / "saved"))
  loaded = tf.saved_model.load(str(tmp_path / "saved"))
  dense = loaded.serve(tf.constant(texts)).numpy().tolist()
  assert [[i for i in row if i >= 0] for row in dense] == expected


def test_unsupported_options_are_clear_errors(tmp_path):
  path = write_vocab(tmp_path / "v.txt", ["hello", "world"])
  with pytest.raises(InputError, match=r"has no \[UNK\] entry"):
    tf_text.InGraphTokenizer(path)
  with pytest.raises(ValueError, match="preserve_unused_tokens"):
    tf_text.InGraphTokenizer(minilm_vocab_path(), preserve_unused_tokens=True)


def test_odd_vocab_entries_keep_ids(tmp_path):
  path = write_vocab(tmp_path / "v.txt", ["[UNK]", "", "##", "a b", "x",
                                          "##y"])
  tok = tf_text.InGraphTokenizer(path)
  assert tok.tokenize(tf.constant(["xy x q"])).to_list() == [[4, 5, 4, 0]]
