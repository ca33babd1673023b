"""Batch prediction as a Beam pipeline: text lines or JSONL in, JSONL out.

  python -m bert_tf2.beam.predict --saved_model=clf_export \\
    --input=reviews.jsonl --input_format=jsonl --output=out/answers \\
    --runner=DirectRunner --direct_num_workers=2 \\
    --direct_running_mode=multi_processing

Writes --output-SSSSS-of-NNNNN.jsonl: one line per input line, in no
particular order, each carrying its input and the signature's answer:

  text   each non-blank line is one text -> {"text": line, "prediction": {...}}
  jsonl  each line a JSON object holding the signature's inputs (e.g.
         {"id": 7, "text_a": "..."}) -> the object plus "prediction"

Beam pipeline options (--runner=..., as --name=value) pass through to the
runner. See docs/prediction.md.
"""

import json
import sys

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.ml.inference.base import RunInference
from apache_beam.options.pipeline_options import PipelineOptions
from absl import flags

from bert_tf2.beam import argv as argv_lib
from bert_tf2.beam import inference
from bert_tf2.common import cli
from bert_tf2.common import InputError

FORMATS = ("text", "jsonl")
ANSWER_KEY = "prediction"


def parse_line(path, line, input_format):
  """One input line -> its element (str or dict), or None for a blank one.

  Example:
    >>> parse_line("in.jsonl", '{"id": 1, "text": "hi"}', "jsonl")
    {'id': 1, 'text': 'hi'}
    >>> parse_line("in.txt", "  ", "text") is None
    True
  """
  if not line.strip():
    return None
  if input_format == "text":
    return line.strip()
  try:
    record = json.loads(line)
  except ValueError as e:
    raise InputError("--input: %s: a line is not JSON (%s): %.60r"
                     % (path, e, line))
  if not isinstance(record, dict) or ANSWER_KEY in record:
    raise InputError("--input: %s: each line must be a JSON object without "
                     "a %r key: %.60r" % (path, ANSWER_KEY, line))
  return record


def output_line(result):
  """A PredictionResult -> its JSONL output line."""
  example = result.example
  record = dict(example) if isinstance(example, dict) else {"text": example}
  record[ANSWER_KEY] = result.inference
  return json.dumps(record, ensure_ascii=False)


def build(pipeline, input_pattern, input_format, handler, output_prefix,
          num_output_files=0):
  """Adds read -> RunInference -> write JSONL to `pipeline`."""
  if input_format not in FORMATS:
    raise InputError("--input_format=%s: expected text or jsonl"
                     % input_format)
  patterns = [p for p in input_pattern.split(",") if p]
  for pattern in patterns or [input_pattern]:
    if not pattern or not FileSystems.match([pattern])[0].metadata_list:
      raise InputError("--input: %r matches no file" % pattern)
  lines = [pipeline | "Read%d" % i >> beam.io.ReadFromTextWithFilename(p)
           for i, p in enumerate(patterns)]
  return (tuple(lines) | "Merge" >> beam.Flatten()
          | "Parse" >> beam.FlatMap(
              lambda pl: [e for e in [parse_line(pl[0], pl[1], input_format)]
                          if e is not None])
          | "Predict" >> RunInference(handler)
          | "Format" >> beam.Map(output_line)
          | "Write" >> beam.io.WriteToText(output_prefix,
                                           file_name_suffix=".jsonl",
                                           num_shards=num_output_files))


def run(saved_model, input_pattern, output_prefix, pipeline_args=(),
        input_format="text", signature="serving_default", batch_size=32,
        num_output_files=0):
  """Runs the pipeline to the end (InputError for bad inputs, named)."""
  if batch_size < 1:
    raise InputError("--batch_size=%d: must be at least 1" % batch_size)
  if num_output_files < 0:
    raise InputError("--num_output_files=%d: must be at least 0"
                     % num_output_files)
  handler = inference.RawTextModelHandler(saved_model, signature, batch_size)
  pipeline = beam.Pipeline(options=PipelineOptions(list(pipeline_args)))
  build(pipeline, input_pattern, input_format, handler, output_prefix,
        num_output_files)
  try:
    pipeline.run().wait_until_finish()
  except Exception as e:  # pylint: disable=broad-except
    error = argv_lib.find_input_error(e)
    if error is None:
      raise
    raise error from None


def define_flags(flag_values=flags.FLAGS):
  fv = {"flag_values": flag_values}
  flags.DEFINE_string("saved_model", None, "A task's raw-string SavedModel "
                      "directory (export_dir).", **fv)
  flags.DEFINE_string("input", None, "Input file(s): comma-separated globs.",
                      **fv)
  flags.DEFINE_enum("input_format", "text", list(FORMATS), "text: one text "
                    "per line; jsonl: one JSON object per line.", **fv)
  flags.DEFINE_string("output", None, "Output prefix: files "
                      "PREFIX-SSSSS-of-NNNNN.jsonl.", **fv)
  flags.DEFINE_string("signature", "serving_default", "Signature to call.",
                      **fv)
  flags.DEFINE_integer("batch_size", 32, "Most inputs per model call.", **fv)
  flags.DEFINE_integer("num_output_files", 0, "Output files; 0: the "
                       "runner's choice.", **fv)


def main(argv=None):
  """`python -m bert_tf2.beam.predict ...` (see the module docstring)."""
  define_flags()
  for name in ("saved_model", "input", "output"):
    flags.mark_flag_as_required(name)
  absl_argv, beam_args = argv_lib.split(argv or sys.argv, flags.FLAGS)
  beam_args = beam_args or []

  def work(_):
    f = flags.FLAGS
    if beam_args:
      argv_lib.check_pipeline_args(beam_args, "bert_tf2.beam.predict")
    cli.require_file("saved_model", f.saved_model + "/saved_model.pb")
    run(f.saved_model, f.input, f.output, beam_args, f.input_format,
        f.signature, f.batch_size, f.num_output_files)
  cli.run(work, argv=absl_argv)


if __name__ == "__main__":
  main()
