"""int8 inference (ONNX Runtime, `bert_tf2.predict.int8`) and per-batch
padding trimming of the Python predictors.

Tiny random-weight models (tests/predict/predict_test.py's); int8 outputs
must stay close to float32, trimmed outputs equal to float32 round-off.
The int8 tests need the `int8` extra (part of the `test` extra).
"""

import sys

import keras
import numpy as np
import pytest

import modeling
from bert_tf2 import models
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.common import InputError
from bert_tf2.classifier.predictor import ClassifierPredictor
from bert_tf2.feature_extraction.predictor import FeatureEncoder
from bert_tf2.predict import int8 as int8_lib
from tests.predict.predict_test import CONFIG
from tests.predict.predict_test import TEXTS
from tests.predict.predict_test import WORDS
from tests.predict.predict_test import files  # pylint: disable=unused-import
from tests.predict.predict_test import _checkpoint

# Short and long texts, so that batches trim to different lengths.
RNG = np.random.RandomState(3)
MANY = TEXTS + [" ".join(RNG.choice(WORDS, RNG.randint(1, 14)))
                for _ in range(36)]


@pytest.fixture(scope="module")
def trained_like(files, tmp_path_factory):  # pylint: disable=redefined-outer-name
  """A classifier whose weights have a trained model's scale (0.1), not the
  fixture's 0.5 (a worst case for 8-bit weights)."""
  config = modeling.BertConfig.from_dict(dict(CONFIG.to_dict(),
                                              initializer_range=0.1))
  path = tmp_path_factory.mktemp("int8") / "bert_config.json"
  path.write_text(config.to_json_string())
  ckpt = _checkpoint(BertClassifier(config, 3), path.parent / "ckpt")
  return dict(bert_config_file=str(path), checkpoint=ckpt,
              vocab_file=files["vocab"], label_list=["a", "b", "c"],
              max_seq_length=16, batch_size=8)


def _encoder(files, **kwargs):  # pylint: disable=redefined-outer-name
  return FeatureEncoder(files["config"], files["bert"], files["vocab"],
                        max_seq_length=24, layers=(-1, 0), batch_size=8,
                        **kwargs)


def _cosine(a, b):
  a, b = a.reshape(len(a), -1), b.reshape(len(b), -1)
  return (a * b).sum(-1) / np.linalg.norm(a, axis=-1) / np.linalg.norm(
      b, axis=-1)


def test_trimmed_batches_give_the_padded_outputs(files):  # pylint: disable=redefined-outer-name
  fixed = ClassifierPredictor.from_output_dir(
      files["classifier_dir"], trim_padding=False, batch_size=8)
  trimmed = ClassifierPredictor.from_output_dir(
      files["classifier_dir"], batch_size=8)
  assert trimmed.trim_padding and not fixed.trim_padding
  np.testing.assert_allclose(trimmed.predict_logits(MANY),
                             fixed.predict_logits(MANY), atol=2e-5)
  enc_fixed, enc = _encoder(files, trim_padding=False), _encoder(files)
  for pooling in ("mean", "cls"):
    np.testing.assert_allclose(enc.sentence_vectors(MANY, pooling),
                               enc_fixed.sentence_vectors(MANY, pooling),
                               atol=2e-5)
  for a, b in zip(enc.encode(MANY[:10]), enc_fixed.encode(MANY[:10])):
    assert a["tokens"] == b["tokens"]
    np.testing.assert_allclose(a["token_vectors"], b["token_vectors"],
                               atol=2e-5)


@pytest.mark.slow
def test_int8_classifier_is_close_to_float32(trained_like, tmp_path):  # pylint: disable=redefined-outer-name
  float32 = ClassifierPredictor(**trained_like)
  quantized = ClassifierPredictor(int8=True, int8_dir=str(tmp_path),
                                  **trained_like)
  assert (tmp_path / "model_int8.onnx").exists()
  want = np.stack([o["probabilities"] for o in float32.predict(MANY)])
  out = quantized.predict(MANY)
  got = np.stack([o["probabilities"] for o in out])
  assert got.shape == want.shape == (len(MANY), 3)
  np.testing.assert_allclose(got.sum(-1), 1.0, rtol=1e-5)
  np.testing.assert_allclose(got, want, atol=0.02)
  assert not np.array_equal(got, want)  # Really quantized.
  same = np.mean(got.argmax(-1) == want.argmax(-1))
  assert same >= 0.9, same
  assert [o["label"] for o in out] == [
      ["a", "b", "c"][i] for i in got.argmax(-1)]
  # The kept file loads without converting again: the same outputs.
  again = ClassifierPredictor(int8=str(tmp_path / "model_int8.onnx"),
                              **trained_like)
  np.testing.assert_array_equal(
      np.stack([o["probabilities"] for o in again.predict(MANY)]), got)
  with pytest.raises(InputError, match="int8=.*not found"):
    ClassifierPredictor(int8=str(tmp_path / "missing.onnx"), **trained_like)


@pytest.mark.slow
def test_int8_features_keep_the_direction(files):  # pylint: disable=redefined-outer-name
  quantized = _encoder(files, int8=True)
  want = _encoder(files).sentence_vectors(MANY)
  got = quantized.sentence_vectors(MANY)
  assert got.shape == want.shape == (len(MANY), 2, 32)
  cosine = _cosine(got, want)
  assert cosine.min() > 0.98, cosine.min()
  tokens = quantized.encode(MANY[:3])
  assert [t["token_vectors"].shape[0] for t in tokens] == [
      len(t["tokens"]) for t in tokens]


@pytest.mark.slow
def test_export_onnx_float32_matches_tensorflow(files, tmp_path):  # pylint: disable=redefined-outer-name
  p = ClassifierPredictor.from_output_dir(files["classifier_dir"])
  path = p.export_onnx(str(tmp_path / "float.onnx"), int8=False)
  model = int8_lib.OnnxModel(path)
  ids = np.array([[2, 11, 12, 3, 0, 0], [2, 13, 3, 14, 15, 3]], np.int32)
  mask = (ids > 0).astype(np.int32)
  segments = np.array([[0] * 6, [0, 0, 0, 1, 1, 1]], np.int32)
  np.testing.assert_allclose(model(ids, mask, segments)[0],
                             p.model.task({"input_ids": ids,
                                           "input_mask": mask,
                                           "segment_ids": segments},
                                          training=False).numpy(),
                             atol=1e-5)
  # Exported for speed in ONNX Runtime: every layer norm one node (two per
  # layer, one after the embeddings), attention as batched matmuls.
  import onnx  # pylint: disable=g-import-not-at-top
  nodes = onnx.load(path).graph.node
  types = [n.op_type for n in nodes]
  assert types.count("LayerNormalization") == 2 * CONFIG.num_hidden_layers + 1
  assert "GlobalAveragePool" not in types
  # Softmax over the last axis of [batch, heads, seq, seq] (tf2onnx's
  # einsum lowering put it on axis 2, with transposes around it).
  axes = [([a.i for a in n.attribute if a.name == "axis"] or [-1])[0]
          for n in nodes if n.op_type == "Softmax"]  # Opset 17's default: -1.
  assert len(axes) == CONFIG.num_hidden_layers
  assert all(a in (-1, 3) for a in axes), axes


@pytest.mark.slow
def test_int8_is_one_argument_on_every_python_path(files, tmp_path):  # pylint: disable=redefined-outer-name
  """`models.load`, `models.load_predictor` and `ClassifierPredictor` run
  the same int8 session (one .onnx file: identical answers); an int8
  model has no SavedModel or .keras form (one line each)."""
  out = files["classifier_dir"]
  onnx_file = str(tmp_path / "classifier_int8.onnx")
  predictor = models.load_predictor(out, precision="int8",
                                    onnx_file=onnx_file)
  assert (tmp_path / "classifier_int8.onnx").exists()
  keras_model = models.load(out, precision="int8", onnx_file=onnx_file)
  python = ClassifierPredictor.from_output_dir(out, int8=onnx_file)
  float32 = models.load_predictor(out, precision="float32").predict(MANY)
  answers = predictor.predict(MANY)
  np.testing.assert_array_equal(
      keras_model.predict(MANY, verbose=0),
      np.stack([a["logits"] for a in answers]))
  for a, b in zip(answers, python.predict(MANY), strict=True):
    assert a["label"] == b["label"]
    np.testing.assert_array_equal(a["probabilities"], b["probabilities"])
  # Quantized (its closeness: test_int8_classifier_is_close_to_float32).
  assert not np.array_equal([a["logits"] for a in answers],
                            [f["logits"] for f in float32])
  with pytest.raises(InputError, match="int8 model runs in ONNX Runtime"):
    predictor.export(str(tmp_path / "saved"))
  assert not (tmp_path / "saved").exists()
  with pytest.raises(InputError, match="no .keras form"):
    keras_model.save(str(tmp_path / "m.keras"))
  with pytest.raises(InputError, match="onnx_file=.*precision='int8'"):
    models.load(out, precision="float32", onnx_file=onnx_file)


def test_missing_extra_is_one_clear_line(files, monkeypatch):  # pylint: disable=redefined-outer-name
  monkeypatch.setitem(sys.modules, "onnxruntime", None)
  with pytest.raises(InputError) as e:
    ClassifierPredictor.from_output_dir(files["classifier_dir"], int8=True)
  message = str(e.value)
  assert "\n" not in message
  assert "pip install 'bert-tf2[int8]'" in message and "onnxruntime" in message


@pytest.mark.slow
def test_int8_squad_scores_are_close_to_float32(trained_like, tmp_path):  # pylint: disable=redefined-outer-name
  from bert_tf2.squad.model import SquadModel  # pylint: disable=g-import-not-at-top
  from bert_tf2.squad.predictor import SquadPredictor  # pylint: disable=g-import-not-at-top
  from tests.predict.predict_test import SQUAD_QUESTIONS  # pylint: disable=g-import-not-at-top
  from tests.predict.predict_test import SQUAD_SETTINGS  # pylint: disable=g-import-not-at-top
  config = trained_like["bert_config_file"]
  keras.utils.set_random_seed(1)  # The same weights whatever ran before.
  ckpt = _checkpoint(SquadModel(modeling.BertConfig.from_json_file(config)),
                     tmp_path / "squad")
  args = (config, ckpt, trained_like["vocab_file"])
  want = SquadPredictor(*args, precision="float32", **SQUAD_SETTINGS).predict(
      SQUAD_QUESTIONS)
  quantized = SquadPredictor(*args, precision="int8",
                             int8_dir=str(tmp_path / "onnx"), **SQUAD_SETTINGS)
  assert quantized.precision == "int8"
  assert (tmp_path / "onnx" / "model_int8.onnx").exists()
  got = quantized.predict(SQUAD_QUESTIONS)
  # The best span's score and the null score difference are maxima over
  # the logits: within twice the logits' error whatever span wins.
  for key in ("score", "null_score_diff"):
    a = np.array([o[key] for o in got])
    b = np.array([o[key] for o in want])
    np.testing.assert_allclose(a, b, atol=0.06)  # Measured: 0.018.
    assert not np.array_equal(a, b)  # Really quantized.
  for (_, context), out in zip(SQUAD_QUESTIONS, got):
    assert out["answer"] in context
  with pytest.raises(InputError, match="^fit: an int8 model"):
    quantized.model.fit(SQUAD_QUESTIONS[:1], [None])
