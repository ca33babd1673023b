"""The one exception type for bad user input.

Scripts raise `InputError` with a message that names the flag or file and what
is wrong; the script entry points print it without a traceback and exit 1.
"""


class InputError(ValueError):
  """Bad user input: a flag, file or record that cannot be used.

  Example:
    >>> raise InputError("--vocab_file=vocab.txt: file not found")
    Traceback (most recent call last):
    ...
    bert_tf2.common.errors.InputError: --vocab_file=vocab.txt: file not found
  """
