"""run_ner.py --init_checkpoint=<a run_pretraining.py output_dir>.

The People's Daily table fine-tunes from this project's own pretraining
checkpoints. A name mismatch between the pretraining and the NER models
would leave the encoder silently random (init_from_checkpoint only fails
when NO variable matches), so this test checks every encoder variable: a
pretraining checkpoint with distinctive values is written the way
run_pretraining.py writes it, run_ner.py trains from it with learning rate
0, and the NER checkpoint must hold the pretraining values for every bert/
variable and nothing else may be left out but the new tag layer.
"""

import json
import os

import keras
import numpy as np
import pytest
import tensorflow as tf

import modeling
from bert_tf2.ner import flags as ner_flags
from bert_tf2.ner import job as ner_job
from bert_tf2.runner import checkpoints
from bert_tf2.pretraining.model import PretrainingModel
from bert_tf2.runner.task import ModelTask

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + list("abcdefgh")
CONFIG = {"vocab_size": len(VOCAB), "hidden_size": 16,
          "num_hidden_layers": 1, "num_attention_heads": 2,
          "intermediate_size": 32, "hidden_act": "gelu",
          "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
          "max_position_embeddings": 16, "type_vocab_size": 2,
          "initializer_range": 0.02}


def _pretraining_checkpoint(output_dir):
  """Writes model.ckpt-3 of a pretraining model with values far from init."""
  config = modeling.BertConfig.from_dict(CONFIG)
  task = ModelTask(lambda: PretrainingModel(config))
  model = task.build_model()
  ids = tf.constant([[2, 5, 4, 3, 0, 0]])
  model({"input_ids": ids, "input_mask": tf.cast(ids > 0, tf.int32),
         "segment_ids": 0 * ids, "masked_lm_positions": tf.constant([[2]])})
  variables = task.checkpoint_variables(model)
  rng = np.random.RandomState(0)
  for var in variables.values():
    var.assign(rng.uniform(1.0, 2.0, var.shape).astype(np.float32))
  checkpoints.save(variables, output_dir, 3, 1)
  return {n: v.numpy() for n, v in variables.items()}


@pytest.mark.slow  # end to end through run_ner's pipeline (~10 s idle)
def test_ner_starts_from_every_pretrained_encoder_variable(tmp_path):
  keras.utils.set_random_seed(0)
  data_dir = tmp_path / "data"
  data_dir.mkdir()
  sentence = "a B-PER\nb I-PER\nc O\nd B-LOC\ne O\n\n"
  (data_dir / "train.txt").write_text(sentence * 8)
  (tmp_path / "vocab.txt").write_text("\n".join(VOCAB) + "\n")
  (tmp_path / "bert_config.json").write_text(json.dumps(CONFIG))
  pretrained = _pretraining_checkpoint(str(tmp_path / "pretrain"))

  options = ner_flags.default_options(
      data_dir=str(data_dir), vocab_file=str(tmp_path / "vocab.txt"),
      bert_config_file=str(tmp_path / "bert_config.json"),
      init_checkpoint=str(tmp_path / "pretrain"),  # a directory, as in docs
      output_dir=str(tmp_path / "out"), do_train=True, max_seq_length=8,
      doc_stride=4, train_batch_size=4, learning_rate=0.0,
      num_train_epochs=1.0, save_checkpoints_steps=100,
      iterations_per_loop=1)
  ner_job.run(options)

  reader = tf.train.load_checkpoint(
      tf.train.latest_checkpoint(options.output_dir))
  encoder = sorted(n for n in pretrained if n.startswith("bert/"))
  assert len(encoder) == 23  # embeddings 5, one layer 16, pooler 2
  for name in encoder:
    np.testing.assert_array_equal(reader.get_tensor(name), pretrained[name],
                                  err_msg=name)
  # The tag layer is new (the classifier's names), the MLM/NSP heads unused.
  model_names = {n for n in reader.get_variable_to_shape_map()
                 if not n.startswith(("bert/", "global_step"))
                 and "adam" not in n}
  assert model_names == {"output_weights", "output_bias"}
  assert reader.get_tensor("output_weights").max() < 1.0  # fresh init
