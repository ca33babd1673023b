"""`FeatureTextModel` / `EncoderLayers`: extract_features' model on raw text.

Trimmed batches (each at its longest text) give the vectors of fixed
padding, padded back to max_seq_length so that batches of any lengths
concatenate; the task's config rebuilds it (the int8 export's twin).
"""

import keras
import numpy as np

from bert_tf2.common.preprocessor import BertPreprocessor
from bert_tf2.feature_extraction.text_model import EncoderLayers
from bert_tf2.feature_extraction.text_model import FeatureTextModel
from tests.common import tiny_dir

TEXTS = ["bob met ann", "the cat sat on the mat in paris .",
         "a dog", "angela merkel visited paris , the cat ran on the mats ."]


def _model(tmp_path, trims=True):
  vocab = tmp_path / "vocab.txt"
  vocab.write_text("\n".join(tiny_dir.VOCAB) + "\n")
  keras.utils.set_random_seed(0)
  task = EncoderLayers(tiny_dir.config(), layers=(-1, 0))
  model = FeatureTextModel(BertPreprocessor(str(vocab), max_seq_length=24),
                           task)
  model.trims_padding = trims
  return model


def test_trimmed_batches_give_the_fixed_padding_vectors(tmp_path):
  model = _model(tmp_path)
  fixed = FeatureTextModel(model.preprocessor, model.task)
  fixed.trims_padding = False
  got = model.predict(TEXTS, batch_size=2, verbose=0)
  want = fixed.predict(TEXTS, batch_size=2, verbose=0)
  assert got["token_vectors"].shape == (4, 24, 2, 16)
  assert got["input_mask"].shape == (4, 24)
  lengths = got["input_mask"].sum(1)
  assert len(set(lengths)) == 4 and lengths.max() < 24  # Padded back.
  for name in ("mean_vectors", "cls_vectors"):
    np.testing.assert_allclose(got[name], want[name], atol=1e-5)
  for row, n in enumerate(lengths):
    np.testing.assert_allclose(got["token_vectors"][row, :n],
                               want["token_vectors"][row, :n], atol=1e-5)
    # Beyond the batch's longest text: zeros (padding put back).
    assert not got["token_vectors"][row, lengths.max():].any()


def test_config_rebuilds_the_task(tmp_path):
  task = _model(tmp_path).task
  again = EncoderLayers.from_config(task.get_config())
  assert again.layers == [-1, 0]
  assert again.bert_config.to_dict() == task.bert_config.to_dict()
