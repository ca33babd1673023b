"""run_pretraining.py's up-front checks: each bad input, one clear error."""

import json

from absl import flags
import pytest

from bert_tf2.common import InputError
from bert_tf2.pretraining import flags as pretraining_flags
from bert_tf2.pretraining import run
from tests.pretraining import records

CONFIG = {"vocab_size": 1000, "hidden_size": 8, "num_hidden_layers": 1,
          "num_attention_heads": 2, "intermediate_size": 16,
          "max_position_embeddings": 32, "type_vocab_size": 2}


@pytest.fixture
def setup(tmp_path):
  config = tmp_path / "bert_config.json"
  config.write_text(json.dumps(CONFIG))
  for i in range(2):
    records.write_records(tmp_path / ("part-%d.tfrecord" % i), 3, 16, 4,
                          seed=i)
  return tmp_path


def _flags(setup, *extra):
  fv = flags.FlagValues()
  pretraining_flags.define_flags(fv)
  fv(["run_pretraining.py",
      "--bert_config_file=%s" % (setup / "bert_config.json"),
      "--input_file=%s" % (setup / "part-*.tfrecord"),
      "--output_dir=%s" % (setup / "out"), "--do_train=True",
      "--max_seq_length=16", "--max_predictions_per_seq=4"] + list(extra))
  return fv


def test_good_flags_pass_and_expand_the_globs(setup):
  config, files = run.check_flags(_flags(setup))
  assert config.vocab_size == 1000
  assert files == [str(setup / "part-0.tfrecord"),
                   str(setup / "part-1.tfrecord")]


def test_original_defaults():
  fv = flags.FlagValues()
  pretraining_flags.define_flags(fv)
  fv(["run_pretraining.py"])
  assert (fv.max_seq_length, fv.max_predictions_per_seq, fv.train_batch_size,
          fv.eval_batch_size, fv.learning_rate, fv.num_train_steps,
          fv.num_warmup_steps, fv.save_checkpoints_steps,
          fv.iterations_per_loop, fv.max_eval_steps, fv.use_tpu,
          fv.num_tpu_cores, fv.do_train, fv.do_eval) == (
              128, 20, 32, 8, 5e-5, 100000, 10000, 1000, 1000, 100, False, 8,
              False, False)
  for name in ("bert_config_file", "input_file", "output_dir",
               "init_checkpoint", "tpu_name", "tpu_zone", "gcp_project",
               "master"):
    assert fv[name].value is None


@pytest.mark.parametrize("extra, message", [
    (["--do_train=False"], "at least one of --do_train or --do_eval"),
    (["--input_file=/nonexistent/x-*.tfrecord"],
     "--input_file: '/nonexistent/x-*.tfrecord' matches no file"),
    (["--bert_config_file=/nonexistent/bert_config.json"],
     "--bert_config_file=/nonexistent/bert_config.json: file not found"),
    (["--max_seq_length=64"],
     "--max_seq_length=64 is longer than max_position_embeddings=32"),
    (["--max_seq_length=8"],
     "record 0: feature 'input_ids' has 16 values, expected 8"),
    (["--max_predictions_per_seq=5"],
     "feature 'masked_lm_positions' has 4 values, expected 5"),
    (["--max_predictions_per_seq=20"],
     "--max_predictions_per_seq=20 is larger than --max_seq_length=16"),
    (["--train_batch_size=0"], "--train_batch_size=0: must be a positive"),
    (["--num_train_steps=0"], "--num_train_steps=0: must be a positive"),
    (["--init_checkpoint=/nonexistent/bert_model.ckpt"],
     "--init_checkpoint=/nonexistent/bert_model.ckpt: no checkpoint"),
    (["--dynamic_masking", "--masked_lm_prob=1.5"],
     "--masked_lm_prob=1.5: must be in"),
])
def test_bad_flags_name_the_flag(setup, extra, message):
  with pytest.raises(InputError) as e:
    run.check_flags(_flags(setup, *extra))
  assert message in str(e.value)


def test_output_dir_that_is_a_file(setup):
  (setup / "out").write_text("not a directory")
  with pytest.raises(InputError, match="--output_dir=.*is a file"):
    run.check_flags(_flags(setup))


def test_records_with_ids_beyond_the_config_vocab(setup):
  def edit(i, instance):
    instance["input_ids"][1] = 1000
  records.write_records(setup / "part-0.tfrecord", 3, 16, 4, edit=edit)
  with pytest.raises(InputError, match=r"part-0.tfrecord: record 0: feature "
                     r"'input_ids' has value 1000, outside \[0, 1000\)"):
    run.check_flags(_flags(setup))


def test_dynamic_masking_vocab_needs_the_special_tokens(setup):
  vocab = setup / "vocab.txt"
  vocab.write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\n")
  f = _flags(setup, "--dynamic_masking", "--vocab_file=%s" % vocab)
  with pytest.raises(InputError, match=r"vocab.txt: has no \[MASK\] token"):
    run.check_flags(f)
  vocab.write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n")
  config, _ = run.check_flags(f)
  masker = run._masker(f, config)  # pylint: disable=protected-access
  assert (masker.cls_id, masker.sep_id, masker.mask_id) == (2, 3, 4)


def test_check_all_records_finds_a_bad_record_up_front(setup):
  def edit(i, instance):
    if i == 2:
      instance["segment_ids"][3] = 2  # type_vocab_size is 2
  records.write_records(setup / "part-1.tfrecord", 3, 16, 4, edit=edit)
  run.check_flags(_flags(setup))  # only first records: fine
  with pytest.raises(InputError, match=r"part-1.tfrecord: record 2: feature "
                     r"'segment_ids' has value 2, outside \[0, 2\)"):
    run.check_flags(_flags(setup, "--check_all_records"))


def test_config_without_sizes_is_refused_from_scratch_only(setup, tmp_path):
  # Issue 38: without hidden_size the original trains a 768-wide model.
  config = setup / "bert_config.json"
  config.write_text(json.dumps({k: v for k, v in CONFIG.items()
                                if k != "hidden_size"}))
  with pytest.raises(InputError, match=r"no hidden_size; training from "
                     r"scratch needs .*hidden_size=768"):
    run.check_flags(_flags(setup))
