"""The original's absl flag --preserve_unused_tokens, defined on import.

Google's tokenization.py defines this flag itself, so every script importing
it accepts `--preserve_unused_tokens=true`. We define it too (once), so the
original command lines keep working; scripts must not define it again.
Tokenizers take `preserve_unused_tokens=None` to mean "use the flag if flags
are parsed, else False"; pass True/False to ignore the flag.
"""

from absl import flags

from tokenization.errors import InputError

FLAG_NAME = "preserve_unused_tokens"

if FLAG_NAME not in flags.FLAGS:
  flags.DEFINE_bool(
      FLAG_NAME, False,
      "Keep vocabulary entries [unusedN] found in the text as single tokens "
      "instead of splitting them into word pieces.",
      # The original bert.tokenization defines the same flag; letting it
      # override ours makes importing both, in any order, work.
      allow_override=True)


def resolve_preserve_unused_tokens(value):
  """Returns bool(value), or the flag's value when `value` is None."""
  if value is not None:
    return bool(value)
  if flags.FLAGS.is_parsed():
    return bool(flags.FLAGS[FLAG_NAME].value)
  return False


def refuse_preserve_unused_tokens(script, why="does not tokenize text"):
  """For scripts where the flag cannot act (run_pretraining.py,
  convert_hf_checkpoint.py, analyze_position_embeddings.py and
  evaluate_squad.py never tokenize; create_vocab.py splits words before a
  vocabulary exists): importing `tokenization` (for its errors and atomic
  writers) defines the flag, so they accept it; a value that would act
  nowhere is refused.

  Args:
    script: the script's file name, for the message.
    why: what the script does instead, for the message.

  Raises:
    InputError: --preserve_unused_tokens=true was given.
  """
  if flags.FLAGS.is_parsed() and flags.FLAGS[FLAG_NAME].value:
    raise InputError("--%s: %s %s, so the flag would do nothing here"
                     % (FLAG_NAME, script, why))


def refuse_preserve_unused_tokens_with_export(export_dir):
  """Refuses --preserve_unused_tokens=true with a raw-text SavedModel.

  The SavedModels of --export_dir tokenize raw text in the graph
  (`tokenization.tf_text.InGraphTokenizer`), which cannot keep [unusedN]
  whole: the model would tokenize such text unlike the run that wrote it.

  Raises:
    InputError: the flag is true and `export_dir` is set.
  """
  if export_dir and flags.FLAGS.is_parsed() and flags.FLAGS[FLAG_NAME].value:
    raise InputError("--%s: the SavedModel of --export_dir tokenizes raw "
                     "text in the graph, which cannot keep [unusedN] tokens "
                     "whole (it would tokenize unlike this run); leave out "
                     "one of the two flags" % FLAG_NAME)
