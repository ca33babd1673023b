"""BERT tokenization: Google's original `tokenization` API, plus fast paths.

    import tokenization
    tokenizer = tokenization.FullTokenizer(vocab_file="vocab.txt",
                                           do_lower_case=True)
    tokens = tokenizer.tokenize("Hello, world!")
    ids = tokenizer.convert_tokens_to_ids(tokens)

Same names and behaviour as google-research/bert's tokenization.py
(FullTokenizer, BasicTokenizer, WordpieceTokenizer, load_vocab,
convert_to_unicode, printable_text, whitespace_tokenize,
validate_case_matches_checkpoint, convert_by_vocab, ...). Modules:

* text: character classes and string helpers;
* vocab: vocabulary files;
* basic, wordpiece: the reference tokenizers;
* full: FullTokenizer (fast cached path by default, `cache=False` for the
  reference path);
* fast: the cached fast Python path;
* tf_text: an in-graph tokenizer on tensorflow-text for tf.data/SavedModel;
* checks: checkpoint-casing validation, [unusedN] preservation;
* flags: the original's --preserve_unused_tokens absl flag.

See docs/tokenization.md.
"""

from absl import flags as _absl_flags

from tokenization import flags as _flags
from tokenization.basic import BasicTokenizer
from tokenization.checks import preserve_token as _preserve_token
from tokenization.checks import UNUSED_TOKEN_RE as _UNUSED_TOKEN_RE
from tokenization.checks import validate_case_matches_checkpoint
from tokenization.full import FullTokenizer
from tokenization.text import convert_to_unicode
from tokenization.text import is_chinese_char
from tokenization.text import is_control as _is_control
from tokenization.text import is_punctuation as _is_punctuation
from tokenization.text import is_whitespace as _is_whitespace
from tokenization.text import printable_text
from tokenization.text import whitespace_tokenize
from tokenization.vocab import convert_by_vocab
from tokenization.vocab import convert_ids_to_tokens
from tokenization.vocab import convert_tokens_to_ids
from tokenization.vocab import load_vocab
from tokenization.vocab import UnknownTokenError
from tokenization.wordpiece import WordpieceTokenizer

FLAGS = _absl_flags.FLAGS

__all__ = [
    "BasicTokenizer", "FullTokenizer", "WordpieceTokenizer",
    "UnknownTokenError", "convert_by_vocab", "convert_ids_to_tokens",
    "convert_to_unicode", "convert_tokens_to_ids", "load_vocab",
    "printable_text", "validate_case_matches_checkpoint",
    "whitespace_tokenize",
]


def preserve_token(token, vocab):
  """The original's helper: reads the --preserve_unused_tokens flag."""
  return _preserve_token(token, vocab,
                         _flags.resolve_preserve_unused_tokens(None))
