"""create_pretraining_data.py's flags run as a Beam pipeline (`--runner=...`).

Every flag acts as in `--num_workers` mode, except that --output_file is
one path prefix, --num_output_files=0 lets the runner choose, and
--num_workers and --segmented_file are refused.
"""

from absl import logging
from apache_beam.io.filesystems import FileSystems

from bert_tf2.beam import argv as argv_lib
from bert_tf2.beam import pretraining_data as beam_data
from bert_tf2.common import InputError
from bert_tf2.pretraining_data import documents as documents_lib
from bert_tf2.pretraining_data import options as options_lib
import tokenization

SCRIPT = "create_pretraining_data.py"
# Schemes tf.io.gfile reads (the local mode's expansion handles them).
_GFILE_SCHEMES = ("gs://",)


def expand_inputs(patterns):
  """--input_file's comma-separated globs -> list of files: in the local
  mode's order, or Beam's matches in name order (s3://, hdfs://, ...)."""
  files = []
  for pattern in patterns.split(","):
    if not pattern:
      continue
    if "://" not in pattern or pattern.startswith(_GFILE_SCHEMES):
      files.extend(documents_lib.expand_input_patterns("input_file",
                                                       pattern))
      continue
    matched = sorted(m.path for m in FileSystems.match([pattern])[0]
                     .metadata_list)
    if not matched:
      raise InputError("--input_file: %r matches no file" % pattern)
    files.extend(matched)
  if not files:
    raise InputError("--input_file is empty")
  return files


def run_from_flags(f, beam_args):
  """The work of the parsed flags `f` with Beam options `beam_args`;
  returns the CorpusStats of `pretraining_data.run`."""
  argv_lib.check_pipeline_args(beam_args, SCRIPT)
  if f.num_workers != 1:
    raise InputError("--num_workers=%d: not with --runner (the runner's "
                     "options set its workers, e.g. --direct_num_workers)"
                     % f.num_workers)
  if f.segmented_file:
    raise InputError("--segmented_file: not with --runner (its lines pair "
                     "with the input's in one sequential read)")
  if "," in f.output_file:
    raise InputError("--output_file=%s: with --runner, one path prefix (files "
                     "PREFIX-SSSSS-of-NNNNN)" % f.output_file)
  options = options_lib.DataOptions.from_flags(f)
  input_files = expand_inputs(f.input_file)
  options_lib.check_output_files([f.output_file], input_files)
  tokenizer = tokenization.FullTokenizer(vocab_file=f.vocab_file,
                                         do_lower_case=f.do_lower_case)
  logging.info("*** Beam pipeline (%s) over %d input files ***",
               " ".join(beam_args), len(input_files))
  return beam_data.run(input_files, f.output_file, tokenizer, options,
                       pipeline_args=beam_args,
                       num_output_files=f.num_output_files)
