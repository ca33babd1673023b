"""Inference precision: the default (the run's recorded precision, on any
CPU), the choice of "auto" on a faked CPU, the override, and every
inference path built with precision="bfloat16" answering as in float32
within bfloat16 round-off.

Tiny random-weight classifier (a run's output_dir with model.json) and
encoder, initializer_range 0.2 so that texts get logit margins well above
bfloat16's error (~0.015 here); on the clear cases (float32 probability
margin > 0.1) the labels must agree.
"""

import keras
import numpy as np
import pytest
import tensorflow as tf

import modeling
from bert_tf2 import models
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.classifier.predictor import ClassifierPredictor
from bert_tf2.common import InputError
from bert_tf2.common import artifact
from bert_tf2.feature_extraction.predictor import FeatureEncoder
from bert_tf2.runner import speed_defaults

WORDS = ["w%d" % i for i in range(30)] + ["alpha", "beta"]
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", ","] + WORDS
CONFIG = modeling.BertConfig(
    vocab_size=len(VOCAB), hidden_size=32, num_hidden_layers=2,
    num_attention_heads=2, intermediate_size=48, max_position_embeddings=64,
    initializer_range=0.2)
TEXTS = ["w1 w2 alpha w3", "w4 beta, w5 w6", "alpha w9 w10", "w11 w12.",
         " ".join(WORDS[:20]), "beta beta w7", "w20 w21, w22", "w3"]
# bfloat16 keeps 8 bits of mantissa (relative error 2^-9 per rounding).
PROB_TOL = 0.03
VECTOR_COSINE = 0.999


def resolve(requested="auto", flags=("avx512_bf16",), ratio=2.0,
            accelerator=False, environ=None, offered=None,
            recorded="float32"):
  calls = []

  def bfloat16_ratio():
    calls.append(1)
    return ratio
  chosen = speed_defaults.resolve_inference_precision(
      requested, "test", offered=offered or
      speed_defaults.INFERENCE_PRECISIONS, recorded=recorded,
      environ=environ or {}, cpu_flags=flags, bfloat16_ratio=bfloat16_ratio,
      accelerator=accelerator)
  return chosen, len(calls)


def test_the_default_is_the_recorded_precision_on_every_cpu():
  for flags in (("avx512_bf16",), ("amx_bf16", "avx2"), ("avx2",)):
    assert resolve(None, flags=flags) == ("float32", 0)
    assert resolve(None, flags=flags, recorded="bfloat16") == ("bfloat16", 0)
  assert resolve(None, accelerator=True, recorded="float16") == ("float16",
                                                                 0)
  with pytest.raises(InputError, match=r"^test: the recorded precision "
                     "'float16' is not offered here \(expected one of auto,"
                     " float32, bfloat16\); give precision=$"):
    resolve(None, recorded="float16", offered=("auto", "float32",
                                               "bfloat16"))


def test_auto_picks_bfloat16_only_where_the_cpu_multiplies_it_fast():
  assert resolve() == ("bfloat16", 1)
  assert resolve(flags=("amx_bf16", "avx2")) == ("bfloat16", 1)
  # No bfloat16 instructions: float32, and the matmul probe is not run.
  assert resolve(flags=("avx2", "avx512f")) == ("float32", 0)
  # Present but slow (the Intel Xeon without AMX: 0.5-0.8x float32).
  assert resolve(ratio=0.8) == ("float32", 1)
  assert resolve(accelerator=True) == ("float32", 0)
  # int8 is never chosen by "auto".
  assert resolve(flags=("avx512_vnni", "avx2")) == ("float32", 0)


def test_an_asked_precision_or_the_environment_overrides_auto():
  assert resolve("float32") == ("float32", 0)
  assert resolve("bfloat16", flags=("avx2",)) == ("bfloat16", 0)
  env = {speed_defaults.INFERENCE_PRECISION_ENV: "float32"}
  assert resolve(None, environ=env, recorded="bfloat16") == ("float32", 0)
  assert resolve("bfloat16", environ=env) == ("bfloat16", 0)  # Argument wins.
  assert resolve("auto", environ=env) == ("bfloat16", 1)
  env = {speed_defaults.INFERENCE_PRECISION_ENV: "auto"}
  assert resolve(None, environ=env) == ("bfloat16", 1)
  with pytest.raises(InputError, match=r"^test: precision='int8': expected "
                     "one of auto, float32, bfloat16$"):
    resolve("int8", offered=("auto", "float32", "bfloat16"))
  with pytest.raises(InputError, match="BERT_TF2_INFERENCE_PRECISION='fp8'"
                     ".*from the environment"):
    resolve(None, environ={speed_defaults.INFERENCE_PRECISION_ENV: "fp8"})


def test_the_choice_is_logged_in_one_line(caplog):
  import logging  # pylint: disable=g-import-not-at-top
  with caplog.at_level(logging.INFO, logger="absl"):
    resolve()
    resolve(None)
  lines = [r.getMessage() for r in caplog.records
           if "precision:" in r.getMessage()]
  assert lines == ["test precision: bfloat16 (auto: this CPU has avx512_bf16 "
                   "and its bfloat16 matmuls run 2.00x float32)",
                   "test precision: float32 (the precision its run answered "
                   "in); precision=... or BERT_TF2_INFERENCE_PRECISION "
                   "overrides"]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
  keras.utils.set_random_seed(0)
  root = tmp_path_factory.mktemp("precision")
  (root / "vocab.txt").write_text("\n".join(VOCAB) + "\n")
  config = root / "bert_config.json"
  config.write_text(CONFIG.to_json_string())
  model = BertClassifier(CONFIG, 2)
  out = root / "classifier_out"
  modeling.save_checkpoint(modeling.original_variable_names(model), str(out),
                           1)
  artifact.write(str(out), "classifier", str(config), str(root / "vocab.txt"),
                 preprocessor=dict(do_lower_case=True, max_seq_length=32),
                 model=dict(num_labels=2), outputs=dict(labels=["n", "p"]))
  return str(out)


def _probabilities(rows):
  return np.stack([r["probabilities"] for r in rows])


def _assert_close_answers(ref, got):
  """float32 `ref` and bfloat16 `got` rows: probabilities within bfloat16
  round-off, the same label on every (clear) case."""
  p_ref, p_got = _probabilities(ref), _probabilities(got)
  np.testing.assert_allclose(p_got, p_ref, atol=PROB_TOL)
  assert not np.array_equal(p_got, p_ref)  # It did run in bfloat16.
  clear = np.abs(p_ref[:, 0] - p_ref[:, 1]) > 0.1
  labels = np.array([[r["label"] for r in rows] for rows in (ref, got)])
  assert clear.sum() >= 5 and set(labels[0, clear]) == {"n", "p"}
  np.testing.assert_array_equal(labels[1, clear], labels[0, clear])


def test_predictor_in_bfloat16_answers_as_float32(run_dir):
  f32 = ClassifierPredictor.from_output_dir(run_dir, precision="float32")
  b16 = ClassifierPredictor.from_output_dir(run_dir, precision="bfloat16")
  assert b16.model.compute_dtype == "bfloat16"
  assert all(v.dtype == "float32" for v in b16.model.weights)
  _assert_close_answers(f32.predict(TEXTS), b16.predict(TEXTS))


def test_saved_model_in_bfloat16_answers_as_float32(run_dir, tmp_path):
  f32 = ClassifierPredictor.from_output_dir(run_dir, precision="float32")
  b16 = ClassifierPredictor.from_output_dir(run_dir, precision="bfloat16")
  out = tf.saved_model.load(b16.export(str(tmp_path / "sm")))
  got = out.signatures["serving_default"](text_a=tf.constant(TEXTS))
  assert got["probabilities"].dtype == tf.float32
  rows = [{"probabilities": p, "label": l.decode()} for p, l in
          zip(got["probabilities"].numpy(), got["label"].numpy())]
  _assert_close_answers(f32.predict(TEXTS), rows)


def test_keras_text_model_in_bfloat16_answers_as_float32(run_dir):
  f32 = models.load_predictor(run_dir, precision="float32")
  b16 = models.load_predictor(run_dir, precision="bfloat16")
  assert b16.model.task.compute_dtype == "bfloat16"
  _assert_close_answers(f32.predict(TEXTS), b16.predict(TEXTS))
  # int8 only where its quality was measured (a classifier: offered).
  with pytest.raises(InputError, match="precision='int8': not offered for "
                     "SentenceEncoder .offered for classifier, squad"):
    models.text_model(models.SentenceEncoder, run_dir + "/..",
                      precision="int8")


def test_feature_encoder_in_bfloat16_gives_float32_vectors(run_dir):
  args = dict(bert_config_file=run_dir + "/../bert_config.json",
              checkpoint=run_dir, vocab_file=run_dir + "/../vocab.txt",
              max_seq_length=32)
  f32 = FeatureEncoder(precision="float32", **args).sentence_vectors(TEXTS)
  b16 = FeatureEncoder(precision="bfloat16", **args).sentence_vectors(TEXTS)
  f32, b16 = f32[:, 0], b16[:, 0]  # The last layer.
  assert b16.dtype == np.float32
  cosine = np.sum(f32 * b16, -1) / (np.linalg.norm(f32, axis=-1) *
                                    np.linalg.norm(b16, axis=-1))
  assert np.all(cosine > VECTOR_COSINE), cosine
  assert not np.array_equal(f32, b16)


def test_int8_argument_and_another_precision_are_refused(run_dir):
  with pytest.raises(InputError, match=r"^int8=True with "
                     "precision='bfloat16': give one of them$"):
    ClassifierPredictor.from_output_dir(run_dir, int8=True,
                                        precision="bfloat16")
