"""create_pretraining_data.py with --runner: the script, on the DirectRunner's
engine with 2 worker processes, writes `--num_workers=2` mode's examples; flags
that cannot act in a Beam run are refused in one line."""

import collections
import os

from absl import flags
import pytest

import tokenization
from bert_tf2.beam import pretraining_script
from bert_tf2.common import InputError
from bert_tf2.pretraining_data import flags as data_flags
from bert_tf2.pretraining_data import options as options_lib
from bert_tf2.pretraining_data import pipeline
from tests.beam import shards as shards_lib
from tests.pretraining_data import corpus

COMMON = ["--max_seq_length=64", "--max_predictions_per_seq=10",
          "--random_seed=11", "--dupe_factor=2", "--shard_documents=2"]


@pytest.mark.slow  # ~30 s: two worker processes start and import Beam + TF.
def test_script_on_two_direct_runner_workers_equals_num_workers_2(tmp_path):
  text = corpus.write_corpus(str(tmp_path / "in.txt"),
                             corpus.bbc_documents(12000, start=40))
  prefix = str(tmp_path / "beam" / "records")
  os.makedirs(os.path.dirname(prefix))
  proc = corpus.run_script("--input_file=" + text, "--output_file=" + prefix,
                 "--vocab_file=" + corpus.minilm_vocab(),
                 "--num_output_files=3", *COMMON,
                 # The DirectRunner's engine (shards.BEAM_IN_PROCESS).
                 "--runner=FnApiRunner", "--direct_num_workers=2",
                 "--direct_running_mode=multi_processing")
  assert proc.returncode == 0, proc.stderr[-3000:]
  assert "summary:" in proc.stderr
  assert len(shards_lib.output_files(prefix)) == 3
  local = str(tmp_path / "local.tfrecord")
  tokenizer = tokenization.FullTokenizer(corpus.minilm_vocab())
  options = options_lib.DataOptions(
      max_seq_length=64, max_predictions_per_seq=10, random_seed=11,
      dupe_factor=2, num_workers=2, shard_documents=2, log_examples=0)
  pipeline.run([text], [local], tokenizer, options)
  reference = shards_lib.local_shards([text], tokenizer, options)
  assert len(reference) >= 3
  shards_lib.beam_shard_order(prefix, reference)
  assert shards_lib.record_counter(prefix) == collections.Counter(
      shards_lib.read_records(local))


def _flags(tmp_path, *args):
  fv = flags.FlagValues()
  data_flags.define_flags(fv)
  text = corpus.write_corpus(str(tmp_path / "in.txt"), [["a b."], ["c."]])
  fv(["prog", "--input_file=" + text, "--vocab_file=" +
      corpus.minilm_vocab(), "--output_file=" + str(tmp_path / "out")]
     + list(args))
  return fv


@pytest.mark.parametrize("args,message", [
    (["--num_workers=2"], "--num_workers=2: not with --runner"),
    (["--segmented_file=x.txt", "--word_boundaries=spaces"],
     "--segmented_file: not with --runner"),
    (["--output_file=a,b"], "--output_file=a,b: with --runner, one path "
     "prefix"),
    (["--num_output_files=-1"], "--num_output_files=-1: must be at least 0"),
])
def test_flags_that_cannot_act_are_refused(tmp_path, args, message):
  with pytest.raises(InputError) as e:
    pretraining_script.run_from_flags(_flags(tmp_path, *args),
                                      ["--runner=DirectRunner"])
  assert str(e.value).startswith(message), str(e.value)


def test_num_output_files_names_the_files_in_both_modes(tmp_path):
  out = str(tmp_path / "records")
  assert options_lib.output_file_list(out, 2) == [
      out + "-00000-of-00002", out + "-00001-of-00002"]
  with pytest.raises(InputError, match="with --num_output_files, one path"):
    options_lib.output_file_list(out + ",x", 2)
  f = _flags(tmp_path, "--num_output_files=2", "--output_file=" + out,
             "--max_seq_length=16", "--dupe_factor=1")
  pipeline.run_from_flags(f)
  assert shards_lib.output_files(out) == [out + "-00000-of-00002",
                                          out + "-00001-of-00002"]
