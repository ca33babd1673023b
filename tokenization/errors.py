"""The one exception type for bad user input, for the whole project.

It lives here, in the lowest package (pure Python, imports nothing of the
project), so that modeling/, optimization/ and bert_tf2 all raise this one
class without an upward import; `bert_tf2.common` re-exports it. Scripts raise `InputError` with a message that names the flag or file and what
is wrong; the script entry points print it without a traceback and exit 1.
"""


class InputError(ValueError):
  """Bad user input: a flag, file or record that cannot be used.

  Example:
    >>> raise InputError("--vocab_file=vocab.txt: file not found")
    Traceback (most recent call last):
    ...
    tokenization.errors.InputError: --vocab_file=vocab.txt: file not found
  """
