"""A text model saves without its optimizer state (issue 45): Keras 3
ignores include_optimizer for `.keras` files, so a compiled model's file
carried Adam's two slots per weight (273 MB for a 91 MB model) and its
int8 file warned on reload about the optimizer variables it skipped."""

import os
import warnings

import keras
import numpy as np

from bert_tf2 import models
from tests.common import tiny_dir

TEXTS = ["the cat sat on the mat .", "bob met ann in paris", "江泽民在北京。"]


def _nbytes(variables):
  return sum(np.asarray(v).nbytes for v in variables)


def _load(path):
  """(the reloaded model, the warnings its loading gave)."""
  with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    model = keras.saving.load_model(path)
  return model, [str(w.message) for w in caught]


def _trained():
  """A compiled tiny classifier after one Adam step (its slots filled)."""
  keras.utils.set_random_seed(0)
  model = models.TextModel(
      models.BertPreprocessor(tiny_dir.VOCAB, max_seq_length=16),
      models.BertClassifier(tiny_dir.config(), 2))
  model.compile(optimizer=keras.optimizers.Adam(1e-3))
  model.fit(TEXTS, [0, 1, 0], epochs=1, batch_size=3, verbose=0)
  return model


def test_the_file_without_optimizer_is_smaller_by_its_state(tmp_path):
  trained = _trained()
  full, bare = str(tmp_path / "full.keras"), str(tmp_path / "bare.keras")
  trained.save(full)
  trained.save(bare, include_optimizer=False)
  state = trained.optimizer.variables
  saved = os.path.getsize(full) - os.path.getsize(bare)
  # The optimizer's arrays, plus at most 1 KB of file entries per array.
  assert _nbytes(state) <= saved <= _nbytes(state) + 1024 * len(state), (
      saved, _nbytes(state))
  reloaded, _ = _load(bare)
  assert not reloaded.compiled  # Compile again before fit.
  np.testing.assert_array_equal(reloaded.predict(TEXTS, verbose=0),
                                trained.predict(TEXTS, verbose=0))
  assert trained.compiled  # The model saved is unchanged.


def test_int8_without_optimizer_reloads_without_a_skip_warning(tmp_path):
  model = _trained()
  model.quantize("int8")
  want = model.predict(TEXTS, verbose=0)
  full, bare = str(tmp_path / "int8.keras"), str(tmp_path / "int8_bare.keras")
  model.save(full)
  model.save(bare, include_optimizer=False)
  assert any("Skipping variable loading for optimizer" in w
             for w in _load(full)[1])  # What include_optimizer=False avoids.
  reloaded, caught = _load(bare)
  assert not [w for w in caught if "optimizer" in w], caught
  np.testing.assert_array_equal(reloaded.predict(TEXTS, verbose=0), want)
  assert os.path.getsize(bare) < os.path.getsize(full)

